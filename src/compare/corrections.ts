// Corrections for comparing many metrics at once: Holm's step-down (the family-wise error rate,
// for the primary metrics after the suite's pass rate) and Benjamini–Hochberg (the false
// discovery rate, for the secondary ones: the judge's scores and each check's pass rate).

/** Which of the p-values Holm's procedure rejects at `level`. */
export function holm(pValues: readonly number[], level: number): boolean[] {
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const rejected = new Array<boolean>(pValues.length).fill(false);
  for (let rank = 0; rank < order.length; rank++) {
    if (order[rank][0] > level / (order.length - rank)) break;
    rejected[order[rank][1]] = true;
  }
  return rejected;
}

/** Which of the p-values Benjamini–Hochberg rejects at false discovery rate `level`. */
export function benjaminiHochberg(pValues: readonly number[], level: number): boolean[] {
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  let largest = -1;
  for (let rank = 0; rank < order.length; rank++)
    if (order[rank][0] <= (level * (rank + 1)) / order.length) largest = rank;
  const rejected = new Array<boolean>(pValues.length).fill(false);
  for (let rank = 0; rank <= largest; rank++) rejected[order[rank][1]] = true;
  return rejected;
}
