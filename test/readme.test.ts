// The documentation must say what the code says: the reference's tables list every command and
// every input of the one input table (src/contract/inputs.ts) and every output of action.yml; the README's
// commands run as written on a fresh clone with Node.js 20; no page promises a version that the
// release workflow will not publish.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INPUTS } from '../src/contract/inputs.ts';
import { COMMANDS as TABLE } from '../src/core/run.ts';
import { ROOT, readActionYml } from './e2e/harness.ts';

/** The commands' names and summaries, from their definitions (the run's table). */
const COMMANDS = TABLE.map((c) => c.name);
const COMMAND_SUMMARIES = Object.fromEntries(TABLE.map((c) => [c.name, c.summary]));

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

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

describe('README and docs/', () => {
  const docs = documentation();
  const reference = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8');
  const action = readActionYml();
  const all = docs.map((d) => d.text).join('\n');

  it('lists every input of the input table with its default, and nothing else', () => {
    const rows = tableUnder(reference, '## Inputs');
    rows.delete('Input');
    expect([...rows.keys()].sort()).toEqual(INPUTS.map((input) => input.name).sort());
    for (const input of INPUTS) {
      const shown = rows.get(input.name)?.[1] ?? '';
      const expected = input.required ? 'required' : (input.default ?? '');
      expect(shown.replace(/^`|`$/g, ''), `default of ${input.name}`).toBe(expected);
    }
  });

  it('lists every command, in the Commands table and in the command input', () => {
    const commands = Object.keys(COMMAND_SUMMARIES).sort();
    expect(commands, 'every command has its summary in the input table').toEqual([...COMMANDS].sort());
    const rows = tableUnder(reference, '## Commands');
    rows.delete('command');
    expect([...rows.keys()].map((cell) => cell.replace(/`.*$/, '')).sort()).toEqual(commands);
    const row = tableUnder(reference, '## Inputs').get('command')?.[2] ?? '';
    // tableUnder strips a cell's outer backticks: the first name has lost its opening one.
    const named = [...row.matchAll(/`?([a-z-]+)`/g)].map((m) => m[1]);
    for (const command of commands) expect(named, `the command input's row names ${command}`).toContain(command);
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

  it('every workflow example uses the action in the form that works before the release: a commit SHA', () => {
    // Every step that uses the action, in a whole workflow or a snippet of one.
    const uses = docs.flatMap((page) =>
      [...page.text.matchAll(/```yaml\n([\s\S]*?)```/g)].flatMap((block) =>
        [...block[1].matchAll(/uses: (claw-deploy\/\S+)/g)].map((m) => `${page.path}: ${m[1]}`),
      ),
    );
    expect(uses).toHaveLength(20);
    // The quick start pins a real commit of main, so it runs as copied; the others say where one goes.
    const [quick, ...others] = uses;
    expect(quick).toMatch(/^README\.md: claw-deploy\/claw-deploy@[0-9a-f]{40}$/);
    for (const use of others) expect(use).toMatch(/: claw-deploy\/claw-deploy@<sha>$/);
    // The README says where the SHA comes from, before its first example, and that nothing is released.
    const readme = read('README.md');
    const quickStart = readme.indexOf('## Quick start');
    expect(readme.indexOf('**Nothing is released yet**')).toBeLessThan(quickStart);
    expect(readme.indexOf('git ls-remote https://github.com/claw-deploy/claw-deploy refs/heads/main')).toBeLessThan(
      quickStart,
    );
  });

  it("the quick start's commit is one of this repository's history (CI runs on a full clone)", () => {
    const readme = read('README.md');
    const quickStart = readme.slice(readme.indexOf('## Quick start'));
    const sha = /uses: claw-deploy\/claw-deploy@([0-9a-f]{40})/.exec(quickStart)?.[1];
    expect(sha, 'the quick start pins a full commit SHA').toBeDefined();
    expect(() =>
      execFileSync('git', ['cat-file', '-e', `${sha}^{commit}`], { cwd: ROOT, stdio: 'pipe' }),
    ).not.toThrow();
    // Until a release tag exists: then the quick start may pin the tag's commit instead.
    expect(readme).toContain('**Nothing is released yet**');
  });

  it('promises only the version package.json holds, which the release workflow publishes as its tag', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const release = readFileSync(join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8');
    // The release refuses a tag that is not v + package.json's version.
    expect(release).toContain('if [ "v$version" != "$TAG" ]');
    const pages = [...docs, ...['SECURITY.md', 'CHANGELOG.md'].map((path) => ({ path, text: read(path) }))];
    for (const page of pages) {
      for (const [, ref] of page.text.matchAll(/claw-deploy\/claw-deploy@([^\s`'"]+)/g)) {
        if (ref === '<sha>' || ref === '<full' || /^[0-9a-f]{40}$/.test(ref)) continue;
        expect(ref, `${page.path}: uses: claw-deploy/claw-deploy@${ref}`).toBe(`v${version}`);
      }
      for (const [, pinned] of page.text.matchAll(/(?<![\w/-])claw-deploy@([^\s`'"]+)/g)) {
        if (pinned !== 'X.Y.Z') expect(pinned, `${page.path}: claw-deploy@${pinned}`).toBe(version);
      }
    }
  });

  it("runs the README's commands as written on Node.js 20: npm scripts that exist, no TypeScript run by node", () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const readme = read('README.md');
    const local = readme.slice(readme.indexOf('## Try it locally'));
    const lines = [...local.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n'));
    const commands = lines.map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean);
    expect(commands.length).toBeGreaterThanOrEqual(8);
    for (const command of commands) {
      for (const [, script] of command.matchAll(/npm run ([\w:-]+)/g)) {
        expect(Object.keys(scripts), `"${command}" runs an npm script that exists`).toContain(script);
      }
      // The machine's node may be 20, which runs no .ts: TypeScript runs through an npm script.
      for (const [, file] of command.matchAll(/(?:^|[;&|]\s*)node (\S+)/g)) {
        expect(file, `"${command}" runs a file Node.js 20 can run`).toMatch(/\.c?js$/);
        expect(existsSync(join(ROOT, file)), `${file} exists`).toBe(true);
      }
      for (const [, file] of command.matchAll(/^cp (\S+)/g)) expect(existsSync(join(ROOT, file)), file).toBe(true);
    }
    // Every npm script the scripts themselves point at exists too (node test/…/x.ts).
    for (const script of Object.values(scripts)) {
      for (const [, file] of script.matchAll(/node (test\/\S+\.ts)/g))
        expect(existsSync(join(ROOT, file)), file).toBe(true);
    }
  });

  it('gives probe examples a Claw that only echoes the message cannot pass', () => {
    const yaml = [...all.matchAll(/probe-message: (.+)\n\s*probe-expect: (.+)\n/g)].map((m) => ({
      message: parse(m[1]) as string,
      expect: parse(m[2]) as string,
    }));
    const flags = [...all.matchAll(/--probe-message (\S+) --probe-expect (\S+)/g)].map((m) => ({
      message: m[1],
      expect: m[2],
    }));
    const probes = [...yaml, ...flags];
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
