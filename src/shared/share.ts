// A part of a fleet: a number of Claws or a percentage of them (wave sizes, the failure budget).

/** A number of Claws, or a percentage of them. */
export type Share = { count: number } | { percent: number };

/** How many of `total` a share is; a percentage rounds up (a wave) or down (a failure budget). */
export function shareOf(share: Share, total: number, round: 'up' | 'down' = 'up'): number {
  if ('count' in share) return Math.min(share.count, total);
  const exact = (share.percent / 100) * total;
  return Math.min(total, round === 'up' ? Math.ceil(exact) : Math.floor(exact));
}
