// The health command, as the run's table calls it: each Claw's verdict, its outputs and summary;
// with `history` (or incidents or a status page, which turn it on), the run is also kept on the
// history branch, incidents are opened and closed as issues, and the page is rendered.
import { ApiError } from '../api/errors.js';
import type { Command, CommandDefinition, ResultView } from '../contract/command.js';
import { inputsReadBy } from '../contract/inputs.js';
import type { SettingsOf } from '../contract/settings.js';
import { errorMessage } from '../shared/errors.js';
import { type IncidentLine, healthOutputs, healthSummary, healthTimeSummary } from '../health/health-report.js';
import { stateSealKey } from '../shared/seal.js';
import { doraJson, doraSummary, doraText } from '../health/dora-report.js';
import { type HealthResult, checkHealth } from '../health/health.js';
import { type OverTimeResult, healthOverTime, serviceOf } from '../health/over-time.js';
import type { ServiceState } from '../health/records.js';
import { withProbe } from '../health/probe-check.js';

/** A failed probe is tried once more after one poll interval, never more than this later. */
const MAX_PROBE_RETRY_MS = 30_000;
/**
 * With history, incidents or a page, GitHub's part keeps the last quarter of the timeout (at most
 * this much): a Claw or a service that answers only at the deadline still leaves it time, and every
 * GitHub call still ends by the deadline.
 */
const MAX_GITHUB_SHARE_MS = 30_000;

/** The inputs each command reads (beyond the common ones): its run sees only the settings they fill. */
const HEALTH_READS = inputsReadBy('health');
export const health: Command<SettingsOf<(typeof HEALTH_READS)[number]>> = async (context) => {
  const { settings, policy } = context;
  const overTime = settings.history !== '';
  let result: HealthResult | undefined;
  let service: ServiceState;
  let problem: ApiError | undefined;
  try {
    const share = overTime ? Math.min(MAX_GITHUB_SHARE_MS, Math.floor(settings.timeoutMs / 4)) : 0;
    result = await checkHealth(
      { ...context, deadline: context.deadline - share },
      {
        targets: settings.targets,
        // With a checks file the probe is one of the checks (see probe-check.ts).
        probeMessage: context.checks ? '' : settings.probeMessage,
        checks: context.checks,
        probeExpect: settings.probeExpect,
        pollIntervalMs: settings.pollIntervalMs,
        classify: policy.classify,
        probeRetryMs: Math.min(settings.pollIntervalMs, MAX_PROBE_RETRY_MS),
      },
    );
    service = serviceOf(result);
  } catch (err) {
    // The list read failing, or the key refused: the service's incident, then the step fails as ever.
    // A wrong path is the run's address, not the service's state: no incident, nothing kept.
    if (!overTime || !(err instanceof ApiError) || err.kind === 'address') throw err;
    problem = err;
    service = err.kind === 'unauthorized' || err.kind === 'forbidden' ? 'refused' : 'down';
  }
  let time: OverTimeResult | undefined;
  if (overTime && !context.health) {
    context.log.warning(
      `History, incidents and the status page keep their state on GitHub: run health as the action to use them. Skipped '${settings.history}'.`,
    );
  } else if (overTime && context.health) {
    time = await healthOverTime(
      context,
      context.health.host,
      {
        branch: settings.history,
        statusPage: settings.statusPage,
        incidents: settings.incidents.enabled ? settings.incidents : undefined,
        seal: stateSealKey(settings, context.github.repository),
        redact: context.redact.redact,
        repository: context.github.repository,
        serverUrl: context.github.serverUrl,
        listedAll: settings.targets.all,
      },
      { result, service, serviceProblem: problem && errorMessage(problem) },
    );
  }
  if (problem || !result) throw problem ?? new Error('health ended without a result');
  const { outputs, notes } = healthOutputs(result);
  return {
    ok: result.healthy,
    message: result.message,
    outputs,
    summary: [
      healthSummary(result),
      time ? healthTimeSummary(time.statuses, incidentLines(time)) : '',
      doraSummary(time?.dora),
      ...(time?.historyCuts ?? []).map((line) => `> ⚠️ ${line}\n`),
    ]
      .filter(Boolean)
      .join('\n'),
    notes,
    ...(time?.incidents?.notices.length ? { notices: time.incidents.notices } : {}),
    failStep: settings.failOnUnhealthy,
    checks: result.checks,
    views: healthViews(outputs, time),
    ...(time?.dora ? { json: { dora: doraJson(time.dora) } } : {}),
  };
};

/** The command line's views: the replies that failed a probe, then the figures teams track. */
function healthViews(outputs: Record<string, string>, time: OverTimeResult | undefined): ResultView[] {
  const dora = doraText(time?.dora);
  return [
    ...(outputs.healthy === 'false' && outputs.report ? [{ kind: 'unhealthy' as const, report: outputs.report }] : []),
    ...(dora ? [{ kind: 'text' as const, text: dora }] : []),
  ];
}

/** What the run did to incidents, then those still open that it did not touch. */
function incidentLines(time: OverTimeResult): IncidentLine[] {
  const lines: IncidentLine[] = (time.incidents?.actions ?? []).map((a) => ({
    claw: 'claw' in a.subject ? a.subject.claw : '',
    action: a.action,
    number: a.number,
    url: a.url,
  }));
  for (const [key, open] of time.incidents?.open ?? []) {
    if (lines.some((l) => l.number === open.number)) continue;
    lines.push({
      claw: key.startsWith('claw:') ? key.slice(5) : '',
      action: 'open',
      number: open.number,
      url: open.url,
    });
  }
  return lines;
}

export const healthDefinition: CommandDefinition<(typeof HEALTH_READS)[number]> = {
  name: 'health',
  summary: "check Claws' health, with a chat probe or a checks file",
  inputs: HEALTH_READS,
  rules: {
    targets: 'one Claw',
  },
  prepare: {
    suite: withProbe,
  },
  commandLine: {
    historyFolder: true,
  },
  run: health,
};
