// No function in src/ over 100 lines: a function that long decides and acts at once, and is read
// in pieces. Counted by the compiler's own parse (functions.ts), from a function's first line to its last.
import { describe, expect, it } from 'vitest';
import { functionLengths, over, sourceFunctions } from './functions.ts';

const LIMIT = 100;

describe('the length of functions in src/', () => {
  it(`has no function over ${LIMIT} lines`, () => {
    const functions = sourceFunctions();
    const long = over(functions, 80);
    // The figures for the closing note: how many are over 80, and the worst five.
    console.log(
      `${functions.length} functions in src/: ${long.length} over 80 lines, ${over(functions, LIMIT).length} over ${LIMIT}. The worst five:\n  ${long.slice(0, 5).join('\n  ')}`,
    );
    expect(over(functions, LIMIT)).toEqual([]);
  });

  it('counts declarations, arrow functions, methods and anonymous functions, each from its start to its end', () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const a${i} = ${i};`).join('\n');
    const text = [
      '/** A doc comment is not counted. */',
      `export function declared() {\n${body(3)}\n}`,
      `const arrow = (x: number) => {\n${body(4)}\n};`,
      `class Thing {\n  method() {\n${body(5)}\n  }\n}`,
      `export const handlers = { onEvent: function () {\n${body(6)}\n} };`,
      `run(() => {\n${body(101)}\n});`,
    ].join('\n');
    const found = functionLengths('src/example.ts', text);
    expect(found.map((f) => [f.name, f.lines, f.at])).toEqual([
      ['declared', 3, 'src/example.ts:2'],
      ['arrow', 4, 'src/example.ts:5'],
      ['method', 5, 'src/example.ts:10'],
      ['onEvent', 6, 'src/example.ts:16'],
      ['(anonymous)', 101, 'src/example.ts:22'],
    ]);
    expect(over(found, LIMIT)).toEqual(['src/example.ts:22 (anonymous) (101 lines)']);
  });
});
