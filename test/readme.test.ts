// The README's input and output tables must say what action.yml says.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, readActionYml } from './e2e/harness.ts';

/** The README's workflow examples, parsed. */
function workflowExamples(markdown: string): Record<string, unknown>[] {
  return [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => parse(m[1]) as Record<string, unknown>)
    .filter((doc) => typeof doc === 'object' && doc !== null && 'jobs' in doc);
}

type Step = { run?: string; uses?: string };

/** Rows of the Markdown table under a heading: first cell (unquoted) → the row's cells. */
function tableUnder(markdown: string, heading: string): Map<string, string[]> {
  const start = markdown.indexOf(heading);
  expect(start, `README has a "${heading}" section`).toBeGreaterThanOrEqual(0);
  const rows = new Map<string, string[]>();
  for (const line of markdown.slice(start).split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replace(/^`|`$/g, ''));
    rows.set(cells[0], cells);
  }
  return rows;
}

describe('README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const action = readActionYml();

  it('lists every input with its default, and nothing else', () => {
    const rows = tableUnder(readme, '## Inputs');
    rows.delete('Input');
    expect([...rows.keys()].sort()).toEqual(Object.keys(action.inputs).sort());
    for (const [name, spec] of Object.entries(action.inputs)) {
      const shown = rows.get(name)?.[1] ?? '';
      const expected = spec.required ? 'required' : (spec.default ?? '');
      expect(shown.replace(/^`|`$/g, ''), `default of ${name}`).toBe(expected);
    }
  });

  it('lists every output, and nothing else', () => {
    const rows = tableUnder(readme, '## Outputs');
    rows.delete('Output');
    expect([...rows.keys()].sort()).toEqual(Object.keys(action.outputs).sort());
  });

  it('passes outputs to shell steps through env:, never as ${{ }} inside a script', () => {
    const examples = workflowExamples(readme);
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const example of examples) {
      const jobs = Object.values(example.jobs as Record<string, { steps: Step[] }>);
      for (const step of jobs.flatMap((job) => job.steps)) {
        if (step.run !== undefined) expect(step.run, 'a run: script').not.toContain('${{');
      }
    }
  });

  it('gives every workflow example least permissions: deployments: write only with environment', () => {
    for (const example of workflowExamples(readme)) {
      const jobs = Object.values(
        example.jobs as Record<string, { steps: (Step & { with?: Record<string, string> })[] }>,
      );
      const mirrors = jobs.some((job) => job.steps.some((step) => step.with?.environment));
      expect(example.permissions).toEqual(mirrors ? { contents: 'read', deployments: 'write' } : { contents: 'read' });
    }
  });
});
