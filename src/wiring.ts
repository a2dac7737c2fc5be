// Builds the layers below main.ts from settings: one pacer, one transport, one client.
import { AmsClient } from './api/client.js';
import { RateLimitPacer } from './api/rate-limit.js';
import { Transport } from './api/transport.js';
import type { Clock, Logger } from './clock.js';
import type { Policy } from './deploy/deploy.js';
import { type Classifier, statusClassifier } from './status.js';
import type { Settings } from './settings.js';

export function createClient(
  settings: Settings,
  clock: Clock,
  log: Logger,
  userAgent: string,
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
  });
  return { client: new AmsClient(transport), pacer };
}

/** The status vocabulary with the user's `success-statuses` and `failure-statuses`. */
export function classifierOf(settings: Settings): Classifier {
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
