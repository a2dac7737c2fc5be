// The manifest: what the Claws are (config, skills) and who is on the team, kept in Git. Read once,
// before any request; every mistake is one error naming the file, the line and what was expected.
import { ACTION_WORDS, type Words } from '../shared/words.js';
import { type Node, isMap, isScalar, isSeq } from 'yaml';
import { type Entry, YamlFile } from '../config/yaml-file.js';
import { ID_EXPECTED, isValidId } from '../shared/identifiers.js';

/** A value taken from the step's environment (`{ env: NAME }`), so no secret lives in Git. */
export interface EnvSecret {
  kind: 'env';
  name: string;
  /** Undefined when the variable is unset (at plan: "unknown, will be set"). */
  value?: string;
  /** Where it is written, for the error when apply needs it and it is unset. */
  line: number;
}

export type ConfigValue = null | boolean | number | string | ConfigValue[] | ConfigObject | EnvSecret;
export interface ConfigObject {
  [key: string]: ConfigValue;
}

export function isEnvSecret(value: unknown): value is EnvSecret {
  return typeof value === 'object' && value !== null && (value as EnvSecret).kind === 'env' && 'line' in value;
}

/** Every `{ env: NAME }` in the Claws' config, in the order written. */
export function envSecrets(manifest: Manifest): EnvSecret[] {
  const found: EnvSecret[] = [];
  const visit = (value: ConfigValue | undefined): void => {
    if (isEnvSecret(value)) found.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit);
  };
  for (const claw of manifest.claws) visit(claw.config);
  return found;
}

/** The values of those that are set, for the runner to mask. */
export function secretValues(manifest: Manifest): string[] {
  return envSecrets(manifest).flatMap((secret) => (secret.value ? [secret.value] : []));
}

export interface ClawSpec {
  id: string;
  /** Apply may create it when it does not exist. */
  create: boolean;
  /** Merged into the Claw as a JSON merge patch; undefined: its config is not managed. */
  config?: ConfigObject;
  /** Skill ids; undefined: its skills are not managed. */
  skills?: string[];
  line: number;
}

export const PRUNABLE = ['skills', 'members'] as const;
export type Prunable = (typeof PRUNABLE)[number];

export interface Manifest {
  /** The file, as the user named it. */
  file: string;
  claws: ClawSpec[];
  /** Email (or member id) → role; undefined: the team is not managed. */
  members?: [string, string][];
  prune: Set<Prunable>;
  /** Lines for refusals that concern the team or the prune list. */
  lines: { members: number; prune: number };
}

const TOP_KEYS = ['claws', 'team', 'prune'] as const;
const CLAW_KEYS = ['config', 'skills', 'create'] as const;
const TEAM_KEYS = ['members'] as const;

/** Reads the manifest at `path` (relative to `workspace`); `env` resolves `{ env: NAME }`. */
export async function loadManifest(
  path: string,
  workspace: string,
  env: NodeJS.ProcessEnv,
  words: Words = ACTION_WORDS,
): Promise<Manifest> {
  return readManifest(await YamlFile.read(path, workspace, 'manifest', words), env);
}

export function parseManifest(name: string, text: string, env: NodeJS.ProcessEnv = {}): Manifest {
  return readManifest(YamlFile.parse(name, text, 'manifest'), env);
}

function readManifest(file: YamlFile, env: NodeJS.ProcessEnv): Manifest {
  const top = new Map(file.entries(file.doc.contents, 'the manifest', TOP_KEYS).map((e) => [e.key, e]));
  const clawsEntry = top.get('claws');
  const claws = clawsEntry ? file.entries(clawsEntry.value, "'claws'").map((entry) => readClaw(file, entry, env)) : [];
  const teamEntry = top.get('team');
  let members: [string, string][] | undefined;
  let membersLine = teamEntry ? file.line(teamEntry.pair) : 1;
  if (teamEntry) {
    const membersEntry = file.entries(teamEntry.value, "'team'", TEAM_KEYS).find((e) => e.key === 'members');
    if (membersEntry) {
      membersLine = file.line(membersEntry.pair);
      // `members:` with nothing after it declares an empty team: only a prune would read it, and refuse.
      members =
        membersEntry.value === null || (isScalar(membersEntry.value) && membersEntry.value.value === null)
          ? []
          : file.entries(membersEntry.value, "'team.members'").map((entry) => {
              if (!entry.key.trim())
                file.fail(entry.pair, "'team.members' has an empty key: expected an email or a member id");
              return [entry.key, file.text(entry, `a role such as admin or member, for ${entry.key}`)];
            });
    }
  }
  const pruneEntry = top.get('prune');
  const prune = new Set<Prunable>();
  if (pruneEntry) {
    for (const item of file.list(pruneEntry, `a list of what to prune: ${PRUNABLE.join(', ')}`)) {
      const word = file.text({ ...pruneEntry, value: item }, `one of ${PRUNABLE.join(', ')}`);
      if (!(PRUNABLE as readonly string[]).includes(word)) {
        file.fail(item, `'prune' holds ${JSON.stringify(word)}: expected one of ${PRUNABLE.join(', ')}`);
      }
      // Pruning against nothing is a mistake, not a no-op: the user asked for it.
      if (word === 'members' && members === undefined) {
        file.fail(
          item,
          "'prune' names members, but the manifest declares no 'team.members' to keep: expected 'team.members', or 'members' out of 'prune'",
        );
      }
      if (word === 'skills' && !claws.some((c) => c.skills !== undefined)) {
        file.fail(
          item,
          "'prune' names skills, but no Claw of the manifest lists 'skills' to keep: expected 'skills' on the Claws to prune, or 'skills' out of 'prune'",
        );
      }
      prune.add(word as Prunable);
    }
  }
  if (claws.length === 0 && members === undefined) {
    file.fail(file.doc.contents, "the manifest declares nothing: expected 'claws', 'team.members', or both");
  }
  return {
    file: file.name,
    claws,
    members,
    prune,
    lines: { members: membersLine, prune: pruneEntry ? file.line(pruneEntry.pair) : 1 },
  };
}

function readClaw(file: YamlFile, entry: Entry, env: NodeJS.ProcessEnv): ClawSpec {
  if (!isValidId(entry.key))
    file.fail(entry.pair, `the Claw id ${JSON.stringify(entry.key)} is not usable: expected ${ID_EXPECTED}`);
  const where = `Claw ${entry.key}`;
  const fields = new Map(
    (entry.value === null ? [] : file.entries(entry.value, `'${entry.key}'`, CLAW_KEYS)).map((e) => [e.key, e]),
  );
  const create = fields.get('create');
  if (create && !(isScalar(create.value) && typeof create.value.value === 'boolean'))
    file.failValue(create, 'true or false');
  const config = fields.get('config');
  if (config && !isMap(config.value)) file.failValue(config, `a mapping of ${where}'s configuration`);
  const skills = fields.get('skills');
  return {
    id: entry.key,
    create: create ? (create.value as { value: boolean }).value : false,
    config: config ? (readValue(file, config.value, env) as ConfigObject) : undefined,
    skills: skills
      ? file.list(skills, 'a list of skill ids').map((item) => {
          if (!isScalar(item) || typeof item.value !== 'string')
            file.fail(item, `a skill of ${where} is not a string: expected a skill id`);
          if (!isValidId(item.value))
            file.fail(item, `the skill id ${JSON.stringify(item.value)} is not usable: expected ${ID_EXPECTED}`);
          return item.value;
        })
      : undefined,
    line: file.line(entry.pair),
  };
}

/** A YAML value as plain data; `{ env: NAME }` becomes an EnvSecret. */
function readValue(file: YamlFile, node: Node | null, env: NodeJS.ProcessEnv): ConfigValue {
  if (node === null) return null;
  if (isScalar(node)) {
    const value = node.value;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    file.fail(
      node,
      `a value of ${JSON.stringify(String(value))} is not JSON: expected text, a number, true, false or null`,
    );
  }
  if (isSeq(node)) return node.items.map((item) => readValue(file, item as Node, env));
  if (isMap(node)) {
    const entries = file.entries(node, 'a configuration mapping');
    if (entries.length === 1 && entries[0].key === 'env') {
      const name = file.text(entries[0], 'the name of an environment variable, such as ZENDESK_TOKEN');
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        file.failValue(entries[0], 'the name of an environment variable, such as ZENDESK_TOKEN');
      const value = env[name];
      return {
        kind: 'env',
        name,
        value: value === undefined || value === '' ? undefined : value,
        line: file.line(node),
      };
    }
    return Object.fromEntries(entries.map((e) => [e.key, readValue(file, e.value, env)]));
  }
  file.fail(node, 'an alias or tag that is not plain data: expected text, numbers, lists and mappings');
}
