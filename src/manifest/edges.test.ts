// Claws as code at its edges: a key that YAML reads as a number is the Claw as written, a cancel
// during apply says which writes were done, and a plan too large for its output keeps its shape.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, policy, setup } from '../../test/support/setup.ts';
import { planOutputs } from './plan-report.js';
import { applyCommand } from '../commands/manifest.js';
import { parseManifest } from './manifest.js';
import type { Plan } from './plan.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

describe('a Claw key YAML reads as a number', () => {
  it.each([
    ['007', '007'],
    ['1e3', '1e3'],
    ['0x1F', '0x1F'],
  ])('%s is the Claw %s, never the number it reads as', (key, id) => {
    const manifest = parseManifest('claws.yml', `claws:\n  ${key}:\n    config: {name: Bond}\n`);
    expect(manifest.claws.map((c) => c.id)).toEqual([id]);
  });
});

describe('a cancel during apply', () => {
  const options = {
    planId: '',
    rewriteSecrets: false,
    deployChanged: true,
    fleet: { strategy: '', payload: {}, waves: [], bakeMs: 0, maxFailures: { count: 0 }, probeMessage: '' },
  };

  it('says which writes were done, which one was on its way, and which were not sent', async () => {
    h = await setup();
    const harness = h;
    const cancel = new AbortController();
    harness.deps.signal = cancel.signal;
    // The cancel arrives while the second Claw's create is on its way.
    const info = harness.deps.log.info;
    harness.deps.log.info = (line: string) => {
      info(line);
      if (line.startsWith('Applied: create Claw a')) cancel.abort();
    };
    const manifest = parseManifest(
      'claws.yml',
      'claws:\n  a: {create: true, config: {name: A}}\n  b: {create: true, config: {name: B}}\n  c: {create: true, config: {name: C}}\n',
    );
    const result = await applyCommand(harness.deps, manifest, options, policy());
    expect(result).toMatchObject({ outcome: 'cancelled', ok: false });
    expect(result.message).toBe(
      'Apply was cancelled: 1 of 3 change(s) applied (create Claw a). Not sent: create Claw b; create Claw c. Nothing was deployed; run plan to see where the service stands.',
    );
    expect(harness.sim.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/v1/claws']);
  });
});

describe('the plan output', () => {
  it('keeps its object shape when cut: planId, changes, writeOnly, as many operations as fit, and why', () => {
    const plan: Plan = {
      manifest: 'claws.yml',
      id: '0123456789abcdef',
      changes: 20_000,
      writes: [],
      blocked: [],
      writeOnly: [{ clawId: 'c1', path: ['token'], diff: { changes: [], writeOnly: [] } }],
      operations: Array.from({ length: 20_000 }, (_, i) => ({
        kind: 'install-skill' as const,
        target: 'c1',
        skill: `skill-${i}-${'x'.repeat(20)}`,
      })),
    };
    const { outputs, notes } = planOutputs(plan);
    expect(Buffer.byteLength(outputs.plan)).toBeLessThanOrEqual(512 * 1024);
    const json = JSON.parse(outputs.plan) as Record<string, unknown> & { operations: unknown[] };
    expect(json).toMatchObject({
      manifest: 'claws.yml',
      planId: '0123456789abcdef',
      changes: 20_000,
      writeOnly: [{ clawId: 'c1', path: 'token' }],
    });
    expect(json.operations.length).toBeGreaterThan(1000);
    expect(json.operations.length).toBeLessThan(20_000);
    expect(json.cut).toBe(
      `the plan output holds ${json.operations.length} of 20000 operations (it is capped at 512 KiB); the whole plan is in the plan-json file`,
    );
    expect(notes).toHaveLength(1);
  });
});
