// Apply: the plan's writes, in its order (creates, config patches, skill installs, skill removals,
// invites and role changes, member removals), stopping at the first that fails. Writes carry an
// Idempotency-Key (the transport adds one to each); a DELETE that answers 404 is already done.
import { ApiError } from '../api/errors.js';
import type { Json } from '../api/shapes.js';
import type { RunContext } from '../api/context.js';
import { CancelledError, errorMessage } from '../shared/errors.js';
import { patchToSend } from './diff.js';
import { CLAW_OPERATIONS, type Operation, type Plan, type Write, createBody } from './plan.js';

export interface ApplyResult {
  applied: Operation[];
  /** The write that failed, and why; the writes after it were not sent. */
  failed?: { operation: Operation; message: string };
  /**
   * The run was cancelled: the write on its way then, if any (it may or may not have taken
   * effect); the writes after it (in `notApplied`) were not sent.
   */
  cancelled?: { inFlight?: Operation };
  notApplied: Operation[];
  /** Claws whose write-only secrets were sent with no other change (`rewrite-secrets`). */
  secretsRewritten: string[];
  /** Claws created, or whose config or skills changed: what to deploy. */
  changedClaws: string[];
}

/** One line naming an operation, for logs and messages. */
export function describeOperation(op: Operation): string {
  switch (op.kind) {
    case 'create-claw':
      return `create Claw ${op.target}`;
    case 'update-claw':
      return `update Claw ${op.target} (${changedKeys(op)})`;
    case 'install-skill':
      return `install skill ${op.skill} on ${op.target}`;
    case 'remove-skill':
      return `remove skill ${op.skill} from ${op.target}`;
    case 'invite-member':
      return `invite ${op.target} as ${op.after}`;
    case 'change-role':
      return `change ${op.target} from ${op.before ?? 'no role'} to ${op.after}`;
    case 'remove-member':
      return `remove ${op.target} from the team`;
  }
}

/** The keys an update changes, by name: the first few, then how many more. */
function changedKeys(op: Operation): string {
  const keys = (op.changes ?? []).map((c) => c.path.join('.'));
  const shown = keys.slice(0, 5).join(', ');
  return keys.length > 5 ? `${shown} and ${keys.length - 5} more` : shown || 'no key';
}

export async function applyPlan(
  deps: Pick<RunContext, 'client' | 'deadline' | 'signal' | 'log'>,
  plan: Plan,
  { rewriteSecrets }: { rewriteSecrets: boolean },
): Promise<ApplyResult> {
  const result: ApplyResult = { applied: [], notApplied: [], secretsRewritten: [], changedClaws: [] };
  const patched = new Set(plan.writes.filter((w) => w.operation.kind === 'update-claw').map((w) => w.operation.target));
  // Rotation: secrets go to Claws with no other change only when asked.
  const rotations: Write[] = rewriteSecrets
    ? [...new Set(plan.writeOnly.map((w) => w.clawId))]
        .filter((clawId) => !patched.has(clawId))
        .map((clawId) => ({
          operation: { kind: 'update-claw', target: clawId, changes: [] },
          diff: plan.writeOnly.find((w) => w.clawId === clawId)?.diff,
        }))
    : [];
  const writes = [...plan.writes];
  // Rotations are config patches: they go with the other patches, before the skills.
  writes.splice(
    writes.filter((w) => ['create-claw', 'update-claw'].includes(w.operation.kind)).length,
    0,
    ...rotations,
  );
  for (const [index, write] of writes.entries()) {
    const op = write.operation;
    // A cancel between writes: say what was written and what was not, rather than lose it.
    if (deps.signal?.aborted) {
      result.cancelled = {};
      result.notApplied = writes.slice(index).map((w) => w.operation);
      return result;
    }
    try {
      await send(deps, write);
    } catch (err) {
      if (err instanceof CancelledError) {
        result.cancelled = { inFlight: op };
        result.notApplied = writes.slice(index + 1).map((w) => w.operation);
        deps.log.warning(`Apply cancelled while it was sending: ${describeOperation(op)}.`);
        return result;
      }
      if (!(err instanceof ApiError)) throw err;
      result.failed = { operation: op, message: errorMessage(err) };
      result.notApplied = writes.slice(index + 1).map((w) => w.operation);
      deps.log.warning(`Apply stopped: could not ${describeOperation(op)}: ${errorMessage(err)}`);
      return result;
    }
    deps.log.info(
      `Applied: ${describeOperation(op)}${rotations.includes(write) ? ' (write-only secrets rewritten)' : ''}.`,
    );
    if (rotations.includes(write)) result.secretsRewritten.push(op.target);
    else result.applied.push(op);
    if (CLAW_OPERATIONS.includes(op.kind) && !result.changedClaws.includes(op.target)) {
      result.changedClaws.push(op.target);
    }
  }
  return result;
}

async function send(deps: Pick<RunContext, 'client' | 'deadline' | 'signal'>, write: Write): Promise<void> {
  const { client } = deps;
  const options = { deadline: deps.deadline, signal: deps.signal };
  const op = write.operation;
  const alreadyGone = (err: unknown): void => {
    // Removing what is already gone is done.
    if (!(err instanceof ApiError && err.kind === 'not_found')) throw err;
  };
  switch (op.kind) {
    case 'create-claw':
      await client.createClaw(createBody(write), options);
      return;
    case 'update-claw': {
      // Write-only secrets go along with any patch of their Claw.
      const body = write.diff ? patchToSend(write.diff, true) : undefined;
      if (body) await client.updateClaw(op.target, body as Json, options);
      return;
    }
    case 'install-skill':
      await client.installSkill(op.target, op.skill as string, {}, options);
      return;
    case 'remove-skill':
      await client.removeSkill(op.target, op.skill as string, options).catch(alreadyGone);
      return;
    case 'invite-member':
      await client.inviteMember({ email: op.target, role: op.after }, options);
      return;
    case 'change-role':
      await client.updateMemberRole(write.memberId as string, op.after as string, options);
      return;
    case 'remove-member':
      await client.removeMember(write.memberId as string, options).catch(alreadyGone);
  }
}
