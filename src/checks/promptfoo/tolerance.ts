// A tolerance in a promptfoo config: `metadata: { tolerance: { passRate: 5%, latency: 10% } }` on
// a test (that check's) or on `defaultTest` (the suite's, as `defaults: tolerance:` in a checks
// file). promptfoo takes any metadata, so the config still runs in promptfoo; here the key is read
// strictly, each mistake one error naming the file and the line.
import type { Tolerances } from '../../compare/index.js';
import { nearest } from '../../shared/nearest.js';
import { TOLERANCE_MEANING, toleranceShare } from '../tolerance.js';
import { type Obj, type Places, isObj, show } from './located.js';

const KEYS = Object.keys(TOLERANCE_MEANING) as (keyof Tolerances)[];
const LISTED = KEYS.map((k) => `'${k}'`).join(', ');

/** The tolerances in `metadata.tolerance` of a test (or of defaultTest); undefined when it sets none. */
export function readMetadataTolerance(test: Obj, places: Places): Tolerances | undefined {
  const metadata = test.metadata;
  if (!isObj(metadata) || metadata.tolerance === undefined) return undefined;
  const written = metadata.tolerance;
  // A test merged from a scenario's parts is placed at the test, should its metadata not be.
  const at = places.where(test);
  if (!isObj(written))
    return places.fail(
      metadata,
      'tolerance',
      `'metadata.tolerance' is ${show(written)}: expected a mapping of ${LISTED} to shares, such as {passRate: 5%}`,
      at,
    );
  const keys = Object.keys(written);
  if (keys.length === 0)
    places.fail(metadata, 'tolerance', `'metadata.tolerance' is empty: expected at least one of ${LISTED}`, at);
  const tolerance: Tolerances = {};
  for (const key of keys) {
    if (!(KEYS as string[]).includes(key)) {
      const near = nearest(key, KEYS);
      places.fail(
        written,
        key,
        `unknown key '${key}' in 'metadata.tolerance': ${near ? `did you mean '${near}'? ` : ''}expected ${LISTED}`,
        at,
      );
    }
    const field = key as keyof Tolerances;
    const figure = toleranceShare(written[key]);
    if (figure === undefined)
      places.fail(
        written,
        key,
        `'metadata.tolerance.${key}' is ${show(written[key])}: expected ${TOLERANCE_MEANING[field]} (from 0 to 100%)`,
        at,
      );
    tolerance[field] = figure;
  }
  return tolerance;
}
