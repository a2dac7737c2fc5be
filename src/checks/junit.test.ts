// The JUnit file stays well-formed XML whatever the replies hold; parsed back with a strict parser.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { checkEntry } from '../../test/support/check-entry.ts';
import type { CheckEntry, ChecksResult } from './result.js';
import { toJUnit, writeJUnit } from './junit.js';

interface Element {
  name: string;
  attributes: Record<string, string>;
  text: string;
  children: Element[];
}

/** A strict XML 1.0 parse: throws on anything not well formed (forbidden characters included). */
function parseXml(xml: string): Element {
  const parser = new SaxesParser({ xmlns: false });
  const root: Element = { name: '#document', attributes: {}, text: '', children: [] };
  const stack = [root];
  parser.on('error', (err) => {
    throw err;
  });
  parser.on('opentag', (tag) => {
    const element: Element = {
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      text: '',
      children: [],
    };
    stack.at(-1)!.children.push(element);
    stack.push(element);
  });
  parser.on('text', (text) => (stack.at(-1)!.text += text));
  parser.on('closetag', () => void stack.pop());
  parser.write(xml).close();
  return root.children[0];
}

const HOSTILE =
  'ends a CDATA ]]> opens <testcase name="x"> & &amp; "quotes" \u0000\u0001\u0008\u000b\u001b[31m lone \ud800 surrogate \uffff bell\u0007 tab\tnewline\n\r done';

const entry = (fields: Partial<CheckEntry>): CheckEntry => checkEntry({ check: 'greets', latencyMs: 1200, ...fields });

const RESULT: ChecksResult = {
  passed: false,
  entries: [
    entry({}),
    entry({
      check: `refund ${HOSTILE}`,
      passed: false,
      passes: 0,
      attempts: 2,
      repeat: 3,
      minPass: 2,
      failures: 2,
      failure: `icontains "hello" did not hold; reply: ${JSON.stringify(HOSTILE)}`,
    }),
    entry({
      clawId: 'c2',
      check: 'json',
      passed: false,
      passes: 0,
      failures: 0,
      errors: 1,
      failure: `error: task t1 ended ${HOSTILE}`,
    }),
  ],
};

describe('toJUnit', () => {
  it('is checked by a parser strict enough to refuse what XML 1.0 forbids', () => {
    expect(() => parseXml('<a>\u0001</a>')).toThrow();
    expect(() => parseXml('<a b="<"/>')).toThrow();
    expect(() => parseXml('<a>]]></a>')).toThrow();
  });

  it('is well formed whatever the replies hold, and reads back as written', () => {
    const xml = toJUnit(RESULT, '.github/claw-checks.yml');
    const root = parseXml(xml);
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '3', failures: '1', errors: '1' });
    const [c1, c2] = root.children;
    expect([c1.name, c1.attributes.name, c1.attributes.tests, c1.attributes.failures]).toEqual([
      'testsuite',
      'Claw c1',
      '2',
      '1',
    ]);
    expect([c2.attributes.name, c2.attributes.errors]).toEqual(['Claw c2', '1']);
    const [passed, failed] = c1.children;
    expect(passed).toMatchObject({ name: 'testcase', attributes: { name: 'greets', time: '1.200' }, children: [] });
    // A failed assertion is a <failure>; the hostile text comes back as text, forbidden characters replaced.
    const failure = failed.children[0];
    expect(failure.name).toBe('failure');
    expect(failed.attributes.name).toContain('ends a CDATA ]]> opens <testcase name="x"> & &amp; "quotes"');
    expect(failure.attributes.message).toContain('\ufffd');
    expect(failure.text).toContain('0 of 2 attempts passed; 2 of 3 needed');
    // eslint-disable-next-line no-control-regex
    expect(failure.text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\uffff]/);
    // A check that only errored is an <error>.
    expect(c2.children[0].children[0].name).toBe('error');
  });

  it('writes the file where asked, creating missing folders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'claw-junit-'));
    await writeJUnit('reports/deep/claw-checks.xml', dir, RESULT, 'checks.yml');
    expect(parseXml(readFileSync(join(dir, 'reports/deep/claw-checks.xml'), 'utf8')).name).toBe('testsuites');
  });
});
