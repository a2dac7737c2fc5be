// The path rule, by generated cases: every spelling and link of a checkout's `.git` (case and
// Unicode variants where this file system folds them, `./` and `..` segments, doubled and trailing
// slashes, links to it, to its parent, chains of links, a nested repository's) is refused, and the
// benign neighbours (`.github/`, `.gitignore`, `git/`, `x.git`) are not. PROPERTY_RUNS sets the
// number of cases (200 in CI).
import { mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeProblem } from './place.js';

const RUNS = Number(process.env.PROPERTY_RUNS) || 200;

const dir = mkdtempSync(join(tmpdir(), 'claw-place-property-'));
for (const folder of ['.git/hooks', 'sub/.git', 'wt/meta/hooks', '.github/workflows', 'git', 'x.git', 'a/b']) {
  mkdirSync(join(dir, folder), { recursive: true });
}
for (const file of ['.git/config', 'sub/.git/config', '.github/workflows/ci.yml', '.gitignore', 'git/x', 'x.git/y']) {
  writeFileSync(join(dir, file), 'x');
}
// Links to Git's folder, to the folder above it, chains of them, and a benign one.
const LINKS: [name: string, target: string][] = [
  ['rootlink', '.'],
  ['gitlink', '.git'],
  ['gitlink2', 'gitlink'],
  ['cfglink', '.git/config'],
  ['a/b/up', '../../.git'],
  ['abslink', join(dir, '.git')],
  ['sublink', 'sub'],
  ['githublink', '.github'],
];
for (const [name, target] of LINKS) symlinkSync(target, join(dir, name));
// A worktree whose `.git` is a file pointing at its Git folder under another name.
writeFileSync(join(dir, 'wt', '.git'), 'gitdir: ./meta\n');
writeFileSync(join(dir, 'wt', 'meta', 'config'), 'x');
symlinkSync('wt/meta', join(dir, 'metalink'));

/** Whether `name` in the workspace is the checkout's `.git` itself (this file system may fold case or Unicode). */
function isGitFolder(name: string): boolean {
  try {
    const a = statSync(join(dir, name), { bigint: true });
    const b = statSync(join(dir, '.git'), { bigint: true });
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/** `.git` as written: itself, or a case or Unicode variant (the same folder only where the file system says so). */
const gitSpelling = fc.oneof(
  fc.constant('.git'),
  fc
    .tuple(fc.boolean(), fc.boolean(), fc.boolean())
    .map(([g, i, t]) => `.${g ? 'G' : 'g'}${i ? 'I' : 'i'}${t ? 'T' : 't'}`),
  fc.constantFrom('.git.', '.git ', '.g\u200Cit', '.gıt', '.GİT', '.\uFF47it', '.gi\u0074'.normalize('NFD')),
);

/** Where a path into Git's folder starts: written out, through the root's link, or a link into it. */
const route = fc.constantFrom(
  '',
  './',
  'rootlink/',
  'rootlink/rootlink/',
  'a/../',
  'a/b/../../',
  'nope/../',
  'sublink/',
  'sub/',
);
const gitLink = fc.constantFrom('gitlink', 'gitlink2', 'a/b/up', 'abslink');
const tail = fc.constantFrom(
  [],
  ['config'],
  ['hooks'],
  ['hooks', 'pre-commit'],
  ['new', 'deeper', 'x.txt'],
  ['hooks', '..', 'config'],
);
const decorate = (parts: readonly string[]) =>
  fc
    .tuple(fc.boolean(), fc.boolean(), fc.boolean())
    .map(
      ([dotted, doubled, trailing]) =>
        (dotted ? parts.flatMap((p) => ['.', p]) : parts).join(doubled ? '//' : '/') +
        (trailing && parts.length ? '/' : ''),
    );

/** A path into Git's folder (by construction, or where the spelling names the same folder), and whether it is. */
const intoGit = fc.oneof(
  fc
    .tuple(route, gitSpelling, tail)
    .chain(([prefix, spelt, rest]) =>
      decorate([spelt, ...rest]).map((path) => ({ path: prefix + path, into: spelt === '.git' || isGitFolder(spelt) })),
    ),
  fc.tuple(gitLink, tail).chain(([link, rest]) => decorate([link, ...rest]).map((path) => ({ path, into: true }))),
  fc
    .tuple(route, fc.constantFrom(['wt', 'meta'], ['metalink']), tail)
    .chain(([prefix, pointed, rest]) =>
      decorate([...pointed, ...rest]).map((path) => ({ path: prefix + path, into: !prefix.startsWith('sub') })),
    ),
  fc.constantFrom({ path: 'cfglink', into: true }, { path: './cfglink', into: true }),
);

const benign = fc
  .tuple(
    fc.constantFrom('', './', 'rootlink/', 'a/../'),
    fc.constantFrom(
      ['.github', 'workflows', 'ci.yml'],
      ['.gitignore'],
      ['git', 'x'],
      ['x.git', 'y'],
      ['githublink', 'workflows', 'ci.yml'],
      ['.gitmodules'],
      ['a', 'b', '.gitkeep'],
      ['.git2', 'config'],
      ['reports', 'git', 'out.xml'],
    ),
  )
  .chain(([prefix, parts]) => decorate(parts).map((path) => prefix + path));

describe("the path rule, by generated spellings and links of '.git'", () => {
  it('every path that reaches inside a Git folder is refused', () => {
    fc.assert(
      fc.property(intoGit, ({ path, into }) => {
        const problem = placeProblem(path, dir);
        // A spelling this file system keeps apart from `.git` names another (missing) folder: it may pass.
        if (into) expect(problem, path).toMatch(/'\.git', Git's own folder/);
        else if (problem) expect(problem, path).toMatch(/'\.git'|links outside/);
      }),
      { numRuns: RUNS },
    );
  });

  it('its benign neighbours are allowed', () => {
    fc.assert(
      fc.property(benign, (path) => {
        expect(placeProblem(path, dir), path).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });
});
