// A saved run (checks-output) as the compare command reads it: `checks` checks named q1…, each
// `repeat` attempts, every one passing with a reply time near 800 ms. For the tests and the bench.
export function savedRun(checks: number, repeat: number, clawId = 'prod'): string {
  const results = Array.from({ length: checks }, (_, i) => ({
    metadata: {
      clawDeploy: {
        check: `q${i + 1}`,
        clawId,
        samples: Array.from({ length: repeat }, (_, j) => ({
          outcome: 'pass',
          latencyMs: 700 + ((i * 31 + j * 17) % 200),
        })),
      },
    },
  }));
  return JSON.stringify({ results: { results } });
}
