/**
 * Full-jitter exponential backoff: a random wait in [0, min(cap, base·2^(attempt-1))], so clients
 * that failed together do not retry together.
 */
export function fullJitterBackoff(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return random() * ceiling;
}
