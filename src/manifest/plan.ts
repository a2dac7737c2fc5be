// The plan: what the manifest says against what the service holds, as the writes apply would send,
// in the order it sends them. Every refusal (an unknown Claw, an unsafe prune, the last admin) is
// found here, so a refused apply writes nothing. The plan's id is a hash of its operations with
// secrets masked: a plan made without the secrets (a fork's pull request) has the apply's id.
import { createHash } from 'node:crypto';
import type { Claw } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { type Json, readId, readString } from '../api/shapes.js';
import type { RunContext } from '../api/context.js';
import { type ConfigChange, type ConfigDiff, diffConfig, resolved } from './diff.js';
import type { ClawSpec, Manifest } from './manifest.js';
import { ID_EXPECTED, isValidId } from '../shared/identifiers.js';

export type OperationKind =
  'create-claw' | 'update-claw' | 'install-skill' | 'remove-skill' | 'invite-member' | 'change-role' | 'remove-member';

/** The operations on a Claw itself (the rest are on the team): what makes a Claw changed, to deploy. */
export const CLAW_OPERATIONS: readonly OperationKind[] = [
  'create-claw',
  'update-claw',
  'install-skill',
  'remove-skill',
];

/** One write apply would send; `changes`, `before` and `after` are masked. */
export interface Operation {
  kind: OperationKind;
  /** The Claw, or the member (email or id). */
  target: string;
  /** For skills. */
  skill?: string;
  /** For members: the role before and after. */
  before?: string;
  after?: string;
  /** For Claws: each key set, changed or removed. */
  changes?: ConfigChange[];
}

/** What apply needs beyond what is shown: the real values to send and the service's ids. */
export interface Write {
  operation: Operation;
  /** Claw create and patch bodies (with env secrets, resolved when sent). */
  body?: Json;
  /** A member's id at the service, for role changes and removals. */
  memberId?: string;
  /** For a Claw patch: its write-only secrets go along. */
  diff?: ConfigDiff;
}

/** An operation the plan will not send: an id it would put into a path is not usable. */
export interface Blocked {
  operation: Operation;
  reason: string;
}

export interface Plan {
  manifest: string;
  writes: Write[];
  operations: Operation[];
  /** Operations that cannot be applied (listed, covered by the id, never written). */
  blocked: Blocked[];
  /** Secrets from the environment, per Claw: listed, never compared, not counted. */
  writeOnly: { clawId: string; path: string[]; diff: ConfigDiff }[];
  /** How many writes apply would send. */
  changes: number;
  id: string;
}

/** A plan that must not be applied (nor shown as one): the reason names what and how to fix it. */
export class PlanRefusal extends Error {
  override name = 'PlanRefusal';
}

/** Roles that keep a team administered: whoever holds the last one must stay. */
const ADMIN_ROLE = /owner|admin/i;

const ORDER: OperationKind[] = [
  'create-claw',
  'update-claw',
  'install-skill',
  'remove-skill',
  'invite-member',
  'change-role',
  'remove-member',
];

export async function makePlan(
  deps: Pick<RunContext, 'client' | 'deadline' | 'signal'>,
  manifest: Manifest,
): Promise<Plan> {
  const writes: Write[] = [];
  const writeOnly: Plan['writeOnly'] = [];
  for (const spec of manifest.claws) await planClaw(deps, manifest, spec, writes, writeOnly);
  if (manifest.members !== undefined) await planTeam(deps, manifest, writes);
  writes.sort((a, b) => ORDER.indexOf(a.operation.kind) - ORDER.indexOf(b.operation.kind));
  // Every id a write puts into a path is checked now, so no apply half-applies on one found later.
  const blocked: Blocked[] = [];
  const usable = writes.filter((write) => {
    const problem = unusableId(write);
    if (problem) blocked.push({ operation: write.operation, reason: problem });
    return !problem;
  });
  const operations = usable.map((w) => w.operation);
  return {
    manifest: manifest.file,
    writes: usable,
    operations,
    blocked,
    writeOnly,
    changes: operations.length,
    id: planId(operations, writeOnly, blocked),
  };
}

/** The ids a write puts into a path: the Claw's always; a skill's to remove it; a member's to change or remove them. */
function pathIds(write: Write): [string, string][] {
  const op = write.operation;
  if (op.kind === 'remove-skill')
    return [
      ['Claw id', op.target],
      ['skill id', op.skill ?? ''],
    ];
  if (op.kind === 'change-role' || op.kind === 'remove-member') return [['member id', write.memberId ?? '']];
  if (op.kind === 'create-claw' || op.kind === 'invite-member') return [];
  return [['Claw id', op.target]];
}

function unusableId(write: Write): string | undefined {
  for (const [what, id] of pathIds(write)) {
    if (!isValidId(id))
      return `the ${what} ${JSON.stringify(id.slice(0, 80))} is not usable in a path (${ID_EXPECTED})`;
  }
  return undefined;
}

/** A stable hash of what the plan does, secrets masked (they are, everywhere in operations). */
function planId(operations: Operation[], writeOnly: Plan['writeOnly'], blocked: Blocked[]): string {
  const canonical = JSON.stringify({
    operations,
    writeOnly: writeOnly.map((w) => ({ clawId: w.clawId, path: w.path })),
    ...(blocked.length ? { blocked } : {}),
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

async function planClaw(
  deps: Pick<RunContext, 'client' | 'deadline' | 'signal'>,
  manifest: Manifest,
  spec: ClawSpec,
  writes: Write[],
  writeOnly: Plan['writeOnly'],
): Promise<void> {
  const options = { deadline: deps.deadline, signal: deps.signal };
  let claw: Claw | undefined;
  try {
    claw = await deps.client.getClaw(spec.id, options);
  } catch (err) {
    if (!(err instanceof ApiError && err.kind === 'not_found')) throw err;
  }
  if (!claw && !spec.create) {
    throw new PlanRefusal(
      `${manifest.file}, line ${spec.line}: Claw ${spec.id} does not exist (404 on GET /v1/claws/:id): expected an existing Claw, or 'create: true' to let apply create it.`,
    );
  }
  const declared = spec.config ?? {};
  if (!claw) {
    // A new Claw: everything declared is added, secrets included, in the one create.
    const diff = diffConfig(declared, {});
    writes.push({
      operation: { kind: 'create-claw', target: spec.id, changes: [...diff.changes, ...diff.writeOnly] },
      body: { id: spec.id, ...(declared as Json) },
    });
  } else if (spec.config) {
    const diff = diffConfig(declared, claw.raw);
    if (diff.changes.length > 0) {
      writes.push({ operation: { kind: 'update-claw', target: spec.id, changes: diff.changes }, diff });
    }
    for (const secret of diff.writeOnly) writeOnly.push({ clawId: spec.id, path: secret.path, diff });
  }
  if (spec.skills === undefined) return;
  const installed = claw ? await installedSkills(deps, spec.id) : [];
  for (const skill of spec.skills) {
    if (!installed.includes(skill)) writes.push({ operation: { kind: 'install-skill', target: spec.id, skill } });
  }
  if (!manifest.prune.has('skills')) return;
  if (spec.skills.length === 0) {
    throw new PlanRefusal(
      `${manifest.file}, line ${spec.line}: Claw ${spec.id} declares no skills and 'prune' names skills: that would remove every skill it has. Expected the skills to keep, or 'skills' out of 'prune'.`,
    );
  }
  for (const skill of installed) {
    if (!spec.skills.includes(skill)) writes.push({ operation: { kind: 'remove-skill', target: spec.id, skill } });
  }
}

async function installedSkills(
  deps: Pick<RunContext, 'client' | 'deadline' | 'signal'>,
  clawId: string,
): Promise<string[]> {
  const items = await deps.client.listSkills(clawId, { deadline: deps.deadline, signal: deps.signal });
  return items.map((item) => {
    const id = readString(item, ['skillId', 'skill_id', 'id', 'name', 'slug']);
    // An entry that cannot be named cannot be kept or pruned safely: the list is not readable.
    if (!id)
      throw new PlanRefusal(
        `The skills of Claw ${clawId} could not be read: an entry has no skill id (${JSON.stringify(item).slice(0, 200)}).`,
      );
    return id;
  });
}

interface Member {
  id?: string;
  email?: string;
  role?: string;
}

async function planTeam(
  deps: Pick<RunContext, 'client' | 'deadline' | 'signal'>,
  manifest: Manifest,
  writes: Write[],
): Promise<void> {
  const declared = manifest.members ?? [];
  const prune = manifest.prune.has('members');
  const where = `${manifest.file}, line ${manifest.lines.members}`;
  if (prune && declared.length === 0) {
    throw new PlanRefusal(
      `${where}: 'team.members' is empty and 'prune' names members: that would remove everyone. Expected the members to keep, or 'members' out of 'prune'.`,
    );
  }
  let listed: Json[];
  try {
    listed = await deps.client.listMembers({ deadline: deps.deadline, signal: deps.signal });
  } catch (err) {
    if (!(err instanceof ApiError) || !prune || err.kind === 'forbidden' || err.kind === 'unauthorized') throw err;
    throw new PlanRefusal(`The team's members could not be read completely, so none is pruned: ${err.message}`);
  }
  // A pending invitation counts as present: it is in the list, whatever its status.
  const members: Member[] = listed.map((m) => ({
    id: readId(m, 'member'),
    email: readString(m, ['email', 'emailAddress', 'email_address']),
    role: readString(m, ['role']),
  }));
  if (prune && members.some((m) => !m.id)) {
    throw new PlanRefusal(
      'The team could not be read completely, so none is pruned: a member was listed without an id.',
    );
  }
  const matches = (member: Member, key: string): boolean =>
    member.id === key || (member.email !== undefined && member.email.toLowerCase() === key.toLowerCase());
  const roleAfter = new Map<Member, string | undefined>(members.map((m) => [m, m.role]));
  for (const [key, role] of declared) {
    const member = members.find((m) => matches(m, key));
    if (!member) {
      if (!key.includes('@')) {
        throw new PlanRefusal(
          `${where}: member ${JSON.stringify(key)} is not on the team, and only an email can be invited: expected an email, or an id of a member.`,
        );
      }
      writes.push({ operation: { kind: 'invite-member', target: key, after: role } });
    } else if ((member.role ?? '').toLowerCase() !== role.toLowerCase()) {
      if (!member.id)
        throw new PlanRefusal(`Member ${key} has no id in the team list, so their role cannot be changed.`);
      writes.push({
        operation: { kind: 'change-role', target: key, before: member.role, after: role },
        memberId: member.id,
      });
      roleAfter.set(member, role);
    }
  }
  if (prune) {
    for (const member of members) {
      if (declared.some(([key]) => matches(member, key))) continue;
      const target = member.email ?? (member.id as string);
      writes.push({ operation: { kind: 'remove-member', target, before: member.role }, memberId: member.id });
      roleAfter.set(member, undefined);
    }
  }
  // Never leave the team without anyone who can administer it.
  const admins = members.filter((m) => ADMIN_ROLE.test(m.role ?? ''));
  const adminsAfter = members.filter((m) => ADMIN_ROLE.test(roleAfter.get(m) ?? ''));
  if (admins.length > 0 && adminsAfter.length === 0) {
    const who = admins.map((m) => m.email ?? m.id).join(', ');
    throw new PlanRefusal(
      `${where}: the plan would remove or demote the last member with an owner or admin role (${who}). Expected at least one to keep that role.`,
    );
  }
}

/** The plan as the `plan` output shows it: operations with masked values, and the write-only secrets. */
export function planJson(plan: Plan): unknown {
  return {
    manifest: plan.manifest,
    planId: plan.id,
    changes: plan.changes,
    operations: plan.operations,
    ...(plan.blocked.length ? { cannotBeApplied: plan.blocked } : {}),
    writeOnly: plan.writeOnly.map((w) => ({ clawId: w.clawId, path: w.path.join('.') })),
  };
}

/** Create bodies carry the declared config with secrets resolved, when sent. */
export function createBody(write: Write): Json {
  return resolved(write.body) as Json;
}
