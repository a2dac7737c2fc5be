// What plan, apply and drift give back: the plan, what was written, the rollout that followed.
// Below the command, so the command contract and the entries can name it without importing it.
import type { FleetResult } from '../deploy/fleet.js';
import type { Outcome } from '../deploy/deploy.js';
import type { ApplyResult } from './apply.js';
import type { Plan } from './plan.js';

export interface ManifestResult {
  plan: Plan;
  apply?: ApplyResult;
  rollout?: FleetResult;
  outcome: Exclude<Outcome, 'triggered'>;
  ok: boolean;
  message: string;
}
