// Check results as JUnit XML, the format test reporters on GitHub read: one testsuite per Claw,
// one testcase per check. A check that did not pass is a <failure> when an assertion failed, else
// an <error>. Replies are untrusted: every text is escaped, and characters XML 1.0 forbids
// (controls, lone surrogates, U+FFFE/U+FFFF) are replaced, so the file stays well formed.
import { writeOutputFile } from '../config/output-file.js';
import { counted } from '../shared/format.js';
import { escapeXml } from '../shared/markup.js';
import { type CheckEntry, type ChecksResult, attemptLabel, failingReply, failureText } from './result.js';

/** The judge's work on a check, as JUnit properties. */
function judgeProperties(e: CheckEntry): string[] {
  if (!e.judge) return [];
  const property = (name: string, value: string | number): string =>
    `        <property name="${name}" value="${escapeXml(String(value))}"/>`;
  return [
    '      <properties>',
    property('judge.calls', e.judge.calls),
    property('judge.cache-hits', e.judge.cacheHits),
    property('judge.tokens', e.judge.tokens),
    ...(e.judge.model ? [property('judge.model', e.judge.model)] : []),
    ...(e.judge.fingerprint ? [property('judge.system-fingerprint', e.judge.fingerprint)] : []),
    '      </properties>',
  ];
}

function testcase(e: CheckEntry, suite: string): string {
  const time = ((e.latencyMs ?? 0) / 1000).toFixed(3);
  const open = `    <testcase classname="${escapeXml(suite)}" name="${escapeXml(e.check)}" time="${time}"`;
  const properties = judgeProperties(e);
  if (e.passed) return properties.length ? [`${open}>`, ...properties, '    </testcase>'].join('\n') : `${open}/>`;
  const tag = e.failures > 0 ? 'failure' : 'error';
  const summary = `${e.passes} of ${counted(e.attempts, 'attempt')} passed; ${e.minPass} of ${e.repeat} needed`;
  const reply = failingReply(e);
  const label = attemptLabel(e);
  const replied = reply === undefined ? '' : `\nreply${label ? ` of ${label}` : ''}:\n${reply}`;
  const detail = `${summary}\n${failureText(e)}${replied}`;
  return [
    `${open}>`,
    ...properties,
    `      <${tag} message="${escapeXml(failureText(e) || summary)}" type="${tag === 'failure' ? 'AssertionFailed' : 'CheckError'}">${escapeXml(detail)}</${tag}>`,
    '    </testcase>',
  ].join('\n');
}

export function toJUnit(result: ChecksResult, checksFile: string): string {
  const claws = [...new Set(result.entries.map((e) => e.clawId))];
  const suites = claws.map((clawId) => {
    const entries = result.entries.filter((e) => e.clawId === clawId);
    const failures = entries.filter((e) => !e.passed && e.failures > 0).length;
    const errors = entries.filter((e) => !e.passed && e.failures === 0).length;
    const time = (entries.reduce((sum, e) => sum + (e.latencyMs ?? 0), 0) / 1000).toFixed(3);
    const name = `Claw ${clawId}`;
    return [
      `  <testsuite name="${escapeXml(name)}" tests="${entries.length}" failures="${failures}" errors="${errors}" time="${time}">`,
      ...entries.map((e) => testcase(e, name)),
      '  </testsuite>',
    ].join('\n');
  });
  const failures = result.entries.filter((e) => !e.passed && e.failures > 0).length;
  const errors = result.entries.filter((e) => !e.passed && e.failures === 0).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(`Claw checks (${checksFile})`)}" tests="${result.entries.length}" failures="${failures}" errors="${errors}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes the JUnit file at `path` (relative to `workspace`), creating missing folders. */
export async function writeJUnit(
  path: string,
  workspace: string,
  result: ChecksResult,
  checksFile: string,
  redact: (text: string) => string = (text) => text,
): Promise<string> {
  return writeOutputFile(path, workspace, redact(toJUnit(result, checksFile)));
}
