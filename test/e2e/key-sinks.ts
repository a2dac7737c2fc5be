// Where the simulator's key could show after a run, and whether a reader would find it there.
import { readFileSync } from 'node:fs';
import { DEMO_KEY } from '../sim/server.ts';
import type { ActionRun } from './harness.ts';

/** What a reader takes from a text: compatibility forms read as their letters, marks and invisible characters unseen. */
export const reader = (text: string): string =>
  text.normalize('NFKC').replace(/[\p{M}\p{Default_Ignorable_Code_Point}]/gu, '');

/** The key as a reader could take it from a sink: itself, its base64 (either alphabet) or its hex. */
export function showsKey(text: string): string | undefined {
  const seen = reader(text);
  const b64 = Buffer.from(DEMO_KEY).toString('base64').replace(/=+$/, '');
  const forms = [DEMO_KEY, b64, b64.replace(/\+/g, '-').replace(/\//g, '_'), Buffer.from(DEMO_KEY).toString('hex')];
  return forms.find((form) => seen.toLowerCase().includes(form.toLowerCase()));
}

/** The run's sinks (the log without the ::add-mask:: line that hands the key to the runner). */
export const sinksOf = (run: ActionRun, files: string[]): Record<string, string> => ({
  log: run.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n'),
  summary: run.summary,
  outputs: JSON.stringify(run.outputs),
  ...Object.fromEntries(files.map((f) => [f, readFileSync(f, 'utf8')])),
});
