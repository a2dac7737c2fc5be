// What the action's two entries (main.ts, post.ts) share, so neither depends on the other's module
// state: the secrets both mask and redact, the one logger through which every line reaches the
// runner's log, and the state the main step leaves for the post step (one owner, as
// actions/checkout's state helper). It takes the runner's functions as arguments: only the
// entries touch @actions/core.
import type { Logger } from '../shared/clock.js';
import { Redactor } from '../api/redact.js';
import { isValidId } from '../shared/identifiers.js';
import { sanitizeLogLine } from '../report/log-line.js';
import { STATE } from './state.js';

/** The inputs that hold secrets: both steps mask each first thing and redact it everywhere. */
export const SECRET_INPUTS = ['api-key', 'github-token', 'state-secret'] as const;

/** The secrets among the inputs, trimmed, for `setSecret` and the redactor. */
export function inputSecrets(input: (name: string) => string): string[] {
  return SECRET_INPUTS.map((name) => input(name).trim()).filter(Boolean);
}

/** The runner's log functions (`@actions/core`'s), as the entries hand them over. */
export interface RunnerLog {
  info(message: string): void;
  warning(message: string): void;
  debug(message: string): void;
  startGroup(name: string): void;
  endGroup(): void;
}

/**
 * Every line the layers log crosses into the runner's log here, redacted by the run's redactor and
 * sanitized: the service's text can never become a workflow command nor show a secret.
 */
export function runnerLogger(runner: RunnerLog, redactor: Redactor): Logger & { clean(text: string): string } {
  const clean = (text: string): string => sanitizeLogLine(redactor.redact(text));
  return {
    clean,
    info: (message) => runner.info(clean(message)),
    warning: (message) => runner.warning(clean(message)),
    debug: (message) => runner.debug(clean(message)),
    startGroup: (name) => runner.startGroup(clean(name)),
    endGroup: () => runner.endGroup(),
  };
}

/** The runner's state store (`core.saveState` / `core.getState`). */
export interface StateStore {
  save(name: string, value: string): void;
  get(name: string): string;
}

/** What the main step leaves for the post step, as the post step reads it back. */
export interface LeftInFlight {
  /** The main step reached its end (succeeded, failed or cancelled): the post step does nothing. */
  finished: boolean;
  /** A single deployment, and whether it had reached a final status. */
  deploymentId: string;
  final: boolean;
  /** A fleet's deployments not yet final. */
  fleetInFlight: string[];
  /** The GitHub Deployment mirroring the step (0 when none). */
  githubDeploymentId: number;
}

/** The main step's writes of its state: each fact under one name, written one way. */
export function stateWriter(store: StateStore) {
  return {
    /** First thing: the same bundle, started again by the runner, then runs as the post step. */
    markMain: () => store.save(STATE.isPost, 'true'),
    deployment: (id: string, final: boolean) => {
      store.save(STATE.deploymentId, id);
      store.save(STATE.final, String(final));
    },
    fleetInFlight: (ids: string[]) => store.save(STATE.fleetInFlight, JSON.stringify(ids)),
    githubDeployment: (id: number) => store.save(STATE.githubDeploymentId, String(id)),
    finished: () => store.save(STATE.finished, 'true'),
  };
}

/** True when the runner starts the bundle again for the post step. */
export function isPostState(store: StateStore): boolean {
  return store.get(STATE.isPost) === 'true';
}

/** The post step's reading of the state: anything unusable reads as nothing left in flight. */
export function readLeftInFlight(store: StateStore): LeftInFlight {
  const githubDeploymentId = Number(store.get(STATE.githubDeploymentId));
  const deploymentId = store.get(STATE.deploymentId);
  return {
    finished: store.get(STATE.finished) === 'true',
    deploymentId: isValidId(deploymentId) ? deploymentId : '',
    final: store.get(STATE.final) === 'true',
    fleetInFlight: savedIds(store.get(STATE.fleetInFlight)),
    githubDeploymentId: Number.isSafeInteger(githubDeploymentId) && githubDeploymentId > 0 ? githubDeploymentId : 0,
  };
}

/** The ids a fleet saved: a JSON array of usable ids, or nothing. */
function savedIds(text: string): string[] {
  try {
    const ids = JSON.parse(text || '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string' && isValidId(id)) : [];
  } catch {
    return [];
  }
}
