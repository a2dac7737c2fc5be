// The length of every function in src/ as the TypeScript compiler reads it (tests left out):
// declarations, function expressions, arrow functions, methods, constructors and accessors, each
// counted from its first line to its last (a leading doc comment not included). Used by the
// structure test; `node test/structure/functions.ts` prints the figures.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { ROOT, sourceFiles } from './imports.ts';

export interface FunctionLength {
  /** `src/...:line`, where the function starts. */
  at: string;
  name: string;
  lines: number;
}

/** A function's name as a reader would look for it; an anonymous one is named by where it sits. */
function nameOf(node: ts.SignatureDeclaration, enclosing: string | undefined): string {
  const named = (n: ts.Node | undefined): string | undefined =>
    n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) ? n.text : undefined;
  let name = named(node.name);
  if (!name && ts.isConstructorDeclaration(node)) name = 'constructor';
  const parent = node.parent;
  if (
    !name &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  )
    name = named(parent.name);
  if (name) return name;
  return enclosing ? `(anonymous in ${enclosing})` : '(anonymous)';
}

/** Every function of one source text, outer ones before the functions inside them. */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node, enclosing: string | undefined): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const name = nameOf(node, enclosing);
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ at: `${file}:${first + 1}`, name, lines: last - first + 1 });
      enclosing = name;
    }
    ts.forEachChild(node, (child) => visit(child, enclosing));
  };
  visit(source, undefined);
  return found;
}

/** The functions of every file in src/ (tests and declaration files left out). */
export function sourceFunctions(): FunctionLength[] {
  return sourceFiles().flatMap((path) => functionLengths(relative(ROOT, path), readFileSync(path, 'utf8')));
}

/** The functions over `limit` lines, longest first, as `file:line name (N lines)`. */
export function over(functions: FunctionLength[], limit: number): string[] {
  return functions
    .filter((f) => f.lines > limit)
    .sort((a, b) => b.lines - a.lines || a.at.localeCompare(b.at))
    .map((f) => `${f.at} ${f.name} (${f.lines} lines)`);
}

if (import.meta.main) {
  const functions = sourceFunctions();
  const long = over(functions, 80);
  console.log(
    `${functions.length} functions in src/; ${long.length} over 80 lines, ${over(functions, 100).length} over 100`,
  );
  for (const line of long) console.log(`  ${line}`);
}
