// What a judge is sent, and a user's own grading template (promptfoo's `rubricPrompt`): part of an
// assertion (assertions.ts) and read by the judge (judge.ts), so it sits below both.

export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A grading template of the user's own (promptfoo's `rubricPrompt`), rendered per grading. */
export interface RubricPrompt {
  /** The messages for one grading: the reply, the rubric (or reference) and the last message sent. */
  render(material: { output: string; value: string; input: string }): Message[];
}
