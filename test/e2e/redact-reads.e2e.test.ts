// The redactor reads as a reader does, through dist/index.js: a Claw's reply (and an error body)
// holding the key in forms a reader still reads (fullwidth, styled or circled letters, references,
// escapes, invisible characters between the letters, hex, base64 in either alphabet, a
// right-to-left override, cut at an excerpt's edge) never shows it in the log, the summary, the
// outputs, the JUnit file or checks-output. (redact-forms.e2e.test.ts holds the other forms.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, DEMO_KEY } from '../sim/server.ts';
import { checkout, on } from './fork-files.ts';
import { runAction, workspaceWith } from './harness.ts';
import { reader, showsKey, sinksOf } from './key-sinks.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

describe('the redactor, on forms SECURITY.md names that earlier rounds did not try', () => {
  const KEY = 'ams-Key-Qx7Zr9Wv2Lp4ace';
  const keyed = simulatorPerTest({ keys: { [KEY]: ALL_SCOPES } });
  const bytes = Buffer.from(KEY);
  const hex = [...bytes].map((b) => b.toString(16));
  const each = (f: (c: string, i: number) => string): string => [...KEY].map(f).join('');
  const fullwidth = (c: string): string =>
    c >= '!' && c <= '~' ? String.fromCodePoint(c.codePointAt(0)! - 0x21 + 0xff01) : c;
  const b64url = (b: Buffer): string => b.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const FORMS: Record<string, string> = {
    fullwidth: each(fullwidth),
    'circled letters': each((c) => (c >= 'a' && c <= 'z' ? String.fromCodePoint(0x24d0 + c.charCodeAt(0) - 97) : c)),
    'mathematical bold': each((c) =>
      c >= 'A' && c <= 'Z'
        ? String.fromCodePoint(0x1d400 + c.charCodeAt(0) - 65)
        : c >= 'a' && c <= 'z'
          ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97)
          : c >= '0' && c <= '9'
            ? String.fromCodePoint(0x1d7ce + c.charCodeAt(0) - 48)
            : c,
    ),
    'named references for the hyphens': KEY.replace(/-/g, '&hyphen;'),
    'decimal references, no semicolons': each((c) => `&#${c.charCodeAt(0)}`),
    'JSON \\u escapes': each((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    'Markdown backslashes': KEY.replace(/-/g, '\\-'),
    'soft hyphens between letters': [...KEY].join('\u00ad'),
    'tag characters between letters': [...KEY].join('\u{e0020}'),
    'Hangul fillers between letters': [...KEY].join('\u3164'),
    'combining marks on zero-width joiners': [...KEY].join('\u200d\u0301'),
    'variation selectors': [...KEY].join('\ufe0f'),
    'hex with dashes': hex.join('-'),
    '%252573 (three layers)': hex.map((h) => `%2525${h}`).join(''),
    'base64url inside a longer blob': b64url(Buffer.concat([Buffer.from('prefix:'), bytes, Buffer.from(':suffix')])),
    'UTF-16LE base64 wrapped at 16': Buffer.from(KEY, 'utf16le')
      .toString('base64')
      .match(/.{1,16}/g)!
      .join('\r\n'),
    'a right-to-left override': `\u202e${[...KEY].reverse().join('')}\u202c`,
    'mixed letter by letter': each(
      (c, i) => [c, `%${hex[i]}`, `&#x${hex[i]};`, `\\x${hex[i]}`, fullwidth(c), `\\u{${hex[i]}}`][i % 6],
    ),
  };

  it('a reply holding the key in each form never shows it at any sink', async () => {
    const s = await keyed();
    const replies = Object.values(FORMS);
    s.addClaw('c1', {
      chat: { mode: 'sync', respond: (m) => `reply: ${replies[Number(/\d+/.exec(m)?.[0])] ?? ''} end` },
    });
    const checks = `checks:\n${replies.map((_r, i) => `  - {name: "form ${i}", send: "form ${i}", assert: [{type: contains, value: never said}]}`).join('\n')}\n`;
    const dir = workspaceWith({ 'checks.yml': checks });
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
    const report = JSON.parse(run.outputs['checks-report']) as { check: string; failure: string }[];
    const names = Object.keys(FORMS);
    const shown = report
      .map((e, i) => [names[i], e.failure] as const)
      .filter(([, failure]) => !/reply: [\w]*\*\*\*[\w]* end/.test(failure));
    expect(shown).toEqual([]);
    const sinks = [
      run.stdout
        .split('\n')
        .filter((l) => !l.startsWith('::add-mask::'))
        .join('\n'),
      run.summary,
      readFileSync(join(dir, 'checks.xml'), 'utf8'),
      readFileSync(join(dir, 'results.json'), 'utf8'),
    ].join('\n');
    expect(sinks).not.toContain(KEY.slice(4, 16));
  });
});

describe('the redactor reads as a reader does', () => {
  const K = DEMO_KEY;
  const b64 = Buffer.from(K).toString('base64');
  const hidden: Record<string, string> = {
    // Holes this round, fixed: each reached every sink before.
    struck: [...K].map((c) => `${c}\u0336`).join(''),
    underlined: [...K].map((c) => `${c}\u0332`).join(''),
    enclosed: [...K].map((c) => `${c}\u20dd`).join(''),
    fullwidth: [...K].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join(''),
    'math-bold': [...K]
      .map((c) => (/[a-z]/.test(c) ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97) : c))
      .join(''),
    circled: [...K].map((c) => (/[a-z]/.test(c) ? String.fromCodePoint(0x24d0 + c.charCodeAt(0) - 97) : c)).join(''),
    // Drawn backwards by a right-to-left override: shown as the key where the control is kept.
    bidi: `\u202e${[...K].reverse().join('')}\u202c`,
    hex: Buffer.from(K).toString('hex'),
    'hex-upper': Buffer.from(K).toString('hex').toUpperCase(),
    'base64-zwsp': [...b64].join('\u200b'),
    'base64-shy': [...b64].join('\u00ad'),
    // Held: the key cut by an excerpt's edge is never shown in part.
    'cut-80': `${'x'.repeat(75)}${K}`,
    'cut-200': `${'x'.repeat(195)}${K}`,
    'cut-2000': `${'x'.repeat(1995)}${K}`,
    // Held: references and percent-encoding mixed, soft hyphens between.
    mixed: [...K]
      .map((c, i) => (i % 3 === 0 ? `&#${c.charCodeAt(0)};` : i % 3 === 1 ? `%${c.charCodeAt(0).toString(16)}` : c))
      .join('&shy;'),
  };

  it('replies and an error body hiding the key reach no sink: log, summary, outputs, JUnit, checks-output', async () => {
    const s = await start();
    const ids = Object.keys(hidden);
    for (const id of ids) s.addClaw(id, { chat: { mode: 'sync', reply: `here: ${hidden[id]} end` } });
    s.addClaw('errs', { chat: { mode: 'sync', reply: 'fine' } });
    s.fault({
      kind: 'error',
      status: 400,
      method: 'POST',
      path: '/chat/errs/',
      times: 10,
      body: { error: { code: 'bad_request', message: `key ${hidden.struck} and ${hidden.hex} refused` } },
    });
    const dir = checkout({
      'checks.yml': 'checks:\n  - {name: leak, send: key please, assert: [{type: contains, value: never}]}\n',
    });
    const run = await runAction(
      inputsFor(s, {
        command: 'check',
        'claw-id': [...ids, 'errs'].join(','),
        checks: 'checks.yml',
        'checks-junit': 'checks.xml',
        'checks-output': 'out.json',
        timeout: '60s',
      }),
      on(dir, 'push'),
    );
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('The service said: key *** and *** refused');
    const sinks = sinksOf(run, [join(dir, 'checks.xml'), join(dir, 'out.json')]);
    for (const [name, text] of Object.entries(sinks)) {
      expect(showsKey(text), name).toBeUndefined();
      // Not even the key's first half, from a cut excerpt.
      expect(reader(text), name).not.toContain(K.slice(0, 12));
      expect(text, name).not.toContain([...K].reverse().join('').slice(0, 12));
    }
    // What is not the key stays: the reply around it is still reported.
    expect(run.stdout).toContain('here: *** end');
  });
});
