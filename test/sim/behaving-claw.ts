// The smallest switch the comparison's users' tests need (beside the simulator's own behaviour mode): a Claw whose reply
// to each question passes with a set probability, and a deployment of it that changes those
// probabilities. Before its first triggered deployment succeeds (and again once that is rolled
// back) the Claw answers as `before`; after, as `after`. A reply that passes is `yes`, one that
// fails is `no`: a checks file asserts `equals: yes`. Seeded, so a run is the same each time.
import type { SimClaw, Simulator } from './server.ts';

export interface Behaviour {
  /** The chance (0 to 1) that the reply to `question` passes, before the deployment. */
  before: (question: string) => number;
  /** The same after the deployment; default: as before. */
  after?: (question: string) => number;
  seed?: number;
}

/** A small seeded generator (mulberry32): the same seed, the same replies. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Whether the Claw's live release is a deployment triggered through the API, finished and not rolled back. */
export function deployed(sim: Simulator, clawId: string): boolean {
  const id = sim.claws.get(clawId)?.currentDeploymentId;
  const current = sim.triggered(clawId).find((d) => d.id === id);
  return current !== undefined && !current.fields.rolledBackAt && !sim.inProgress(current);
}

/** The chat of a Claw that behaves as `behaviour` says, read at each message. */
export function behavingChat(sim: Simulator, clawId: string, behaviour: Behaviour): SimClaw['chat'] {
  const random = seeded(behaviour.seed ?? 1);
  return {
    mode: 'sync',
    respond: (question) => {
      const chance = deployed(sim, clawId)
        ? (behaviour.after ?? behaviour.before)(question)
        : behaviour.before(question);
      return random() < chance ? 'yes' : 'no';
    },
  };
}

/** A checks file of `questions` checks (`q1`…), each `repeat` times, passing on `yes`. */
export function questionsFile(questions: number, repeat: number, extra = ''): string {
  const checks = Array.from(
    { length: questions },
    (_, i) => `  - name: q${i + 1}\n    send: q${i + 1}\n    assert:\n      - type: equals\n        value: 'yes'\n`,
  ).join('');
  return `defaults:\n  timeout: 10s\n  repeat: ${repeat}\n${extra}checks:\n${checks}`;
}
