// What a judge is sent, and a user's own grading template (promptfoo's `rubricPrompt`): part of an
// assertion (assertions.ts) and read by the judge (judge.ts), so it sits below both.

export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** When a rendering must end by: the step's deadline, on the run's clock. */
export interface RenderDeadline {
  at: number;
  now(): number;
}

/** A grading template of the user's own (promptfoo's `rubricPrompt`), rendered per grading. */
export interface RubricPrompt {
  /**
   * The messages for one grading: the reply, the rubric (or reference) and the last message sent;
   * a rendering still under way at `deadline` is refused (that grading's error).
   */
  render(material: { output: string; value: string; input: string }, deadline?: RenderDeadline): Message[];
}
