// compare's `baseline-file`: a checks output saved earlier (`checks-output`, promptfoo's format),
// whose results carry each check's samples (metadata.clawDeploy.samples, written when the run
// compared). Read as untrusted: every field checked by what is allowed, each mistake one error
// naming the file, the line and what was expected. Read in linear time: the JSON a run saves is
// parsed as JSON (the YAML parser, with line numbers, only for a file that is not JSON, and to
// name the line of a mistake in a file within its bound), and only the checks the suite has are read: the others are
// counted and named, never compared.
import type { Node } from 'yaml';
import { FileError, YamlFile, yamlShapeProblem } from '../config/yaml-file.js';
import { clip, flattenControls, sentence } from '../shared/format.js';
import { ACTION_WORDS, type Words } from '../shared/words.js';
import { MAX_CHECKS, MAX_REPEAT } from './check.js';
import type { AttemptSample, CheckEntry } from './result.js';

const OUTCOMES = new Set(['pass', 'fail', 'unjudged']);
/** The most of a saved reply read back (the file keeps up to 20,000 characters). */
const SAVED_REPLY_CHARS = 2000;
const HASH = /^[0-9a-f]{8,64}$/;
/** A judge's model name as an endpoint may spell it: printable, short. */
const MODEL = /^[\w.:/@+-]{0,200}$/;

/** The saved run's entries for its one Claw, each with its samples; the checks it holds that were not read. */
export interface SavedRun {
  clawId: string;
  entries: CheckEntry[];
  /** Checks of that Claw in the file that the suite does not have: counted and named, never compared. */
  others: { count: number; names: string[] };
}

/**
 * A file of several Claws (a compare run's own output) gives `prefer`'s results: the candidate,
 * earlier. `wanted` (the suite's check names) are the checks read; undefined reads every one.
 */
export async function readBaselineFile(
  path: string,
  workspace: string,
  prefer: string,
  words: Words = ACTION_WORDS,
  wanted?: ReadonlySet<string>,
): Promise<SavedRun> {
  return parseBaselineFile(path, await YamlFile.readText(path, workspace, 'baseline file', words), prefer, wanted);
}

export function parseBaselineFile(name: string, text: string, prefer: string, wanted?: ReadonlySet<string>): SavedRun {
  let root: unknown;
  let yaml: YamlFile | undefined;
  // The YAML document, with its lines: parsed only when the text is not JSON, or to name a mistake's
  // line; the one parse is bounded (yamlShapeProblem), so a text past it is refused with its line.
  const file = () => (yaml ??= YamlFile.parse(name, text, 'baseline file'));
  let json = true;
  try {
    root = JSON.parse(text);
  } catch {
    json = false;
    try {
      root = file().doc.toJS({ maxAliasCount: 0 });
    } catch (err) {
      if (yaml) file().fail(null, 'the file holds YAML aliases: expected the JSON a checks output is');
      throw err;
    }
  }
  const at = (path: (string | number)[]): Node | null => (file().doc.getIn(path, true) as Node | undefined) ?? null;
  const expect: Expect = (ok, path, expected) => {
    if (ok) return;
    const where = `${path.join('.') || 'the file'}: expected ${expected}`;
    // JSON too large for the YAML parser's bound is named by its path alone: no document is built for a line.
    if (json && !yaml && yamlShapeProblem(text)) throw new FileError(sentence(`${name}: ${where}`));
    file().fail(at(path), where);
  };
  return savedRun(root, prefer, expect, wanted);
}

export type Expect = (ok: boolean, path: (string | number)[], expected: string) => void;

function savedRun(root: unknown, prefer: string, expect: Expect, wanted?: ReadonlySet<string>): SavedRun {
  const results = (root as { results?: { results?: unknown } } | null)?.results?.results;
  expect(Array.isArray(results), ['results', 'results'], 'a checks output (checks-output) with its results');
  const list = results as unknown[];
  expect(list.length <= MAX_CHECKS * 10, ['results', 'results'], `at most ${MAX_CHECKS * 10} results`);
  // First each result's Claw and check (a run saves one result per check and Claw: a second would
  // pool into the first and claim more attempts than any run makes); then the samples of the ones read.
  const found: { i: number; check: string; clawId: string }[] = [];
  const claws = new Set<string>();
  const named = new Set<string>();
  for (const [i, item] of list.entries()) {
    const base = ['results', 'results', i, 'metadata', 'clawDeploy'];
    const saved = (item as { metadata?: { clawDeploy?: Record<string, unknown> } } | null)?.metadata?.clawDeploy;
    expect(isRecord(saved), base, "this action's record of the check (metadata.clawDeploy)");
    const { check, clawId } = saved as Record<string, unknown>;
    expect(typeof check === 'string' && check.length > 0 && check.length <= 500, [...base, 'check'], 'a check name');
    expect(typeof clawId === 'string' && /^[\w.:-]{1,200}$/.test(clawId), [...base, 'clawId'], 'a Claw id');
    const key = `${clawId as string}\u0000${check as string}`;
    expect(!named.has(key), [...base, 'check'], 'each check named once for its Claw, as a run saves it');
    named.add(key);
    claws.add(clawId as string);
    found.push({ i, check: check as string, clawId: clawId as string });
  }
  const several = claws.size > 1 && claws.has(prefer);
  expect(
    several || claws.size === 1,
    ['results', 'results'],
    `the results of one Claw, or of the candidate ${prefer} among others (it holds ${[...claws].slice(0, 5).join(', ')})`,
  );
  const clawId = several ? prefer : [...claws][0];
  const entries: CheckEntry[] = [];
  const others: string[] = [];
  for (const { i, check } of found.filter((f) => f.clawId === clawId)) {
    if (wanted && !wanted.has(check)) {
      others.push(check);
      continue;
    }
    const base = ['results', 'results', i, 'metadata', 'clawDeploy'];
    const samples = (list[i] as { metadata: { clawDeploy: Record<string, unknown> } }).metadata.clawDeploy.samples;
    expect(
      Array.isArray(samples) && samples.length > 0 && samples.length <= MAX_REPEAT,
      [...base, 'samples'],
      `the check's attempts (1 to ${MAX_REPEAT}), saved by a run that kept every attempt (check or compare with checks-output, or deploy with baseline before)`,
    );
    const item = list[i] as { response?: { output?: unknown }; metadata: { clawDeploy: Record<string, unknown> } };
    const read = (samples as unknown[]).map((s, j) => savedSample(s, [...base, 'samples', j], expect));
    entries.push(savedEntry(check, clawId, read, item.response?.output, item.metadata.clawDeploy.failedAttempt));
  }
  return {
    clawId,
    entries,
    others: { count: others.length, names: others.slice(0, 5).map((n) => clip(flattenControls(n), 60)) },
  };
}

/**
 * One saved check as an entry (a checks output's, or a saved gate run's); the reply the file shows
 * (the failing attempt's, for a check that failed) is kept for the answers side by side: optional,
 * cut, never more than one a check.
 */
export function savedEntry(
  check: string,
  clawId: string,
  read: AttemptSample[],
  output?: unknown,
  failed?: unknown,
): CheckEntry {
  const passes = read.filter((s) => s.outcome === 'pass').length;
  const reply = typeof output === 'string' ? clip(output, SAVED_REPLY_CHARS) : undefined;
  const failedAttempt =
    passes < read.length &&
    typeof failed === 'number' &&
    Number.isInteger(failed) &&
    failed >= 1 &&
    failed <= read.length
      ? { attempt: failed, ...(reply === undefined ? {} : { reply }) }
      : undefined;
  return {
    check,
    clawId,
    passed: passes === read.length,
    passes,
    attempts: read.length,
    repeat: read.length,
    minPass: read.length,
    failures: read.filter((s) => s.outcome === 'fail').length,
    errors: read.filter((s) => s.outcome === 'unjudged').length,
    replies: reply === undefined ? [] : [reply],
    ...(failedAttempt ? { failedAttempt } : {}),
    samples: read,
  };
}

/** One saved attempt, each field checked by what is allowed (also read by saved-run.ts). */
export function savedSample(value: unknown, path: (string | number)[], expect: Expect): AttemptSample {
  expect(isRecord(value), path, 'an attempt: {outcome, latencyMs, latencyLowMs, score, judge}');
  const { outcome, latencyMs, latencyLowMs, score, judge } = value as Record<string, unknown>;
  expect(typeof outcome === 'string' && OUTCOMES.has(outcome), [...path, 'outcome'], 'pass, fail or unjudged');
  const finite = (n: unknown, max: number) => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= max;
  expect(latencyMs === undefined || finite(latencyMs, 86_400_000), [...path, 'latencyMs'], 'milliseconds, or nothing');
  // How the time was measured: absent, exact; present, the reply came between the two (a task's, polled).
  expect(
    latencyLowMs === undefined || (latencyMs !== undefined && finite(latencyLowMs, latencyMs as number)),
    [...path, 'latencyLowMs'],
    'milliseconds no later than latencyMs, or nothing',
  );
  expect(score === undefined || finite(score, 1), [...path, 'score'], 'a score from 0 to 1, or nothing');
  let who: AttemptSample['judge'];
  if (judge !== undefined) {
    const j = judge as Record<string, unknown>;
    expect(
      isRecord(judge) && typeof j.promptHash === 'string' && HASH.test(j.promptHash),
      [...path, 'judge'],
      'the judge: {model, promptHash}',
    );
    expect(
      j.model === undefined || (typeof j.model === 'string' && MODEL.test(j.model)),
      [...path, 'judge', 'model'],
      "the judge's model name",
    );
    who = { promptHash: j.promptHash as string, ...(typeof j.model === 'string' ? { model: j.model } : {}) };
  }
  return {
    outcome: outcome as AttemptSample['outcome'],
    ...(latencyMs === undefined ? {} : { latencyMs: latencyMs as number }),
    ...(latencyLowMs === undefined ? {} : { latencyLowMs: latencyLowMs as number }),
    ...(score === undefined ? {} : { score: score as number }),
    ...(who ? { judge: who } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
