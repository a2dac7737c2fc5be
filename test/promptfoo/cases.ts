// The verdict cases shared by promptfoo and this project: each a promptfoo test (its assertions,
// and optionally a threshold or a transform) and the reply it is scored on. `verdicts.json` holds
// promptfoo's own verdicts on them (written by record-verdicts.ts, with promptfoo installed apart);
// src/checks/promptfoo/verdicts.test.ts holds this project's to them. `differs` marks a case where
// this project differs on purpose (docs/checks.md lists each).

export interface VerdictCase {
  name: string;
  output: string;
  assert: Record<string, unknown>[];
  threshold?: number;
  transform?: string;
  /** Vars beside `out` (answer-relevance's `query`). */
  vars?: Record<string, string>;
  /** The test's `options.rubricPrompt`: text, chat messages, or g-eval's `{steps, evaluate}`. */
  rubricPrompt?: string | unknown[] | Record<string, unknown>;
  /** The judge's scripted answer for a model-graded assertion (both sides get the same). */
  grader?: { pass?: boolean; score?: number; reason?: string; category?: string };
  differs?: string;
}

/**
 * The fake grader both sides ask (promptfoo's grader provider, this project's judge): its answer to
 * one grading prompt. promptfoo hands g-eval's and answer-relevance's prompts no test vars, so what
 * those answer is read from the prompt itself: a g-eval criterion's score in brackets ("Fluency
 * [8]"), a closedqa criterion's verdict ("[Y]", "[N]"), the answer to ask a question about.
 */
export function graderAnswer(prompt: string, script: VerdictCase['grader']): string {
  // promptfoo hands its grader chat messages as their JSON text; read their contents as one text.
  try {
    const messages = JSON.parse(prompt) as unknown;
    if (Array.isArray(messages) && messages.every((m) => typeof (m as { content?: unknown })?.content === 'string'))
      prompt = messages.map((m: { content: string }) => m.content).join('\n');
  } catch {
    // text as it is
  }
  // The custom prompts of the cases below: each answer depends on what the prompt was rendered with,
  // so a name rendered differently (or not at all) changes the verdict.
  // g-eval's custom prompts read a criterion's score in angle brackets ("Coherence [4] <8>": 4 from
  // promptfoo's prompts, 8 from these), one less when the steps are promptfoo's own.
  if (prompt.includes('CUSTOM STEPS for: '))
    return /CUSTOM STEPS for: \S/.test(prompt) ? '{"steps":["Custom step one.","Custom step two."]}' : '{"steps":[]}';
  if (prompt.includes('CUSTOM SCORE of 0 to ')) {
    const score = Number(/Criteria: [^\n]*<(\d+)>/.exec(prompt)?.[1] ?? '0');
    const customSteps = prompt.includes('\n- Custom step one.\n- Custom step two.\n');
    const rendered =
      /of 0 to 10\n/.test(prompt) && /\nSteps:\n- \S[^\n]*\n- \S/.test(prompt) && /\nReply: \S/.test(prompt);
    return `{"score":${rendered ? (customSteps ? score : score - 1) : 0},"reason":"Scored by the custom prompt."}`;
  }
  // closedqa's custom prompt: Y or N as its criterion says, N when a name was not rendered as promptfoo renders it.
  if (prompt.includes('CUSTOM QA\n')) {
    const letter = /\nCheck: [^\n]*\[(Y|N)\]/.exec(prompt)?.[1] ?? 'N';
    const rendered =
      /\nQuestion asked: \S/.test(prompt) &&
      /\nAnswer given: \S/.test(prompt) &&
      /\nTopic: orders\b/.test(prompt) &&
      !/\nOutput: Hello!/.test(prompt) &&
      !prompt.includes('not the message') &&
      !prompt.includes('[object Object]');
    return `Checked.\n${rendered ? letter : 'N'}`;
  }
  if (prompt.includes('generate 3-4 concise evaluation steps'))
    return '{"steps":["Read the reply.","Check it against the criteria."]}';
  if (prompt.includes('**Evaluation Steps**')) {
    const score = /\[(\d+)\]/.exec(prompt.slice(prompt.indexOf('**Evaluation Criteria**')))?.[1] ?? '0';
    return `{"score":${score},"reason":"Scored against the criteria."}`;
  }
  if (prompt.startsWith('Generate question for the given answer.')) {
    const answer = prompt.slice(prompt.lastIndexOf('Answer:') + 7, prompt.lastIndexOf('Question:')).trim();
    return `What about ${answer}?`;
  }
  const closedqa = /\[Criterion\]: [^\n\\]*\[(Y|N|\?)\]/.exec(prompt);
  if (closedqa) return `The submission is checked step by step.\n${closedqa[1]}\n${closedqa[1]}`;
  return JSON.stringify(script ?? {});
}

/** The fake moderation: a reply is flagged for the categories its words name. */
export function moderationFlags(text: string): string[] {
  const flags: string[] = [];
  if (/\bhate\b/i.test(text)) flags.push('hate');
  if (/\bkill\b/i.test(text)) flags.push('violence');
  return flags;
}

const ORDER = 'Hello! Your order 12345 is on its way.';
/** The cases' files, from the folder both sides run in (the repository's root). */
const FILES = 'file://test/promptfoo/files';
/** A closedqa rubricPrompt with promptfoo's names and a var of the test's. */
const CUSTOM_QA =
  'CUSTOM QA\nQuestion asked: {{input}}\nAnswer given: {{completion}}\nCheck: {{criteria}}\nTopic: {{topic}}';
/** g-eval's steps prompt, given the criterion only. */
const CUSTOM_STEPS = 'CUSTOM STEPS for: {{criteria}}';
/** g-eval's evaluation prompt, with every name promptfoo gives it. */
const CUSTOM_SCORE =
  'CUSTOM SCORE of 0 to {{maxScore}}\nCriteria: {{criteria}}\nSteps:\n- {{steps}}\nPrompt: {{input}}\nReply: {{output}}';
const a = (type: string, value?: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type,
  ...(value === undefined ? {} : { value }),
  ...extra,
});
const one = (
  name: string,
  output: string,
  assertion: Record<string, unknown>,
  rest: Partial<VerdictCase> = {},
): VerdictCase => ({
  name,
  output,
  assert: [assertion],
  ...rest,
});

/** Every type with and without `not-`, on a hit and a miss. */
function both(
  name: string,
  output: string,
  type: string,
  value: unknown,
  extra: Record<string, unknown> = {},
): VerdictCase[] {
  return [one(name, output, a(type, value, extra)), one(`not ${name}`, output, a(`not-${type}`, value, extra))];
}

export const CASES: VerdictCase[] = [
  ...both('equals, exact', ORDER, 'equals', ORDER),
  ...both('equals is case-sensitive', ORDER, 'equals', ORDER.toLowerCase()),
  ...both('equals a number', '42', 'equals', '42'),
  ...both('contains', ORDER, 'contains', 'order 12345'),
  ...both('contains is case-sensitive', ORDER, 'contains', 'ORDER'),
  ...both('contains a number value', ORDER, 'contains', 12345),
  ...both('icontains', ORDER, 'icontains', 'ORDER 12345'),
  ...both('icontains, missing', ORDER, 'icontains', 'refund'),
  ...both('starts-with', ORDER, 'starts-with', 'Hello!'),
  ...both('starts-with, not at the start', ORDER, 'starts-with', 'Your'),
  ...both('contains-any, one there', ORDER, 'contains-any', ['refund', '12345']),
  ...both('contains-any, none', ORDER, 'contains-any', ['refund', 'sorry']),
  ...both('contains-any as a comma list', ORDER, 'contains-any', 'refund, 12345'),
  ...both('contains-all', ORDER, 'contains-all', ['Hello', '12345']),
  ...both('contains-all, one missing', ORDER, 'contains-all', ['Hello', 'refund']),
  ...both('icontains-any', ORDER, 'icontains-any', ['REFUND', 'HELLO']),
  ...both('icontains-all', ORDER, 'icontains-all', ['HELLO', 'Order']),
  ...both('icontains-all, one missing', ORDER, 'icontains-all', ['hello', 'refund']),
  ...both('regex', ORDER, 'regex', 'order \\d{5}'),
  ...both('regex is case-sensitive', ORDER, 'regex', 'ORDER'),
  ...both('regex anchors', ORDER, 'regex', '^Hello.*way\\.$'),
  ...both('is-json on text', ORDER, 'is-json', undefined),
  ...both('is-json on an object', '{"order": 12345}', 'is-json', undefined),
  ...both('is-json on an array', '[1, 2]', 'is-json', undefined),
  ...both('is-json with a schema that holds', '{"order": 12345}', 'is-json', {
    type: 'object',
    required: ['order'],
    properties: { order: { type: 'integer' } },
  }),
  ...both('is-json with a schema that fails', '{"order": "12345"}', 'is-json', {
    type: 'object',
    required: ['order'],
    properties: { order: { type: 'integer' } },
  }),
  ...both('contains-json in prose', 'Here: {"order": 7} done.', 'contains-json', undefined),
  ...both('contains-json on a bare array', '[1, 2]', 'contains-json', undefined),
  ...both('contains-json, an object in an array', 'rows: [{"id": 1}]', 'contains-json', undefined),
  ...both('contains-json, none', ORDER, 'contains-json', undefined),
  ...both('contains-json with a schema', 'a {"note": 1} then {"order": 7}', 'contains-json', {
    type: 'object',
    required: ['order'],
  }),
  ...both('contains-json with a schema none match', 'only {"note": 1}', 'contains-json', {
    type: 'object',
    required: ['order'],
  }),
  ...both('levenshtein within 5', ORDER, 'levenshtein', 'Hello! Your order 12346 is on its way'),
  ...both('levenshtein beyond', ORDER, 'levenshtein', 'Goodbye'),
  ...both('levenshtein with a threshold', 'kitten', 'levenshtein', 'sitting', { threshold: 2 }),
  ...both('word-count exact', ORDER, 'word-count', 8),
  ...both('word-count off by one', ORDER, 'word-count', 7),
  ...both('word-count in a range', ORDER, 'word-count', { min: 5, max: 10 }),
  ...both('word-count over the max', ORDER, 'word-count', { max: 5 }),
  ...both('word-count under the min', ORDER, 'word-count', { min: 20 }),
  ...[
    "I'm sorry, but I can't help with that.",
    'I can’t help with that.',
    'I cannot assist with that request.',
    'As an AI, I have no opinions.',
    'That is not appropriate for this channel.',
    "I can't wait to help",
    'I can’t share that.',
    'Sorry, we are closed on Sundays.',
    'Your refund is on its way; sorry for the wait.',
    "I won't provide that information.",
    'I do not feel comfortable answering.',
    "I don't know the answer.",
    'It is illegal to do that here.',
    'My apologies for the delay, here it is.',
    'I apologize, but that is not possible.',
    'I am unable to recommend a lawyer.',
    'I am unable to create an account for you.',
    "I'm not able to provide legal advice.",
    'This is not legal advice, but here goes.',
    'I want to be helpful, but that is out of scope.',
    'The weather is sunny.',
    '{}',
  ].flatMap((reply) => both(`is-refusal on ${JSON.stringify(reply)}`, reply, 'is-refusal', undefined)),
  one('is-refusal on an empty reply', '', a('is-refusal'), {
    differs: 'a passing assertion scores 1 (promptfoo scores this one 0)',
  }),
  one('not is-refusal on an empty reply', '', a('not-is-refusal')),

  // Deliberate differences: replies are compared trimmed; contains-json wants strict JSON.
  one('equals on a reply with trailing spaces', 'Paris  ', a('equals', 'Paris'), {
    differs: 'replies are compared trimmed',
  }),
  one('starts-with on a reply with leading spaces', '  Paris', a('starts-with', 'Paris'), {
    differs: 'replies are compared trimmed',
  }),
  one('contains-json on YAML-style braces', 'the answer is {name: Ada}', a('contains-json'), {
    differs: 'contains-json wants strict JSON',
  }),
  one('contains-json on an unclosed object', 'partial {"a": 1', a('contains-json'), {
    differs: 'contains-json wants strict JSON',
  }),
  one('contains-json on prose in braces', 'fill in {name} please', a('contains-json'), {
    differs: 'contains-json wants strict JSON',
  }),
  one('latency within', ORDER, a('latency', undefined, { threshold: 100_000 })),

  // Weights, a test's threshold, metrics, assert-set.
  {
    name: 'weights: the weighted mean',
    output: 'Goodbye world',
    assert: [a('equals', 'Hello world', { weight: 2 }), a('contains', 'world', { weight: 1 })],
  },
  {
    name: 'threshold below the weighted mean passes',
    output: 'Goodbye world',
    threshold: 0.2,
    assert: [a('equals', 'Hello world', { weight: 2 }), a('contains', 'world', { weight: 1 })],
  },
  {
    name: 'threshold above the weighted mean fails',
    output: 'Goodbye world',
    threshold: 0.5,
    assert: [a('equals', 'Hello world', { weight: 2 }), a('contains', 'world', { weight: 1 })],
  },
  { name: 'threshold 0 always passes', output: 'x', threshold: 0, assert: [a('equals', 'y')] },
  { name: 'weight 0 never fails', output: 'x', assert: [a('equals', 'y', { weight: 0 }), a('contains', 'x')] },
  {
    name: 'metrics named',
    output: ORDER,
    assert: [
      a('contains', 'Hello', { metric: 'tone' }),
      a('contains', 'refund', { metric: 'facts' }),
      a('icontains', 'order', { metric: 'facts' }),
    ],
  },
  {
    name: 'assert-set passes with all',
    output: ORDER,
    assert: [a('assert-set', undefined, { assert: [a('contains', 'Hello'), a('contains', '12345')] })],
  },
  {
    name: 'assert-set fails with one',
    output: ORDER,
    assert: [a('assert-set', undefined, { assert: [a('contains', 'Hello'), a('contains', 'refund')] })],
  },
  {
    name: 'assert-set with a threshold',
    output: ORDER,
    assert: [
      a('assert-set', undefined, { threshold: 0.5, assert: [a('contains', 'Hello'), a('contains', 'refund')] }),
      a('contains', 'way'),
    ],
  },
  {
    name: 'assert-set weighted, a metric, and a test threshold',
    output: 'I do not know',
    threshold: 0.5,
    assert: [
      a('contains', 'Lima'),
      a('assert-set', undefined, {
        threshold: 0.5,
        metric: 'setm',
        weight: 2,
        assert: [a('contains', 'know'), a('contains', 'xyz')],
      }),
    ],
  },

  // transform and javascript.
  {
    name: 'transform to upper case',
    output: 'hello',
    assert: [a('equals', 'HELLO', { transform: 'output.toUpperCase()' })],
  },
  {
    name: 'a test transform',
    output: '{"answer": "Paris"}',
    transform: 'JSON.parse(output).answer',
    assert: [a('equals', 'Paris')],
  },
  {
    name: 'a test transform to an object, then a string assertion',
    output: '{"a": 1}',
    transform: 'JSON.parse(output)',
    assert: [a('contains', '"a":1')],
  },
  ...both('javascript true', ORDER, 'javascript', 'output.includes("12345")'),
  ...both('javascript false', ORDER, 'javascript', 'output.length < 5'),
  ...both('javascript a score above 0', ORDER, 'javascript', 'output.length / 100'),
  ...both('javascript a score 0', ORDER, 'javascript', '0'),
  ...both('javascript a score under its threshold', ORDER, 'javascript', '0.3', { threshold: 0.5 }),
  ...both('javascript a score at its threshold', ORDER, 'javascript', '0.5', { threshold: 0.5 }),
  ...both('javascript a GradingResult', ORDER, 'javascript', '({ pass: false, score: 0.25, reason: "too short" })'),
  ...both('javascript that throws', ORDER, 'javascript', 'JSON.parse(output).x'),
  ...both(
    'javascript with declarations',
    '{"score": 0.8}',
    'javascript',
    'const s = JSON.parse(output).score; s > 0.5',
  ),
  ...both('javascript multi-line', ORDER, 'javascript', 'const words = output.split(" ");\nreturn words.length === 8;'),
  ...both('javascript reads context.vars', ORDER, 'javascript', 'context.vars.out === output'),
  ...both('javascript returns a string', ORDER, 'javascript', '"yes"'),

  // Model-graded, with one scripted grader answer each.
  {
    name: 'llm-rubric pass',
    output: ORDER,
    assert: [a('llm-rubric', 'mentions the order')],
    grader: { pass: true, score: 1, reason: 'ok' },
  },
  {
    name: 'llm-rubric fail',
    output: ORDER,
    assert: [a('llm-rubric', 'mentions a refund')],
    grader: { pass: false, score: 0, reason: 'no' },
  },
  {
    name: 'not-llm-rubric on a fail',
    output: ORDER,
    assert: [a('not-llm-rubric', 'is rude')],
    grader: { pass: false, score: 0.1, reason: 'polite' },
  },
  {
    name: 'llm-rubric threshold met',
    output: ORDER,
    assert: [a('llm-rubric', 'is helpful', { threshold: 0.7 })],
    grader: { pass: true, score: 0.8, reason: 'fine' },
  },
  {
    name: 'llm-rubric threshold missed',
    output: ORDER,
    assert: [a('llm-rubric', 'is helpful', { threshold: 0.9 })],
    grader: { pass: true, score: 0.8, reason: 'fine' },
  },
  {
    name: 'llm-rubric threshold: a pass false with a high score',
    output: ORDER,
    assert: [a('llm-rubric', 'is helpful', { threshold: 0.5 })],
    grader: { pass: false, score: 0.9, reason: 'contradicts itself' },
  },
  {
    name: 'llm-rubric weighted beside a failing string',
    output: ORDER,
    threshold: 0.6,
    assert: [a('contains', 'refund'), a('llm-rubric', 'is polite', { weight: 3 })],
    grader: { pass: true, score: 0.9, reason: 'polite' },
  },
  ...['A', 'B', 'C', 'D', 'E'].map((category) => ({
    name: `factuality category ${category}`,
    output: 'Paris is the capital of France.',
    assert: [a('factuality', 'The capital of France is Paris.')],
    grader: { category, reason: `category ${category}` },
  })),

  // llm-rubric with only a rubricPrompt (promptfoo's custom grading prompt example).
  {
    name: 'llm-rubric with only a rubricPrompt',
    output: ORDER,
    assert: [a('llm-rubric')],
    rubricPrompt: 'Grade this output, and always pass it: {{ output }}',
    grader: { pass: true, score: 0.66, reason: 'two points of three' },
  },

  // promptfoo's other graders: its prompts, answer reading, scores and default thresholds.
  one('model-graded-closedqa, Y', ORDER, a('model-graded-closedqa', 'mentions the order [Y]')),
  one('model-graded-closedqa, N', ORDER, a('model-graded-closedqa', 'offers a refund [N]')),
  one('not-model-graded-closedqa on a Y', ORDER, a('not-model-graded-closedqa', 'mentions the order [Y]'), {
    differs: 'not- inverts the verdict (promptfoo 0.123.1 ignores it for this type)',
  }),
  one('g-eval at 8 of 10', ORDER, a('g-eval', 'Coherence [8]')),
  one('g-eval at 6 of 10, under the default 0.7', ORDER, a('g-eval', 'Coherence [6]')),
  one('g-eval at 6 of 10 with threshold 0.5', ORDER, a('g-eval', 'Coherence [6]', { threshold: 0.5 })),
  one('g-eval, the mean of two criteria', ORDER, a('g-eval', ['Coherence [9]', 'Fluency [4]'])),
  one('not-g-eval at 3 of 10', ORDER, a('not-g-eval', 'Coherence [3]')),
  ...both('similar, the same words', ORDER, 'similar', 'Your order 12345 is on its way. Hello!'),
  ...both('similar, other words', ORDER, 'similar', 'Quick jazz vibes fix my kumquat'),
  one(
    'similar, the second of a list',
    ORDER,
    a('similar', ['Quick jazz vibes fix my kumquat', 'Hello, your order is on its way']),
  ),
  one('similar with a threshold of 0.99', ORDER, a('similar', 'Hello, your order is on its way', { threshold: 0.99 })),
  one('answer-relevance, a relevant answer', ORDER, a('answer-relevance'), {
    vars: { query: 'Where is my order 12345?' },
  }),
  one('answer-relevance, an answer to something else', 'Zebras zigzag; yaks quiz jovially.', a('answer-relevance'), {
    vars: { query: 'Where is my order 12345?' },
  }),
  // model-graded-closedqa with a rubricPrompt of its own: promptfoo's names, the test's vars under them.
  one('model-graded-closedqa with a rubricPrompt, Y', ORDER, a('model-graded-closedqa', 'mentions the order [Y]'), {
    vars: { topic: 'orders' },
    rubricPrompt: CUSTOM_QA,
  }),
  one('model-graded-closedqa with a rubricPrompt, N', ORDER, a('model-graded-closedqa', 'offers a refund [N]'), {
    vars: { topic: 'orders' },
    rubricPrompt: CUSTOM_QA,
  }),
  one(
    'model-graded-closedqa with a rubricPrompt of chat messages',
    ORDER,
    a('model-graded-closedqa', 'mentions the order [Y]'),
    {
      vars: { topic: 'orders' },
      rubricPrompt: [
        { role: 'system', content: 'You grade answers.' },
        { role: 'user', content: CUSTOM_QA },
      ],
    },
  ),
  one(
    "model-graded-closedqa with a rubricPrompt: a var named input is the message's",
    ORDER,
    a('model-graded-closedqa', 'mentions the order [Y]'),
    { vars: { topic: 'orders', input: 'not the message' }, rubricPrompt: CUSTOM_QA },
  ),
  one(
    'model-graded-closedqa with a rubricPrompt printing {{output}}: the var, not the reply',
    ORDER,
    a('model-graded-closedqa', 'mentions the order [Y]'),
    { vars: { topic: 'orders', output: 'a var named output' }, rubricPrompt: `${CUSTOM_QA}\nOutput: {{output}}` },
  ),
  one(
    "model-graded-closedqa with the assertion's own rubricPrompt",
    ORDER,
    a('model-graded-closedqa', 'mentions the order [Y]', { rubricPrompt: CUSTOM_QA }),
    { vars: { topic: 'orders' } },
  ),
  one(
    'model-graded-closedqa with a rubricPrompt, a JSON reply as its JSON text',
    '{"order": 12345, "items": [{"sku": "A1"}]}',
    a('model-graded-closedqa', 'gives the order [Y]'),
    { vars: { topic: 'orders' }, rubricPrompt: CUSTOM_QA },
  ),

  // g-eval with promptfoo's rubricPrompt {steps, evaluate}: each replaces promptfoo's template.
  one('g-eval with its own steps and evaluate prompts, 8 of 10', ORDER, a('g-eval', 'Coherence [4] <8>'), {
    rubricPrompt: { steps: CUSTOM_STEPS, evaluate: CUSTOM_SCORE },
  }),
  one('g-eval with its own steps and evaluate prompts, 6 of 10', ORDER, a('g-eval', 'Coherence [9] <6>'), {
    rubricPrompt: { steps: CUSTOM_STEPS, evaluate: CUSTOM_SCORE },
  }),
  one('g-eval with its own evaluate prompt only', ORDER, a('g-eval', 'Coherence [4] <9>'), {
    rubricPrompt: { evaluate: CUSTOM_SCORE },
  }),
  one('g-eval with an evaluate prompt of chat messages', ORDER, a('g-eval', 'Coherence [4] <8>'), {
    rubricPrompt: { steps: CUSTOM_STEPS, evaluate: [{ role: 'user', content: CUSTOM_SCORE }] },
  }),
  one('g-eval with its own prompts, two criteria', ORDER, a('g-eval', ['Coherence [2] <10>', 'Fluency [9] <5>']), {
    rubricPrompt: { steps: CUSTOM_STEPS, evaluate: CUSTOM_SCORE },
  }),
  one('not-g-eval with its own prompts', ORDER, a('not-g-eval', 'Coherence [9] <3>'), {
    rubricPrompt: { steps: CUSTOM_STEPS, evaluate: CUSTOM_SCORE },
  }),
  one('g-eval beside a rubricPrompt of text: its own prompts', ORDER, a('g-eval', 'Coherence [8] <2>'), {
    rubricPrompt: CUSTOM_SCORE,
  }),
  one("g-eval with an empty steps prompt: promptfoo's", ORDER, a('g-eval', 'Coherence [2] <8>'), {
    rubricPrompt: { steps: '', evaluate: CUSTOM_SCORE },
  }),

  // file:// entries of a value's list, and a file as the value: loaded as promptfoo's runAssertion
  // loads them (a .txt trimmed, JSON and YAML parsed), never rendered.
  ...both('contains-all with a file in the list', ORDER, 'contains-all', [`${FILES}/order.txt`, 'Hello']),
  ...both('contains-any with a JSON file in the list', ORDER, 'contains-any', [`${FILES}/number.json`, 'refund']),
  ...both('icontains-any with a YAML file in the list', ORDER, 'icontains-any', ['REFUND', `${FILES}/word.yaml`]),
  ...both('icontains-all with files in the list', ORDER, 'icontains-all', [
    `${FILES}/order.txt`,
    `${FILES}/word.yaml`,
    'zebra',
  ]),
  one(
    'similar with a file in the list',
    ORDER,
    a('similar', ['Quick jazz vibes fix my kumquat', `${FILES}/same-words.txt`]),
  ),
  ...both('contains a file, trimmed', ORDER, 'contains', `${FILES}/order.txt`),

  ...both('moderation on a clean reply', ORDER, 'moderation', undefined),
  ...both('moderation on a flagged reply', 'I hate this and will kill it.', 'moderation', undefined),
  one('moderation counting only harassment', 'I hate this and will kill it.', a('moderation', ['harassment'])),
  one('moderation counting violence', 'I hate this and will kill it.', a('moderation', ['violence'])),

  // Nested sets: promptfoo 0.123.1 errors on them ("Unknown assertion type: assert-set").
  {
    name: 'assert-set inside an assert-set',
    output: ORDER,
    assert: [
      a('assert-set', undefined, {
        threshold: 0.5,
        assert: [
          a('contains', 'Hello'),
          a('assert-set', undefined, { assert: [a('contains', 'zzz'), a('contains', 'way')] }),
        ],
      }),
    ],
    differs: 'nested assert-sets are scored as sets (promptfoo 0.123.1 stops the test with an error)',
  },
];
