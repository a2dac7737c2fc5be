// "Did you mean": the real name nearest to a mistyped one, for flags, commands and the names a
// checks file uses (assertion types, keys).
import { distance } from 'fastest-levenshtein';

/** The real name nearest to a mistyped one: a name it begins, else one a couple of edits away. */
export function nearest(typed: string, names: readonly string[]): string | undefined {
  const prefixed = names.filter((n) => n.startsWith(typed));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of names) {
    const d = distance(typed, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return bestDistance <= Math.max(3, Math.floor(typed.length / 3)) ? best : undefined;
}
