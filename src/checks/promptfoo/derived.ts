// promptfoo's `derivedMetrics`: named expressions over a prompt's named metrics (their sums over
// its tests) and `__count` (its tests), shown beside them in the output file. promptfoo evaluates
// them with mathjs; this reads the arithmetic part of it (numbers, names, + - * / ^ and
// parentheses), parsed when the file is read, evaluated without any code: a function call or any
// other syntax is refused, naming it. They are reports: no verdict depends on them.
import { type Obj, type Places, isObj, show } from './located.js';

type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'name'; name: string }
  | { kind: 'neg'; arg: Expr }
  | { kind: 'bin'; op: string; left: Expr; right: Expr };

export interface DerivedMetric {
  name: string;
  /** The expression as written. */
  value: string;
  expr: Expr;
}

const TOKEN = /\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)|([A-Za-z_][A-Za-z0-9_]*)|(.))/y;

/** Parses an expression, or throws what it cannot read. */
export function parseExpression(source: string): Expr {
  const tokens: { num?: number; name?: string; op?: string }[] = [];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (TOKEN.lastIndex < source.length && (m = TOKEN.exec(source))) {
    if (m[1] !== undefined) tokens.push({ num: Number(m[1]) });
    else if (m[2] !== undefined) tokens.push({ name: m[2] });
    else if (m[3] !== undefined) {
      if (!'+-*/^(),'.includes(m[3])) throw new Error(`${show(m[3])} is not an operator this project evaluates`);
      tokens.push({ op: m[3] });
    }
  }
  let i = 0;
  const peek = (): { num?: number; name?: string; op?: string } | undefined => tokens[i];
  const expectOp = (op: string): void => {
    if (peek()?.op !== op) throw new Error(`expected '${op}'`);
    i++;
  };
  const primary = (): Expr => {
    const t = tokens[i++];
    if (!t) throw new Error('the expression ends early');
    if (t.num !== undefined) return { kind: 'num', value: t.num };
    if (t.name !== undefined) {
      if (peek()?.op === '(')
        throw new Error(`it calls ${t.name}(…), a function: expected arithmetic (+ - * / ^) over metric names`);
      return { kind: 'name', name: t.name };
    }
    if (t.op === '(') {
      const inner = sum();
      expectOp(')');
      return inner;
    }
    if (t.op === '-') return { kind: 'neg', arg: power() };
    if (t.op === '+') return power();
    throw new Error(`unexpected '${t.op ?? ''}'`);
  };
  const power = (): Expr => {
    const base = primary();
    if (peek()?.op === '^') {
      i++;
      return { kind: 'bin', op: '^', left: base, right: unary() };
    }
    return base;
  };
  const unary = (): Expr => power();
  const product = (): Expr => {
    let left = unary();
    while (peek()?.op === '*' || peek()?.op === '/') {
      const op = tokens[i++].op!;
      left = { kind: 'bin', op, left, right: unary() };
    }
    return left;
  };
  const sum = (): Expr => {
    let left = product();
    while (peek()?.op === '+' || peek()?.op === '-') {
      const op = tokens[i++].op!;
      left = { kind: 'bin', op, left, right: product() };
    }
    return left;
  };
  const expr = sum();
  if (i < tokens.length) throw new Error(`unexpected ${show(tokens[i].op ?? tokens[i].name ?? tokens[i].num)}`);
  return expr;
}

/** The value, or undefined when it names a metric not there (promptfoo then keeps 0). */
export function evaluate(expr: Expr, scope: Record<string, number>): number | undefined {
  switch (expr.kind) {
    case 'num':
      return expr.value;
    case 'name':
      return Object.prototype.hasOwnProperty.call(scope, expr.name) ? scope[expr.name] : undefined;
    case 'neg': {
      const v = evaluate(expr.arg, scope);
      return v === undefined ? undefined : -v;
    }
    case 'bin': {
      const l = evaluate(expr.left, scope);
      const r = evaluate(expr.right, scope);
      if (l === undefined || r === undefined) return undefined;
      return expr.op === '+'
        ? l + r
        : expr.op === '-'
          ? l - r
          : expr.op === '*'
            ? l * r
            : expr.op === '/'
              ? l / r
              : l ** r;
    }
  }
}

/** Each derived metric in order, each seeing the ones before it, as promptfoo evaluates them. */
export function derive(metrics: DerivedMetric[], named: Record<string, number>, count: number): Record<string, number> {
  const scope: Record<string, number> = { ...named, __count: count };
  const out: Record<string, number> = {};
  for (const metric of metrics) {
    const value = evaluate(metric.expr, scope);
    out[metric.name] = value === undefined || !Number.isFinite(value) ? 0 : value;
    scope[metric.name] = out[metric.name];
  }
  return out;
}

export function readDerivedMetrics(top: Obj, places: Places): DerivedMetric[] {
  const list = top.derivedMetrics;
  if (list === undefined) return [];
  if (!Array.isArray(list))
    return places.fail(top, 'derivedMetrics', "'derivedMetrics' is not a list: expected {name, value} entries");
  return list.map((entry) => {
    if (!isObj(entry) || typeof entry.name !== 'string' || typeof entry.value !== 'string')
      return places.fail(
        isObj(entry) ? entry : list,
        undefined,
        `a derived metric is ${show(entry)}: expected {name, value} with value an expression such as 'precision * 2'`,
      );
    const extra = Object.keys(entry).find((k) => k !== 'name' && k !== 'value');
    if (extra) places.fail(entry, extra, `unknown key '${extra}' in a derived metric: expected 'name' and 'value'`);
    try {
      return { name: entry.name, value: entry.value, expr: parseExpression(entry.value) };
    } catch (err) {
      return places.fail(
        entry,
        'value',
        `the derived metric ${show(entry.name)} is ${show(entry.value)}, which cannot be evaluated here: ${(err as Error).message}`,
      );
    }
  });
}
