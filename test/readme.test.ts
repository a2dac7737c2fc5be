// The README's input and output tables must say what action.yml says.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
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

/** The README and every guide under docs/: the action's documentation, linted as one. */
export function documentation(): { path: string; text: string }[] {
  const guides = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...guides.map((name) => `docs/${name}`)].map((path) => ({
    path,
    text: readFileSync(join(ROOT, path), 'utf8'),
  }));
}

describe('README and docs/', () => {
  const docs = documentation();
  const reference = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8');
  const action = readActionYml();
  const all = docs.map((d) => d.text).join('\n');

  it('lists every input with its default, and nothing else', () => {
    const rows = tableUnder(reference, '## Inputs');
    rows.delete('Input');
    expect([...rows.keys()].sort()).toEqual(Object.keys(action.inputs).sort());
    for (const [name, spec] of Object.entries(action.inputs)) {
      const shown = rows.get(name)?.[1] ?? '';
      const expected = spec.required ? 'required' : (spec.default ?? '');
      expect(shown.replace(/^`|`$/g, ''), `default of ${name}`).toBe(expected);
    }
  });

  it('lists every output, and nothing else', () => {
    const rows = tableUnder(reference, '## Outputs');
    rows.delete('Output');
    expect([...rows.keys()].sort()).toEqual(Object.keys(action.outputs).sort());
  });

  it('passes outputs to shell steps through env:, never as ${{ }} inside a script', () => {
    const examples = workflowExamples(all);
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const example of examples) {
      const jobs = Object.values(example.jobs as Record<string, { steps: Step[] }>);
      for (const step of jobs.flatMap((job) => job.steps)) {
        if (step.run !== undefined) expect(step.run, 'a run: script').not.toContain('${{');
      }
    }
  });

  it('gives every workflow example least permissions: each beyond contents: read is one a step needs', () => {
    for (const example of workflowExamples(all)) {
      const steps = Object.values(
        example.jobs as Record<string, { steps: (Step & { with?: Record<string, unknown> })[] }>,
      ).flatMap((job) => job.steps);
      const expected: Record<string, string> = { contents: 'read' };
      // Health's history and page are commits to a branch; incidents are issues.
      const health = steps.filter((step) => step.with?.command === 'health');
      if (
        health.some(
          (s) => s.with?.history || String(s.with?.incidents) === 'true' || String(s.with?.['status-page']) === 'true',
        )
      )
        expected.contents = 'write';
      if (health.some((s) => String(s.with?.incidents) === 'true')) expected.issues = 'write';
      if (steps.some((step) => step.with?.environment)) expected.deployments = 'write';
      // The plan comment and previews (which read the pull request and keep their comment) write to it.
      if (steps.some((step) => String(step.with?.comment) === 'true' || step.with?.command === 'preview')) {
        expected['pull-requests'] = 'write';
      } else if (steps.some((step) => step.run?.includes('gh api') && step.run.includes('/pulls'))) {
        expected['pull-requests'] = 'read';
      }
      if (steps.some((step) => step.uses?.startsWith('dorny/test-reporter'))) expected.checks = 'write';
      expect(example.permissions).toEqual(expected);
    }
  });

  it('gives probe examples a Claw that only echoes the message cannot pass', () => {
    const probes = [...all.matchAll(/probe-message: (.+)\n\s*probe-expect: (.+)\n/g)].map((m) => ({
      message: parse(m[1]) as string,
      expect: parse(m[2]) as string,
    }));
    expect(probes.length).toBeGreaterThanOrEqual(3);
    for (const probe of probes) expect(new RegExp(probe.expect, 'i').test(probe.message), probe.message).toBe(false);
  });

  it('links only to guides that exist', () => {
    for (const doc of docs) {
      for (const [, target] of doc.text.matchAll(/\]\((?!https?:|#)([^)#]+)(?:#[^)]*)?\)/g)) {
        const base = doc.path.startsWith('docs/') ? join(ROOT, 'docs') : ROOT;
        expect(existsSync(join(base, target)), `${doc.path} links to ${target}`).toBe(true);
      }
    }
  });
});
