// Issue 39, items 5 and 7, through dist/index.js: the redactor reads what a reader decodes and
// does it in linear time. A Claw's reply holds the API key in each form a reader still reads (a
// non-breaking hyphen, look-alike letters, hex with separators, wrapped base64, base64 of
// UTF-16LE, nested percent-encoding, `%u`, `\x`, `\u{}`): none shows in the log, the summary, the
// outputs, the JUnit file or checks-output. A reply of one zero-width space, then the key 20,000 times
// (0.48 MB; 115 s before) and a judge answering 250,000 `{` to g-eval (34 s before) end under
// `timeout: 10s` with the check's own outcome. Beside them, ordinary text that only looks like the
// key's forms is shown unchanged.
// Input controlled by: a Claw (its replies), a judge (its answers).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeJudge, judgeText } from '../sim/judge.ts';
import { ALL_SCOPES } from '../sim/server.ts';
import { type ActionRun, runAction, workspaceWith } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const KEY = 'ams-Key-Qx7Zr9Wv2Lp4ace';
const start = simulatorPerTest({ keys: { [KEY]: ALL_SCOPES } });
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;

const bytes = Buffer.from(KEY);
const codes = [...KEY].map((c) => c.charCodeAt(0).toString(16));
const CYRILLIC: Record<string, string> = { a: 'а', c: 'с', e: 'е', K: 'К', y: 'у', x: 'х', Z: 'Ζ', p: 'р' };
const base64 = bytes.toString('base64');

/** The key as a reader still reads it, each the reply to one check. */
const FORMS: Record<string, string> = {
  'non-breaking hyphens': KEY.replace(/-/g, '\u2011'),
  'minus signs and en dashes': KEY.replace('-', '\u2212').replace('-', '\u2013'),
  'Cyrillic and Greek look-alikes': [...KEY].map((c) => CYRILLIC[c] ?? c).join(''),
  'hex with colons': [...bytes].map((b) => b.toString(16)).join(':'),
  'hex with spaces, upper case': [...bytes].map((b) => b.toString(16).toUpperCase()).join(' '),
  'hex as 0x..,0x..': [...bytes].map((b) => `0x${b.toString(16)}`).join(','),
  'wrapped base64': base64.match(/.{1,8}/g)!.join('\n'),
  'base64 of UTF-16LE': Buffer.from(KEY, 'utf16le').toString('base64'),
  '%2573': codes.map((h) => `%25${h}`).join(''),
  '%uHHHH': codes.map((h) => `%u00${h}`).join(''),
  '\\xHH': codes.map((h) => `\\x${h}`).join(''),
  '\\u{HH}': codes.map((h) => `\\u{${h}}`).join(''),
};
/** Ordinary text that only looks like those forms: shown as it is. */
const BENIGN = 'ams\u2011Key\u2011other, привет, 41:42:43, QUJD\nREVG, %2541, \\x41';

/** Every text a reader of the run sees. */
function sinks(run: ActionRun, dir: string): Record<string, string> {
  return {
    log: run.stdout
      .split('\n')
      .filter((line) => !line.startsWith('::add-mask::'))
      .join('\n'),
    stderr: run.stderr,
    summary: run.summary,
    outputs: JSON.stringify(run.outputs),
    report: run.outputs['checks-report'] ?? '',
    junit: readFileSync(join(dir, 'checks.xml'), 'utf8'),
    'checks-output': readFileSync(join(dir, 'results.json'), 'utf8'),
  };
}

/** The forms (any 12 characters of one in a row) a sink shows. */
function leaks(text: string, forms: string[]): string[] {
  const found: string[] = [];
  for (const form of [KEY, ...forms]) {
    const plain = form.replace(/\n/g, '');
    for (let i = 0; i + 12 <= plain.length; i++) {
      if (text.includes(plain.slice(i, i + 12))) {
        found.push(form);
        break;
      }
    }
  }
  return found;
}

const checksFile = (names: string[]): string =>
  `checks:\n${names.map((_name, i) => `  - {name: "form ${i}", send: "form ${i}", assert: [{type: contains, value: never said}]}`).join('\n')}\n`;

describe('the redactor reads what a reader decodes, in linear time (issue 39)', () => {
  it('a reply holding the key in every decodable form never shows it at any sink; look-alike text stays', async () => {
    const s = await start();
    const replies = [...Object.values(FORMS), BENIGN];
    s.addClaw('c1', {
      chat: { mode: 'sync', respond: (m) => `reply: ${replies[Number(/\d+/.exec(m)?.[0])] ?? ''} end` },
    });
    const dir = workspaceWith({ 'checks.yml': checksFile(replies) });
    const run = await runAction(
      inputsFor(s, {
        'api-key': KEY,
        command: 'check',
        checks: 'checks.yml',
        'checks-junit': 'checks.xml',
        'checks-output': 'results.json',
      }),
      { env: { GITHUB_WORKSPACE: dir } },
    );
    expect(run.exitCode).toBe(1);
    const report = JSON.parse(run.outputs['checks-report']) as { failure: string }[];
    expect(report).toHaveLength(replies.length);
    // Each form's reply was shown, redacted; the benign one as it is.
    for (const entry of report.slice(0, -1)) expect(entry.failure).toContain('reply: *** end');
    expect(report.at(-1)!.failure).toContain(JSON.stringify(`reply: ${BENIGN} end`).slice(1, -1));
    for (const [sink, text] of Object.entries(sinks(run, dir)))
      expect({ sink, leaks: leaks(text, Object.values(FORMS)) }).toEqual({ sink, leaks: [] });
  });

  it('a reply of one zero-width space, then the key and a space 20,000 times (0.48 MB), is redacted within timeout: 10s', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: `\u200b${`${KEY} `.repeat(20_000)}` } });
    const dir = workspaceWith({ 'checks.yml': checksFile(['echo']) });
    const run = await runAction(
      inputsFor(s, {
        'api-key': KEY,
        command: 'check',
        checks: 'checks.yml',
        timeout: '10s',
        'checks-junit': 'checks.xml',
        'checks-output': 'results.json',
      }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 90_000 },
    );
    // The check's own failure (the reply lacks the text), not the deadline's.
    expect(run.exitCode).toBe(1);
    const [entry] = JSON.parse(run.outputs['checks-report']) as { failure: string }[];
    expect(entry.failure).toMatch(/does not contain|never said/);
    expect(entry.failure).toContain('***');
    expect(entry.failure).not.toMatch(/timed? ?out|deadline/i);
    for (const [sink, text] of Object.entries(sinks(run, dir)))
      expect({ sink, leaks: leaks(text, []) }).toEqual({ sink, leaks: [] });
  }, 120_000);

  it("a judge answering 250,000 `{` to g-eval's evaluation ends the check as an error within timeout: 10s", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'I am well, thank you.' } });
    judge = await startJudge({
      answer: (r) =>
        judgeText(r).includes('generate 3-4 concise evaluation steps')
          ? { content: '{"steps":["Read the reply.","Judge it."]}' }
          : { content: '{'.repeat(250_000) },
    });
    const url = judge.url;
    const dir = workspaceWith({
      'promptfooconfig.yaml': `prompts: ['Hello! How are you?']
providers: [openai:gpt-4.1-mini]
tests:
  - assert:
      - type: g-eval
        value: Coherence - the reply is well-structured.
`,
    });
    const run = await runAction(
      inputsFor(s, { 'api-key': KEY, command: 'check', checks: 'promptfooconfig.yaml', timeout: '10s' }),
      {
        env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: 'sk-judge-0123456789', OPENAI_BASE_URL: url },
        killAfterMs: 90_000,
      },
    );
    expect(run.exitCode).toBe(1);
    const [entry] = JSON.parse(run.outputs['checks-report']) as { failure: string }[];
    expect(entry.failure).toContain('its evaluation is not {"score": 0 to 10');
    expect(entry.failure).not.toMatch(/timed? ?out|deadline/i);
  }, 120_000);
});
