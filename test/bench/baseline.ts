// The baseline we beat: a fixed-interval poller in the manner of actions/deploy-pages. It polls
// at one interval whatever the rate-limit headers say, and counts errors that never reset,
// failing after 10 of them.
export interface BaselineResult {
  ok: boolean;
  requests: number;
  rateLimited: number;
  exitAt: number;
  deploymentId?: string;
}

const SUCCESS = /^(succeeded|live|ready|deployed|success)$/i;
const FAILURE = /^(failed|error|crashed)$/i;

export async function fixedIntervalDeploy(
  baseUrl: string,
  key: string,
  clawId: string,
  intervalMs: number,
  timeoutMs: number,
): Promise<BaselineResult> {
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const result: BaselineResult = { ok: false, requests: 0, rateLimited: 0, exitAt: 0 };
  let errors = 0;
  const started = Date.now();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  // Trigger: retried at the interval on 429 (deploy-pages does not look at headers).
  while (!result.deploymentId) {
    result.requests += 1;
    const res = await fetch(`${baseUrl}/v1/deployments`, { method: 'POST', headers, body: JSON.stringify({ clawId }) });
    if (res.status === 429) {
      result.rateLimited += 1;
      if (++errors >= 10) return { ...result, exitAt: Date.now() };
      await sleep(intervalMs);
      continue;
    }
    result.deploymentId = ((await res.json()) as { id: string }).id;
  }
  while (Date.now() - started < timeoutMs) {
    await sleep(intervalMs);
    result.requests += 1;
    const res = await fetch(`${baseUrl}/v1/deployments/${result.deploymentId}`, { headers });
    if (res.status !== 200) {
      if (res.status === 429) result.rateLimited += 1;
      await res.arrayBuffer();
      if (++errors >= 10) break;
      continue;
    }
    const status = String(((await res.json()) as { status: string }).status);
    if (SUCCESS.test(status) || FAILURE.test(status)) {
      result.ok = SUCCESS.test(status);
      break;
    }
  }
  return { ...result, exitAt: Date.now() };
}
