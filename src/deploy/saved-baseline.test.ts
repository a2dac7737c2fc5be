// deploy's `baseline: saved`, between the history store and the service: the saved run is the
// baseline only while the Claw's live deployment is the one it was run on and reads succeeded;
// each refusal is one line, and the gate asks the live Claw instead.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEntry } from '../../test/support/check-entry.ts';
import { parseChecks } from '../checks/load.js';
import { configHash, suiteHashes } from '../checks/saved-run.js';
import { systemClock } from '../shared/clock.js';
import { folderHealthHost } from '../health/folder-host.js';
import { keepSavedRun } from '../health/saved-runs.js';
import { stateSealKey } from '../shared/seal.js';
import { statusClassifier } from '../shared/status.js';
import { savedBaseline } from './saved-baseline.js';

const suite = parseChecks(
  'checks.yml',
  'checks:\n  - name: q1\n    send: q1\n    assert:\n      - type: contains\n        value: ok\n',
);
const secrets = { stateSecret: '', apiKey: 'key-of-the-run' };
const raw = { id: 'c1', model: 'm1' };

async function world(live: { deploymentId: string; deploymentStatus: string }) {
  const host = folderHealthHost(mkdtempSync(join(tmpdir(), 'claw-saved-')));
  const lines: string[] = [];
  const log = {
    info: (m: string) => lines.push(m),
    warning: (m: string) => lines.push(`warning: ${m}`),
    debug: () => {},
  };
  const seal = stateSealKey(secrets, 'octo/claws');
  await keepSavedRun(
    { clock: systemClock, log },
    { branch: host.branch, name: 'hist', seal },
    {
      claw: 'c1',
      deployment: 'dep_1',
      at: Date.now() - 60_000,
      ...suiteHashes(suite, 'c1'),
      config: configHash(raw),
      entries: [checkEntry({ samples: [{ outcome: 'pass' }] })],
    },
  );
  lines.length = 0;
  const context = {
    settings: { history: 'hist', ...secrets },
    health: { host },
    github: { repository: 'octo/claws' },
    clock: systemClock,
    log,
    deadline: Date.now() + 60_000,
    client: { getClaw: () => Promise.resolve({ id: 'c1', ...live, raw }) },
  } as unknown as Parameters<typeof savedBaseline>[0];
  return { context, lines };
}

describe('baseline: saved against the live Claw', () => {
  it('is the baseline while the Claw is live on the deployment it was run on, and says it costs no request', async () => {
    const { context, lines } = await world({ deploymentId: 'dep_1', deploymentStatus: 'succeeded' });
    const saved = await savedBaseline(context, suite, 'c1', statusClassifier());
    expect(saved?.run.deployment).toBe('dep_1');
    expect(saved?.said).toMatch(
      /^the baseline costs 0 requests: the last gate's saved run of the live deployment dep_1 \(/,
    );
    expect(lines).toEqual([]);
  });

  it('is not used when that deployment no longer reads succeeded (rolled back in place)', async () => {
    const { context, lines } = await world({ deploymentId: 'dep_1', deploymentStatus: 'rolled_back' });
    expect(await savedBaseline(context, suite, 'c1', statusClassifier())).toBeUndefined();
    expect(lines).toEqual([
      `Baseline: the last gate's saved run of Claw c1 is not used (the Claw's live deployment dep_1 reads "rolled_back", not succeeded); the checks run on the live Claw before the trigger instead.`,
    ]);
  });
});
