// Builds the layers below main.ts from settings, once per run: one pacer, one transport, one
// client, the judges, the policy. Plain values only: nothing here touches the runner.
import type { Words } from '../shared/words.js';
import { AmsClient } from '../api/client.js';
import { RateLimitPacer } from '../api/rate-limit.js';
import { Transport } from '../api/transport.js';
import type { Clock, Logger } from '../shared/clock.js';
import type { Policy } from '../contract/command.js';
import { type Classifier, statusClassifier } from '../shared/status.js';
import { ApiError } from '../api/errors.js';
import { InputError, errorMessage } from '../shared/errors.js';
import { PlanRefusal } from '../manifest/plan.js';
import type { Settings } from '../contract/settings.js';
import { ChatCompletions, explainJudgeError, quotaSpent } from '../api/chat-completions.js';
import type { RunContext } from '../api/context.js';
import { Judge } from '../checks/judge.js';
import { clawBackend, endpointBackend } from '../checks/judge-backends.js';
import type { VerdictCache } from '../checks/judge-cache.js';
import { type JudgeSpec, describeJudge, judgeIdentity } from '../checks/judge-spec.js';
import type { Redactor } from '../api/redact.js';

/** Everything a run needs below the entry, built once from the settings. */
export interface RunLayers {
  client: AmsClient;
  pacer: RateLimitPacer;
  policy: Policy;
  judgeFor: (spec: JudgeSpec) => Judge;
  /** Ends the run's connections (the service's and the judges'). */
  close(): void;
}

/** The run's layers, each built once: the service's client and pacer, the judges, the policy. */
export function wireRun(
  settings: Settings,
  run: {
    clock: Clock;
    log: Logger;
    signal: AbortSignal;
    userAgent: string;
    cache?: VerdictCache;
    words?: Words;
    redactor?: Redactor;
  },
): RunLayers {
  const { client, pacer } = createClient(settings, run.clock, run.log, run.userAgent, run);
  const panel = judgePanel(
    { client, clock: run.clock, log: run.log, pacer, signal: run.signal },
    settings,
    run.cache,
    run.redactor,
  );
  return {
    client,
    pacer,
    policy: policyOf(settings),
    judgeFor: panel.judgeFor,
    close: () => {
      client.close();
      panel.close();
    },
  };
}

export function createClient(
  settings: Settings,
  clock: Clock,
  log: Logger,
  userAgent: string,
  /**
   * The entry's words for advice (a refused key), and the run's one redactor: the service's
   * answers are redacted of every secret at the door.
   */
  { words, redactor }: { words?: Words; redactor?: Redactor } = {},
): { client: AmsClient; pacer: RateLimitPacer } {
  const pacer = new RateLimitPacer(() => clock.now());
  const transport = new Transport({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    authScheme: settings.authScheme,
    requestTimeoutMs: settings.requestTimeoutMs,
    clock,
    log,
    pacer,
    // Retries start no slower than polls: a short poll interval means the user wants fast answers.
    baseBackoffMs: Math.min(1000, settings.pollIntervalMs),
    userAgent,
    words,
    redactor,
  });
  return { client: new AmsClient(transport), pacer };
}

/** The status vocabulary with the user's `success-statuses` and `failure-statuses`. */
export function classifierOf(settings: Pick<Settings, 'successStatuses' | 'failureStatuses'>): Classifier {
  return statusClassifier({ success: settings.successStatuses, failure: settings.failureStatuses });
}

export function policyOf(settings: Settings): Policy {
  return {
    timeoutMs: settings.timeoutMs,
    pollIntervalMs: settings.pollIntervalMs,
    classify: classifierOf(settings),
    autoRollback: settings.autoRollback,
    rollbackOn: settings.rollbackOn,
    onConflict: settings.onConflict,
  };
}

/**
 * The one-line reason for a step that could not go on. The service's errors and bad input already
 * say what was being done; anything else (a runtime error's bare text) is told with its context.
 */
export function describeFailure(settings: Settings, err: unknown): string {
  const text = errorMessage(err);
  if (err instanceof ApiError || err instanceof InputError || err instanceof PlanRefusal) return text;
  const target = settings.clawId
    ? ` of Claw ${settings.clawId}`
    : settings.deploymentId
      ? ` of deployment ${settings.deploymentId}`
      : settings.targets.ids.length
        ? ` of ${settings.targets.ids.join(', ')}`
        : '';
  return `The ${settings.command}${target} stopped on an unexpected error: ${text}`;
}

/**
 * The judges of a run, each built once: an endpoint gets a transport of its own (its base, its key,
 * its budget; never the service's key), a grader Claw talks through the run's client and pacer.
 */
export function judgePanel(
  ctx: Pick<RunContext, 'client' | 'clock' | 'log' | 'pacer' | 'signal'>,
  settings: Pick<Settings, 'pollIntervalMs' | 'successStatuses' | 'failureStatuses'>,
  cache: VerdictCache | undefined,
  redactor?: Redactor,
): { judgeFor: (spec: JudgeSpec) => Judge; close: () => void } {
  const judges = new Map<string, Judge>();
  const endpoints: ChatCompletions[] = [];
  const judgeFor = (spec: JudgeSpec): Judge => {
    const id = judgeIdentity(spec);
    let judge = judges.get(id);
    if (judge) return judge;
    if (spec.kind === 'claw') {
      const options = { pollIntervalMs: settings.pollIntervalMs, classify: classifierOf(settings) };
      judge = new Judge(clawBackend(ctx, spec, options), cache);
    } else {
      const transport = new Transport({
        baseUrl: spec.url,
        apiKey: spec.apiKey,
        authScheme: spec.apiKey ? 'Bearer' : '',
        requestTimeoutMs: spec.timeoutMs,
        clock: ctx.clock,
        log: ctx.log,
        pacer: new RateLimitPacer(() => ctx.clock.now()),
        pathPrefix: '',
        headers: spec.headers,
        query: spec.query,
        secrets: spec.secrets,
        redactor,
        explain: explainJudgeError,
        final: quotaSpent,
        peer: 'the judge',
        addressAdvice: "check the judge's url",
        // A judge that says "not before T" past a check's deadline fails that check at once.
        retryAfterPastDeadline: 'fail',
        userAgent: 'claw-deploy (judge)',
      });
      const completions = new ChatCompletions(transport, (line) => ctx.log.warning(`${describeJudge(spec)}: ${line}`));
      endpoints.push(completions);
      judge = new Judge(endpointBackend(completions, spec, ctx.signal), cache);
    }
    judges.set(id, judge);
    return judge;
  };
  return { judgeFor, close: () => endpoints.forEach((e) => e.close()) };
}
