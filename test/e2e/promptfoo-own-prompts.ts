// A promptfoo config of this project's own (promptfoo publishes no example of these): g-eval with
// its own steps and evaluate prompts (files), model-graded-closedqa with its own rubricPrompt in
// promptfoo's names, a contains-any list with a file:// entry, and defaultTest's grader beside
// tests no grader of which uses it. Shared by the end-to-end test (dist/) and the opt-in test that
// runs promptfoo 0.123.1 itself on it (test/promptfoo/format.promptfoo.ts), so both expect the
// same verdicts from the same fake judge.
import { type FakeJudgeOptions, judgeText } from '../sim/judge.ts';

export const OWN_PROMPTS_CONFIG = `prompts: ['Where is my order {{order}}?']
defaultTest:
  options:
    provider: openai:chat:gpt-4.1-mini
tests:
  - vars: {order: '12345'}
    assert:
      - type: contains-any
        value: [file://phrases/shipped.txt, delivered]
  - vars: {order: '12345'}
    options:
      rubricPrompt:
        steps: file://rubrics/steps.txt
        evaluate: file://rubrics/evaluate.txt
    assert:
      - type: g-eval
        value: Says where the order is
  - vars: {order: '12345', tone: friendly}
    assert:
      - type: model-graded-closedqa
        value: Says where the order is
        rubricPrompt: "Question: {{input}}\\nAnswer: {{completion}}\\nIs it {{tone}}, and does it meet this: {{criteria}}? End with Y or N."
  - vars: {order: '67890'}
    assert:
      - type: icontains-all
        value: [file://phrases/shipped.txt, '{{order}}']
`;

export const OWN_PROMPTS_FILES: Record<string, string> = {
  'promptfooconfig.yaml': OWN_PROMPTS_CONFIG,
  // With a newline at its end, as an editor saves it: promptfoo trims a .txt value.
  'phrases/shipped.txt': 'has shipped\n',
  'rubrics/steps.txt': 'Write evaluation steps for: {{criteria}}\nAnswer as {"steps": [...]}\n',
  'rubrics/evaluate.txt':
    'Criteria: {{criteria}}\nSteps:\n- {{steps}}\nQuestion: {{input}}\nReply: {{output}}\nScore it from 0 to {{maxScore}}, as {"score": …, "reason": …}\n',
};

/** What the Claw answers to 'Where is my order N?'. */
export const ownPromptsReply = (message: string): string =>
  `Your order ${/order (\d+)/.exec(message)?.[1] ?? '?'} has shipped and arrives Friday.`;

/** The judge: steps for the steps prompt, 8 of 10 for the evaluation, Y when the tone was rendered. */
export const ownPromptsJudge: FakeJudgeOptions = {
  answer: (r) => {
    const asked = judgeText(r);
    if (asked.startsWith('Write evaluation steps for: Says where the order is'))
      return { content: '{"steps":["Find where the order is.","Check the day it arrives."]}' };
    if (asked.startsWith('Criteria: Says where the order is'))
      return { content: '{"score":8,"reason":"It says the order shipped."}' };
    return { content: `Answered.\n${asked.includes('Is it friendly,') ? 'Y' : 'N'}` };
  },
};
