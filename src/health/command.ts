// The health command, as the run's table calls it: each Claw's verdict, its outputs and summary.
import type { Command } from '../command.js';
import { healthOutputs, healthSummary } from '../report/health-report.js';
import { checkHealth } from './health.js';

export const health: Command = async ({ settings, deps, policy }) => {
  const result = await checkHealth(deps, {
    targets: settings.targets,
    // With a checks file the probe is one of the checks (see withProbe).
    probeMessage: deps.checks ? '' : settings.probeMessage,
    checks: deps.checks,
    probeExpect: settings.probeExpect,
    pollIntervalMs: settings.pollIntervalMs,
    classify: policy.classify,
  });
  const { outputs, notes } = healthOutputs(result);
  return {
    ok: result.healthy,
    message: result.message,
    outputs,
    summary: healthSummary(result),
    notes,
    failStep: settings.failOnUnhealthy,
    checks: result.checks,
  };
};
