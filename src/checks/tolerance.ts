// A check's `tolerance` (or the file's, under `defaults`): how far a metric may move before a
// comparison counts it, so a check can say "no worse than before, give or take this". Read from
// the checks file with its line in every error.
import { isScalar } from 'yaml';
import type { Entry, YamlFile } from '../config/yaml-file.js';
import type { Tolerances } from '../compare/index.js';

export const TOLERANCE_KEYS = ['pass-rate', 'latency', 'unjudged', 'score'] as const;

/** What each tolerance is, in words for errors, by the engine's name for it. */
export const TOLERANCE_MEANING: Record<keyof Tolerances, string> = {
  passRate: 'points of pass rate, such as 5% or 0.05',
  latency: "a share of the baseline's latency, such as 10% or 0.1",
  unjudged: 'points of the unjudged share, such as 5% or 0.05',
  score: "points of the judge's 0-1 score, such as 0.1 or 10%",
};

const FIELD: Record<(typeof TOLERANCE_KEYS)[number], keyof Tolerances> = {
  'pass-rate': 'passRate',
  latency: 'latency',
  unjudged: 'unjudged',
  score: 'score',
};

/** `tolerance: { pass-rate: 5%, latency: 20%, unjudged: 5%, score: 0.1 }`: each a share from 0 to 1, or a percentage. */
export function readTolerance(file: YamlFile, entry: Entry): Tolerances {
  const tolerance: Tolerances = {};
  const items = file.entries(entry.value, "'tolerance'", TOLERANCE_KEYS);
  if (items.length === 0) file.failValue(entry, `at least one of ${TOLERANCE_KEYS.join(', ')}`);
  for (const item of items) {
    const field = FIELD[item.key as (typeof TOLERANCE_KEYS)[number]];
    const figure = toleranceShare(isScalar(item.value) ? item.value.value : undefined);
    if (figure === undefined) file.failValue(item, `${TOLERANCE_MEANING[field]} (from 0 to 100%)`);
    tolerance[field] = figure;
  }
  return tolerance;
}

/** A share from 0 to 1 written as a number or a percentage (`5%`, `12.5%`); undefined for anything else. */
export function toleranceShare(value: unknown): number | undefined {
  const percent = typeof value === 'string' ? /^(\d{1,3}(?:\.\d{1,4})?)%$/.exec(value.trim()) : null;
  const figure = percent ? Number(percent[1]) / 100 : value;
  if (typeof figure !== 'number' || !Number.isFinite(figure) || figure < 0 || figure > 1) return undefined;
  return figure;
}
