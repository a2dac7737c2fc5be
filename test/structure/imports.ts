// The import graph of src/ as the TypeScript compiler reads it: every static, type-only and
// dynamic import of a relative module (tests left out). Used by the structure test and by anyone
// who wants the figures (`node test/structure/imports.ts` prints circles and upward imports).
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** The source files of src/ (absolute paths): tests and declaration files left out. */
export function sourceFiles(): string[] {
  const files: string[] = [];
  (function walk(dir: string) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name)) files.push(path);
    }
  })(SRC);
  return files;
}

/** Each file of src/ (relative to the root, `src/...`) and the files of src/ it imports. */
export function importGraph(): Map<string, Set<string>> {
  const files = sourceFiles();
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = resolve(dirname(file), fileName).replace(/\.(m?js|cjs)$/, '');
      const target = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
      if (target && target !== file) targets.add(relative(ROOT, target));
    }
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

/** The folder of src/ a file sits in (`src/health/`), or null for a loose file at the root of src/. */
export function folderOf(file: string): string | null {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : null;
}

/** The graph of folders: a folder imports another when one of its files imports one of the other's. */
export function folderGraph(graph: Map<string, Set<string>>): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    if (!a) continue;
    for (const to of targets) {
      const b = folderOf(to);
      if (!b || b === a) continue;
      if (!folders.has(a)) folders.set(a, new Set());
      folders.get(a)!.add(b);
    }
  }
  return folders;
}

/** The circles: strongly connected components of more than one file (Tarjan's algorithm). */
export function circles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * The layers, top to bottom, as ARCHITECTURE.md draws them: a file may import its own layer and
 * the ones below, never one above. The first pattern a file matches gives its layer.
 */
export const LAYERS: { name: string; files: RegExp }[] = [
  { name: 'entries', files: /^src\/index\.ts$|^src\/(action|cli)\// },
  { name: 'run', files: /^src\/core\// },
  { name: 'commands', files: /^src\/commands\// },
  { name: 'contract', files: /^src\/contract\// },
  { name: 'features', files: /^src\/(checks|deploy|health|manifest|preview|github)\// },
  // The markup room every feature renders its own report with: Markdown, log lines, outputs.
  { name: 'markup', files: /^src\/report\// },
  { name: 'conversation', files: /^src\/conversation\// },
  { name: 'api', files: /^src\/api\/(client|shapes|chat-completions|context|poll)\.ts$/ },
  { name: 'transport', files: /^src\/api\// },
  // compare/, config/ and shared/: below every user of them.
  { name: 'shared', files: /^src\/(compare|config|shared)\// },
];

export function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => layer.files.test(file));
}

/** Imports from a lower layer to a higher one, as `from -> to`. */
export function upwardImports(graph: Map<string, Set<string>>): string[] {
  const up: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) if (layerOf(to) < layerOf(from)) up.push(`${from} -> ${to}`);
  }
  return up.sort();
}

if (import.meta.main) {
  const graph = importGraph();
  const found = circles(graph);
  for (const circle of found) console.log(`circle: ${circle.join(', ')}`);
  const up = upwardImports(graph);
  for (const line of up)
    console.log(
      `upward: ${line} (${LAYERS[layerOf(line.split(' -> ')[0])].name} -> ${LAYERS[layerOf(line.split(' -> ')[1])].name})`,
    );
  const imports = [...graph.values()].reduce((n, s) => n + s.size, 0);
  const rooms = circles(folderGraph(graph));
  for (const circle of rooms) console.log(`folder circle: ${circle.join(', ')}`);
  console.log(
    `${found.length} circles, ${rooms.length} folder circles, ${up.length} upward imports (${graph.size} files, ${imports} imports in src/)`,
  );
}
