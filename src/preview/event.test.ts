// What `preview` does on an event it does not follow: nothing, said as a notice a reader sees.
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../manifest/manifest.js';
import { policy } from '../../test/support/setup.ts';
import { sealKey } from '../shared/seal.js';
import { previewCommand } from '../commands/preview.js';
import type { PreviewDeps } from './request.js';

describe('preview on an event it does not follow', () => {
  it('a push gets a notice saying what previews follow, and fails nothing', async () => {
    const result = await previewCommand({} as PreviewDeps, {
      manifest: parseManifest('claws.yml', 'claws:\n  c1: {config: {name: A}}\n'),
      event: { name: 'push', action: '', headSha: 'abc' },
      previewClaws: 'changed',
      ttlMs: 0,
      maxPreviews: 10,
      failOn: 'regression',
      environment: '',
      strategy: '',
      payload: {},
      policy: policy(),
      redact: (t) => t,
      seal: sealKey('k-0123456789', 'o/r'),
    });
    expect(result).toMatchObject({ mode: 'none', ok: true, failStep: false });
    expect(result.notices).toEqual([
      'Nothing to preview on push: previews follow pull requests (opened, synchronize, reopened, labeled, closed) and sweep on schedule or workflow_dispatch.',
    ]);
  });
});
