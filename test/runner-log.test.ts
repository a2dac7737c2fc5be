// The demo's log reads as the Actions log viewer shows it, never as raw workflow commands.
import { describe, expect, it } from 'vitest';
import { viewLine } from './runner-log.ts';

function view(lines: string[]): string[] {
  const log = { inGroup: false };
  return lines.flatMap((line) => viewLine(line, log) ?? []);
}

describe('the runner log view', () => {
  it('hides masks and debug lines, draws groups and annotations', () => {
    expect(
      view([
        '::add-mask::sim-demo-key-0123456789',
        '::group::Trigger: a deployment',
        '::debug::POST /v1/deployments → 201',
        'Triggered deployment dep_0001.',
        '::endgroup::',
        '::warning::the judge is slow%0Aretrying',
        '::error title=Claw deploy::100%25 failed',
        'Done.',
      ]),
    ).toEqual([
      '▾ Trigger: a deployment',
      '  Triggered deployment dep_0001.',
      'Warning: the judge is slow\n  retrying',
      'Error: 100% failed',
      'Done.',
    ]);
  });

  it('never shows a masked value', () => {
    expect(view(['::add-mask::s3cret']).join('\n')).not.toContain('s3cret');
  });
});
