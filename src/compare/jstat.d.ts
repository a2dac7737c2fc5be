// The part of jStat (which ships no types) the comparison reads: the normal and hypergeometric laws, and the log-gamma function.
declare module 'jstat' {
  interface Law {
    cdf(x: number, ...parameters: number[]): number;
    pdf(x: number, ...parameters: number[]): number;
  }
  const jStat: {
    normal: Law & { inv(p: number, mean: number, std: number): number };
    hypgeom: Law;
    gammaln(x: number): number;
  };
  export default jStat;
}
