import { describe, expect, it } from 'vitest';
import { Redactor } from '../api/redact.js';
import { inputSecrets, isPostState, readLeftInFlight, runnerLogger, stateWriter } from './runner.js';

function memoryStore() {
  const saved = new Map<string, string>();
  return {
    saved,
    save: (name: string, value: string) => void saved.set(name, value),
    get: (name: string) => saved.get(name) ?? '',
  };
}

describe('the state between the main and the post step', () => {
  it('reads back what the main step wrote', () => {
    const store = memoryStore();
    const state = stateWriter(store);
    expect(isPostState(store)).toBe(false);
    state.markMain();
    state.deployment('dep_7', false);
    state.fleetInFlight(['dep_8', 'dep_9']);
    state.githubDeployment(42);
    expect(isPostState(store)).toBe(true);
    expect(readLeftInFlight(store)).toEqual({
      finished: false,
      deploymentId: 'dep_7',
      final: false,
      fleetInFlight: ['dep_8', 'dep_9'],
      githubDeploymentId: 42,
    });
    state.finished();
    expect(readLeftInFlight(store).finished).toBe(true);
  });

  it('reads anything unusable as nothing left in flight', () => {
    const store = memoryStore();
    store.save('deployment-id', '../x');
    store.save('fleet-in-flight', '["ok_1", 3, "../y", {}]');
    store.save('github-deployment-id', '-5');
    expect(readLeftInFlight(store)).toMatchObject({ deploymentId: '', fleetInFlight: ['ok_1'], githubDeploymentId: 0 });
    store.save('fleet-in-flight', '{not json');
    store.save('github-deployment-id', '1e400');
    expect(readLeftInFlight(store)).toMatchObject({ fleetInFlight: [], githubDeploymentId: 0 });
  });
});

describe('the runner logger', () => {
  it('redacts every secret input and sanitizes workflow commands', () => {
    const inputs: Record<string, string> = {
      'api-key': ' key-Abc123Xyz789 ',
      'github-token': '',
      'state-secret': 'seal-Qwe456Rty',
    };
    const secrets = inputSecrets((name) => inputs[name] ?? '');
    expect(secrets).toEqual(['key-Abc123Xyz789', 'seal-Qwe456Rty']);
    const lines: string[] = [];
    const push = (line: string) => void lines.push(line);
    const log = runnerLogger(
      { info: push, warning: push, debug: push, startGroup: push, endGroup() {} },
      new Redactor(secrets),
    );
    log.warning('::error::the key key-Abc123Xyz789 and the seal c2VhbC1Rd2U0NTZSdHk=');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/^\s*::/);
    expect(lines[0]).not.toContain('key-Abc123Xyz789');
    expect(lines[0]).not.toContain(Buffer.from('seal-Qwe456Rty').toString('base64'));
  });
});
