// The check command: a checks file against Claws, with no deployment.
import type { Command } from '../command.js';
import { CONCURRENCY, mapWithConcurrency } from '../concurrency.js';
import { describeFailedChecks } from './result.js';

export const check: Command = async ({ settings, deps }) => {
  if (!deps.checks) throw new Error('the check command needs a checks file');
  const options = { deadline: deps.deadline, signal: deps.signal };
  // Each Claw named is read first: an unknown Claw or a refused key is the run's error (could not
  // act, as deploy and health say it), never one failed check per message sent.
  const claws = settings.targets.all
    ? (await deps.client.listClaws(options)).map((c) => c.id)
    : await mapWithConcurrency(settings.targets.ids, CONCURRENCY, async (id) => {
        await deps.client.getClaw(id, options);
        return id;
      });
  const result = await deps.checks(claws);
  const failed = result.entries.filter((e) => !e.passed).length;
  const passed = result.entries.length - failed;
  return {
    ok: result.passed && !result.cancelled,
    message: result.cancelled
      ? `Cancelled during the checks: ${passed} of ${result.entries.length} check(s) had passed; the rest are errors saying so.`
      : result.passed
        ? `All ${result.entries.length} check(s) passed.`
        : `${failed} of ${result.entries.length} check(s) did not pass: ${describeFailedChecks(result)}.`,
    outputs: { outcome: result.cancelled ? 'cancelled' : result.passed ? 'succeeded' : 'failed' },
    summary: '',
    notes: [],
    failStep: true,
    checks: result,
  };
};
