// A preview's configuration: the production Claw's current one, with the manifest's declaration
// merged in as apply merges it (RFC 7396: declared keys set, null removes, objects merge). What the
// service manages itself (ids, status, deployment, timestamps) is not copied; a secret from an unset
// variable is left out, and said, rather than sent empty.
import type { Json } from '../api/shapes.js';
import { forkRefusal } from '../config/fork.js';
import { FileError } from '../config/yaml-file.js';
import { type ConfigObject, type ConfigValue, type Manifest, envSecrets, isEnvSecret } from '../manifest/manifest.js';

/** Fields of a Claw the service sets itself: never copied into a new Claw. */
const MANAGED = new Set([
  'id',
  'clawId',
  'claw_id',
  'status',
  'state',
  'deployment',
  'deploymentId',
  'deployment_id',
  'currentDeployment',
  'current_deployment',
  'createdAt',
  'created_at',
  'updatedAt',
  'updated_at',
  'url',
  'links',
  'skills',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !isEnvSecret(value);

/** The merged configuration, and the paths of secrets left out because their variable is unset. */
export function previewConfig(production: Json, declared: ConfigObject | undefined): { config: Json; unset: string[] } {
  const base: Json = Object.fromEntries(Object.entries(production).filter(([key]) => !MANAGED.has(key)));
  const unset: string[] = [];
  const merge = (target: Record<string, unknown>, patch: ConfigObject, path: string[]): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...target };
    for (const [key, value] of Object.entries(patch)) {
      const at = [...path, key];
      if (value === null) delete out[key];
      else if (isEnvSecret(value)) {
        if (value.value === undefined) unset.push(at.join('.'));
        else out[key] = value.value;
      } else if (isObject(value)) out[key] = merge(isObject(out[key]) ? out[key] : {}, value as ConfigObject, at);
      else out[key] = resolve(value);
    }
    return out;
  };
  return { config: merge(base, declared ?? {}, []) as Json, unset };
}

function resolve(value: ConfigValue): unknown {
  if (isEnvSecret(value)) return value.value;
  if (Array.isArray(value)) return value.map(resolve);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v as ConfigValue)]));
  return value;
}

/**
 * Where the manifest may be a fork's, checked out with the base's secrets (`event`): a
 * `{ env: NAME }` in it would choose which of the step's secrets goes into a Claw's config (the
 * GitHub token, the API key). Refused, naming the line, before any request.
 */
export function refuseSecretsFromFork(manifest: Manifest, event: string): void {
  const first = envSecrets(manifest)[0];
  if (!first) return;
  throw new FileError(
    `${manifest.file}, line ${first.line}: { env: ${first.name} } chooses which of the step's secrets goes into a Claw, ${forkRefusal(event, 'expected no env values in the config (previews on pull_request: a fork then runs without secrets and gets a notice)')}`,
  );
}
