// compare's `baseline-file`: a checks output saved earlier (`checks-output`, promptfoo's format),
// whose results carry each check's samples (metadata.clawDeploy.samples, written when the run
// compared). Read as untrusted: parsed with line numbers (JSON is YAML), every field checked by
// what is allowed, each mistake one error naming the file, the line and what was expected.
import type { Node } from 'yaml';
import { YamlFile } from '../config/yaml-file.js';
import { ACTION_WORDS, type Words } from '../words.js';
import { MAX_CHECKS, MAX_REPEAT } from './check.js';
import type { AttemptSample, CheckEntry } from './result.js';

const OUTCOMES = new Set(['pass', 'fail', 'unjudged']);
const HASH = /^[0-9a-f]{8,64}$/;
/** A judge's model name as an endpoint may spell it: printable, short. */
const MODEL = /^[\w.:/@+-]{0,200}$/;

/** The saved run's entries for its one Claw, each with its samples. */
export interface SavedRun {
  clawId: string;
  entries: CheckEntry[];
}

/** A file of several Claws (a compare run's own output) gives `prefer`'s results: the candidate, earlier. */
export async function readBaselineFile(
  path: string,
  workspace: string,
  prefer: string,
  words: Words = ACTION_WORDS,
): Promise<SavedRun> {
  return savedRun(await YamlFile.read(path, workspace, 'baseline file', words), prefer);
}

export function parseBaselineFile(name: string, text: string, prefer: string): SavedRun {
  return savedRun(YamlFile.parse(name, text, 'baseline file'), prefer);
}

function savedRun(file: YamlFile, prefer: string): SavedRun {
  const at = (path: (string | number)[]): Node | null => (file.doc.getIn(path, true) as Node | undefined) ?? null;
  const expect = (ok: boolean, path: (string | number)[], expected: string): void => {
    if (!ok) file.fail(at(path), `${path.join('.') || 'the file'}: expected ${expected}`);
  };
  let root: unknown;
  try {
    root = file.doc.toJS({ maxAliasCount: 0 });
  } catch {
    file.fail(null, 'the file holds YAML aliases: expected the JSON a checks output is');
  }
  const results = (root as { results?: { results?: unknown } } | null)?.results?.results;
  expect(Array.isArray(results), ['results', 'results'], 'a checks output (checks-output) with its results');
  const list = results as unknown[];
  expect(list.length <= MAX_CHECKS * 10, ['results', 'results'], `at most ${MAX_CHECKS * 10} results`);
  const entries: CheckEntry[] = [];
  const claws = new Set<string>();
  // A run saves one result per check and Claw: a second would pool into the first and claim more
  // attempts than any run makes (an interval narrower than the data).
  const named = new Set<string>();
  for (const [i, item] of list.entries()) {
    const base = ['results', 'results', i, 'metadata', 'clawDeploy'];
    const saved = (item as { metadata?: { clawDeploy?: Record<string, unknown> } } | null)?.metadata?.clawDeploy;
    expect(isRecord(saved), base, "this action's record of the check (metadata.clawDeploy)");
    const { check, clawId, samples } = saved as Record<string, unknown>;
    expect(typeof check === 'string' && check.length > 0 && check.length <= 500, [...base, 'check'], 'a check name');
    expect(typeof clawId === 'string' && /^[\w.:-]{1,200}$/.test(clawId), [...base, 'clawId'], 'a Claw id');
    const key = `${clawId as string}\u0000${check as string}`;
    expect(!named.has(key), [...base, 'check'], 'each check named once for its Claw, as a run saves it');
    named.add(key);
    expect(
      Array.isArray(samples) && samples.length > 0 && samples.length <= MAX_REPEAT,
      [...base, 'samples'],
      `the check's attempts (1 to ${MAX_REPEAT}), saved by a run that compared (compare, or deploy with baseline before)`,
    );
    const read = (samples as unknown[]).map((s, j) => sample(s, [...base, 'samples', j], expect));
    claws.add(clawId as string);
    const passes = read.filter((s) => s.outcome === 'pass').length;
    entries.push({
      check: check as string,
      clawId: clawId as string,
      passed: passes === read.length,
      passes,
      attempts: read.length,
      repeat: read.length,
      minPass: read.length,
      failures: read.filter((s) => s.outcome === 'fail').length,
      errors: read.filter((s) => s.outcome === 'unjudged').length,
      replies: [],
      samples: read,
    });
  }
  if (claws.size > 1 && claws.has(prefer))
    return { clawId: prefer, entries: entries.filter((e) => e.clawId === prefer) };
  expect(
    claws.size === 1,
    ['results', 'results'],
    `the results of one Claw, or of the candidate ${prefer} among others (it holds ${[...claws].slice(0, 5).join(', ')})`,
  );
  return { clawId: [...claws][0], entries };
}

function sample(
  value: unknown,
  path: (string | number)[],
  expect: (ok: boolean, path: (string | number)[], expected: string) => void,
): AttemptSample {
  expect(isRecord(value), path, 'an attempt: {outcome, latencyMs, score, judge}');
  const { outcome, latencyMs, latencyLowMs, score, judge } = value as Record<string, unknown>;
  expect(typeof outcome === 'string' && OUTCOMES.has(outcome), [...path, 'outcome'], 'pass, fail or unjudged');
  const finite = (n: unknown, max: number) => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= max;
  expect(latencyMs === undefined || finite(latencyMs, 86_400_000), [...path, 'latencyMs'], 'milliseconds, or nothing');
  expect(
    latencyLowMs === undefined ||
      (finite(latencyLowMs, 86_400_000) && typeof latencyMs === 'number' && (latencyLowMs as number) <= latencyMs),
    [...path, 'latencyLowMs'],
    'milliseconds no more than latencyMs (a task reply came between the two), or nothing',
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
