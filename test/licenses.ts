// `npm run package` runs this after ncc: dist/licenses.txt names every package bundled into dist/,
// with its license and its notice, read from webpack's stats. (ncc's own --license writes one file
// per chunk under the same name, so the last chunk's few packages were all it kept.)
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './e2e/harness.ts';

const stats = join(ROOT, 'dist', 'stats.json');
interface StatsModule {
  name?: string;
  modules?: StatsModule[];
}

/** The folder of each package a module of the bundle comes from (nested node_modules kept apart). */
const folders = new Set<string>();
const walk = (modules: StatsModule[] = []): void => {
  for (const m of modules) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec((m.name ?? '').replace(/^\.\//, ''));
    if (match) folders.add(match[1]);
    walk(m.modules);
  }
};
walk((JSON.parse(readFileSync(stats, 'utf8')) as { modules: StatsModule[] }).modules);
rmSync(stats);

const entries = [...folders].map((folder) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license?: string;
  };
  const file = readdirSync(join(ROOT, folder)).find((n) => /^(licen[cs]e|copying)/i.test(n));
  const text = file
    ? readFileSync(join(ROOT, folder, file), 'utf8').trim()
    : `(${pkg.license ?? 'no license'}: no notice file)`;
  return { name: `${pkg.name}@${pkg.version}`, license: pkg.license ?? 'unknown', text };
});
const unique = [...new Map(entries.map((e) => [e.name, e])).values()].sort((a, b) => (a.name < b.name ? -1 : 1));
writeFileSync(join(ROOT, 'dist', 'licenses.txt'), unique.map((e) => `${e.name}\n${e.license}\n${e.text}\n`).join('\n'));
console.log(`licenses: ${unique.length} bundled package(s) in dist/licenses.txt.`);
