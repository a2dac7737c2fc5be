// promptfoo's templates evaluated as data. Nunjucks' own parser reads the text (so a template
// means what it means to promptfoo); this walks the tree itself and never compiles or runs
// Nunjucks. The grammar is an allow-list: text, `{{ }}` output, literals (text, numbers, booleans,
// none, lists, mappings), variables and their own keys and items (`a.b`, `a['b']`, `a[0]`), `if`/
// `elif`/`else`, `for` (with `loop`, and `k, v` over a mapping), `set`, comparisons, `and`/`or`/
// `not`, arithmetic, `~`, `in`, `is` tests, inline if, and the filters of template-filters.ts. Any
// other node (a call, a macro, include/import/extends, a block, an extension) is refused with
// its line before anything renders, whichever branch it sits in. Values are plain data
// (template-data.ts), and one budget bounds the work and the text of one rendering.
import nunjucksParser from 'nunjucks/src/parser.js';
import {
  Budget,
  type Data,
  type DataObject,
  type Deadline,
  ITEM_COST,
  SafeText,
  STEP_COST,
  TemplateError,
  asData,
  compare,
  concat,
  contains,
  isList,
  isMapping,
  itemAt,
  keysOf,
  MAX_DEPTH,
  mapping,
  member,
  plus,
  toNumber,
  toText,
} from './template-data.js';
import { FILTERS, type FilterDef, type FilterKit, TESTS } from './template-filters.js';

export { TemplateError } from './template-data.js';

/** A node of Nunjucks' syntax tree, as its parser gives it. */
interface Node {
  typename: string;
  lineno: number;
  colno: number;
  [field: string]: unknown;
}

/** Nunjucks' parser, its module alone: the only part of Nunjucks used here (no compiler, no runtime). */
const parser = nunjucksParser as { parse(src: string, extensions: unknown[], opts: object): Node };

const ARITHMETIC = new Set(['Add', 'Sub', 'Mul', 'Div', 'FloorDiv', 'Mod', 'Pow']);
const COMPARE_OPS = new Set(['==', '===', '!=', '!==', '<', '>', '<=', '>=']);

const kids = (node: unknown): Node[] => ((node as { children?: Node[] } | null)?.children ?? []) as Node[];
const lineOf = (node: Node): number => node.lineno + 1;

function refuse(node: Node, message: string): never {
  throw new TemplateError('refused', message, lineOf(node));
}

/** A template's parsed tree, checked against the grammar. */
export interface Template {
  root: Node;
}

/** Parses and checks `source`: TemplateError ('invalid' when Nunjucks cannot read it, 'refused' outside the grammar). */
export function parseTemplate(source: string): Template {
  let root: Node;
  try {
    root = parser.parse(source, [], {});
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const at = /\[Line (\d+), Column \d+\]/.exec(raw);
    const reason = raw
      .replace(/^\(unknown path\)\s*/, '')
      .replace(/\[Line \d+, Column \d+\]/, '')
      .replace(/\s+/g, ' ')
      .trim();
    throw new TemplateError(
      'invalid',
      `it is not a template Nunjucks can read (${reason})`,
      at ? Number(at[1]) : undefined,
    );
  }
  nesting = 0;
  checkStatements(kids(root));
  return { root };
}

/** The statements allowed: text and output, if, for, set (and the bodies of a set or filter block). */
function checkStatements(nodes: Node[]): void {
  for (const node of nodes) checkStatement(node);
}

/** How deep the check is: a tree deeper than MAX_DEPTH is refused, so no walk overflows the stack. */
let nesting = 0;

function nested(node: Node, check: (node: Node) => void): void {
  if (++nesting > MAX_DEPTH) {
    refuse(node, `it nests more than ${MAX_DEPTH} deep (filters, operators or tags within each other)`);
  }
  try {
    check(node);
  } finally {
    nesting--;
  }
}

function checkStatement(node: Node): void {
  nested(node, checkStatementAt);
}

function checkExpression(node: Node): void {
  nested(node, checkExpressionAt);
}

function checkStatementAt(node: Node): void {
  switch (node.typename) {
    case 'NodeList':
      return checkStatements(kids(node));
    case 'Output':
      for (const child of kids(node)) if (child.typename !== 'TemplateData') checkExpression(child);
      return;
    case 'If':
      checkExpression(node.cond as Node);
      checkStatement(node.body as Node);
      if (node.else_) checkStatement(node.else_ as Node);
      return;
    case 'For': {
      const name = node.name as Node;
      const names = name.typename === 'Array' ? kids(name) : [name];
      if (names.length === 0 || names.some((n) => n.typename !== 'Symbol'))
        refuse(
          node,
          'it loops with a name that is not a plain name: expected {% for x in list %} or {% for k, v in mapping %}',
        );
      checkExpression(node.arr as Node);
      checkStatement(node.body as Node);
      if (node.else_) checkStatement(node.else_ as Node);
      return;
    }
    case 'Set':
      if ((node.targets as Node[]).some((t) => t.typename !== 'Symbol'))
        refuse(node, 'it sets something that is not a plain name: expected {% set name = value %}');
      if (node.value) checkExpression(node.value as Node);
      else checkCapture(node.body as Node);
      return;
    default:
      return refuseNode(node);
  }
}

function checkCapture(node: Node): void {
  if (node?.typename !== 'Capture') return refuseNode(node);
  checkStatement(node.body as Node);
}

function checkExpressionAt(node: Node): void {
  switch (node.typename) {
    case 'Literal': {
      const t = typeof node.value;
      if (node.value !== null && t !== 'string' && t !== 'number' && t !== 'boolean')
        refuse(node, 'it holds a regular expression: expected text, numbers, booleans, none, lists and mappings');
      return;
    }
    case 'Symbol':
      return;
    case 'LookupVal':
      checkExpression(node.target as Node);
      return checkExpression(node.val as Node);
    case 'Group':
    case 'Array':
      return kids(node).forEach(checkExpression);
    case 'Dict':
      for (const pair of kids(node)) {
        const key = pair.key as Node;
        if (key.typename !== 'Symbol' && !(key.typename === 'Literal' && typeof key.value === 'string'))
          refuse(
            pair,
            "it writes a mapping whose key is not a name or a text: expected {name: value} or {'name': value}",
          );
        checkExpression(pair.value as Node);
      }
      return;
    case 'InlineIf':
      checkExpression(node.cond as Node);
      checkExpression(node.body as Node);
      if (node.else_) checkExpression(node.else_ as Node);
      return;
    case 'Not':
    case 'Neg':
    case 'Pos':
      return checkExpression(node.target as Node);
    case 'Or':
    case 'And':
    case 'In':
    case 'Concat':
      checkExpression(node.left as Node);
      return checkExpression(node.right as Node);
    case 'Is':
      return checkTest(node);
    case 'Compare':
      checkExpression(node.expr as Node);
      for (const op of node.ops as Node[]) {
        if (!COMPARE_OPS.has(op.type as string)) refuse(op, `it compares with '${String(op.type)}'`);
        checkExpression(op.expr as Node);
      }
      return;
    case 'Filter':
      return checkFilter(node);
    default:
      if (ARITHMETIC.has(node.typename)) {
        checkExpression(node.left as Node);
        return checkExpression(node.right as Node);
      }
      return refuseNode(node);
  }
}

function checkFilter(node: Node): void {
  const name = (node.name as Node).value as string;
  const filter = Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
  if (!filter)
    refuse(
      node,
      `it uses the filter '${name}', which is not one of the filters a template may use here: expected one of ${Object.keys(FILTERS).join(', ')}`,
    );
  const args = kids(node.args);
  args.forEach((arg, i) => {
    if (i === 0 && arg.typename === 'Capture') return checkCapture(arg);
    if (arg.typename !== 'KeywordArgs') return checkExpression(arg);
    for (const pair of kids(arg)) {
      const key = (pair.key as Node).value as string;
      if (!filter.params?.includes(key))
        refuse(
          pair,
          `it gives the filter '${name}' the named argument '${key}': ${filter.params ? `expected ${filter.params.join(', ')}` : 'this filter takes its arguments in order'}`,
        );
      checkExpression(pair.value as Node);
    }
  });
}

function checkTest(node: Node): void {
  checkExpression(node.left as Node);
  const right = node.right as Node;
  const call = right.typename === 'FunCall';
  const name = (call ? (right.name as Node).value : right.value) as string;
  if ((call && (right.name as Node).typename !== 'Symbol') || !Object.hasOwn(TESTS, name))
    refuse(node, `it tests 'is ${String(name)}': expected one of ${Object.keys(TESTS).join(', ')}`);
  if (call) kids(right.args).forEach(checkExpression);
}

/** The one refusal for a node outside the grammar, saying what it is. */
function refuseNode(node: Node | undefined): never {
  if (!node) throw new TemplateError('refused', 'it holds a statement a template here cannot hold');
  switch (node.typename) {
    case 'FunCall':
    case 'Caller':
    case 'Macro':
    case 'CallExtension':
    case 'CallExtensionAsync':
      return refuse(
        node,
        `it holds a function call${node.typename === 'Macro' ? ' (a macro)' : ''}: expected variables and filters only (a template is data: no calls, no macros)`,
      );
    case 'Include':
    case 'Import':
    case 'FromImport':
    case 'Extends':
      return refuse(
        node,
        'it includes, imports or extends another template, which would read a file: expected the text in the prompt itself (or a var given as file://)',
      );
    default:
      return refuse(
        node,
        `it holds ${node.typename === 'Block' || node.typename === 'Super' ? 'a block' : `'${node.typename}'`}, which a template here cannot hold: expected text, {{ values }}, if, for, set and filters`,
      );
  }
}

/** Options of one rendering. */
export interface EvaluateOptions {
  /** Printing a value that is not set is an error (Nunjucks' throwOnUndefined), rather than nothing. */
  strict: boolean;
  /** When the rendering must end (the step's timeout): past it, it is refused at its line. */
  deadline?: Deadline;
  /** Told, when the rendering ends (rendered or refused), the work it did and the largest value it held. */
  meter?: (spent: { work: number; held: number }) => void;
}

/** Renders a checked template with `vars`: text, or TemplateError. */
export function evaluate(template: Template, vars: Record<string, unknown>, options: EvaluateOptions): string {
  const evaluation = new Evaluation(vars, options);
  try {
    return evaluation.run(template.root);
  } finally {
    options.meter?.({ work: evaluation.budget.work, held: evaluation.budget.largest });
  }
}

/** Parses, checks and renders `source` with `vars`. */
export function renderTemplate(source: string, vars: Record<string, unknown>, options: EvaluateOptions): string {
  return evaluate(parseTemplate(source), vars, options);
}

/** Nunjucks' frames: a `for` opens one; `set` writes where the name already is, else in the innermost. */
type Frame = Map<string, Data | typeof UNSET>;

/**
 * A loop's name bound to nothing (an item's missing part): Nunjucks binds loop names to the
 * compiled code's own variables, so such a name hides an outer one of the same name.
 */
const UNSET = Symbol('unset');

class Evaluation {
  readonly budget: Budget;
  private readonly kit: FilterKit;
  private readonly frames: Frame[] = [new Map()];

  constructor(
    private readonly vars: Record<string, unknown>,
    private readonly options: EvaluateOptions,
  ) {
    this.budget = new Budget(options.deadline);
    this.kit = { budget: this.budget, strict: options.strict };
  }

  run(root: Node): string {
    const out: string[] = [];
    const size = { length: 0 };
    this.statements(kids(root), out, size);
    this.budget.charge(size.length);
    return out.join('');
  }

  private statements(nodes: Node[], out: string[], size: { length: number }): void {
    for (const node of nodes) this.statement(node, out, size);
  }

  private write(text: string, out: string[], size: { length: number }): void {
    this.budget.fits(size.length + text.length);
    this.budget.charge(text.length);
    size.length += text.length;
    out.push(text);
  }

  /** One statement; whatever ends it (a bound, a deadline) is told at its line. */
  private statement(node: Node, out: string[], size: { length: number }): void {
    this.at(node, () => this.statementAt(node, out, size));
  }

  private statementAt(node: Node, out: string[], size: { length: number }): void {
    this.budget.step();
    switch (node.typename) {
      case 'NodeList':
        return this.statements(kids(node), out, size);
      case 'Output':
        for (const child of kids(node)) {
          if (child.typename === 'TemplateData') {
            this.write(String(child.value ?? ''), out, size);
            continue;
          }
          const value = this.at(child, () => this.expression(child));
          if ((value === undefined || value === null) && this.options.strict)
            throw new TemplateError('unset', 'it prints a value that is not set', lineOf(child));
          this.write(
            this.at(child, () => toText(value, this.budget)),
            out,
            size,
          );
        }
        return;
      case 'If': {
        const cond = this.at(node, () => this.expression(node.cond as Node));
        if (cond) this.statement(node.body as Node, out, size);
        else if (node.else_) this.statement(node.else_ as Node, out, size);
        return;
      }
      case 'For':
        return this.loop(node, out, size);
      case 'Set': {
        const value = node.value
          ? this.at(node, () => this.expression(node.value as Node))
          : this.capture(node.body as Node);
        for (const target of node.targets as Node[]) this.assign(target.value as string, value);
        return;
      }
      default:
        return refuseNode(node);
    }
  }

  /** Runs `work` for `node`, giving an error without a line the node's line. */
  private at<T>(node: Node, work: () => T): T {
    try {
      return work();
    } catch (err) {
      if (err instanceof TemplateError && err.line === undefined)
        throw new TemplateError(err.kind, err.message, lineOf(node));
      throw err;
    }
  }

  private capture(node: Node): string {
    const out: string[] = [];
    this.statement(node.body as Node, out, { length: 0 });
    return out.join('');
  }

  private assign(name: string, value: Data): void {
    this.budget.charge(this.frames.length * ITEM_COST);
    const frame =
      [...this.frames].reverse().find((f) => f.get(name) !== undefined) ?? this.frames[this.frames.length - 1];
    frame.set(name, value);
  }

  private loop(node: Node, out: string[], size: { length: number }): void {
    const arr = this.at(node, () => this.expression(node.arr as Node));
    const nameNode = node.name as Node;
    const names = (nameNode.typename === 'Array' ? kids(nameNode) : [nameNode]).map((n) => n.value as string);
    let length: number | undefined;
    // Nunjucks: a list (or a text) by its items; with several names, a list's items by their items,
    // and anything else by JavaScript's for…in: a mapping's keys, a text's positions.
    let turn: ((i: number) => Data[]) | undefined;
    // A text marked safe is an object to Nunjucks: iterated, it gives its letters by code point.
    const items = arr instanceof SafeText ? this.at(node, () => this.letters(arr.text)) : arr;
    if (items && (isList(items) || (typeof items === 'string' && names.length === 1))) {
      length = items.length;
      turn = names.length === 1 ? (i) => [itemAt(items, i)] : (i) => names.map((_, u) => itemAt(itemAt(items, i), u));
    } else if (typeof items === 'string' && items) {
      length = items.length;
      turn = (i) => [String(i), items[i]];
    } else if (items && names.length > 1 && isMapping(items)) {
      const keys = this.at(node, () => keysOf(items, this.budget));
      length = keys.length;
      turn = (i) => [keys[i], items[keys[i]]];
    } else if (items && names.length > 1) length = 0;
    if (turn && length) {
      const frame: Frame = new Map();
      this.frames.push(frame);
      try {
        for (let i = 0; i < length; i++) {
          // A turn: its names bound and its `loop` built (measured: the dearest node).
          this.budget.charge(4 * STEP_COST);
          const values = this.at(node, () => turn(i));
          // The names the turn binds (all of them over a list; the key and value otherwise).
          values.forEach((value, u) => {
            if (u < names.length) frame.set(names[u], value === undefined ? UNSET : value);
          });
          frame.set(
            'loop',
            mapping([
              ['index', i + 1],
              ['index0', i],
              ['revindex', length - i],
              ['revindex0', length - i - 1],
              ['first', i === 0],
              ['last', i === length - 1],
              ['length', length],
            ]),
          );
          this.statement(node.body as Node, out, size);
        }
      } finally {
        this.frames.pop();
      }
    }
    if (node.else_ && !length) this.statement(node.else_ as Node, out, size);
  }

  /** A text's letters by code point (Array.from), as Nunjucks iterates an object with an iterator. */
  private letters(text: string): string[] {
    this.budget.list(text.length);
    return Array.from(text);
  }

  private lookup(name: string): Data {
    this.budget.charge(this.frames.length * ITEM_COST);
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const value = this.frames[i].get(name);
      if (value === UNSET) return undefined;
      if (value !== undefined) return value;
    }
    return Object.hasOwn(this.vars, name) ? asData(this.vars[name]) : undefined;
  }

  private expression(node: Node): Data {
    this.budget.step();
    const left = (): Data => this.expression(node.left as Node);
    const right = (): Data => this.expression(node.right as Node);
    const num = (v: Data): number => toNumber(v, this.budget);
    switch (node.typename) {
      case 'Literal':
        return node.value as Data;
      case 'Symbol':
        return this.lookup(node.value as string);
      case 'LookupVal':
        return member(this.expression(node.target as Node), this.expression(node.val as Node), this.budget);
      case 'Group': {
        let last: Data;
        for (const child of kids(node)) last = this.expression(child);
        return last;
      }
      case 'Array':
        this.budget.list(kids(node).length);
        return kids(node).map((child) => this.expression(child));
      case 'Dict': {
        const out: DataObject = mapping();
        this.budget.list(kids(node).length);
        for (const pair of kids(node)) {
          const key = (pair.key as Node).value as string;
          this.budget.charge(key.length);
          out[key] = this.expression(pair.value as Node);
        }
        return out;
      }
      case 'InlineIf':
        if (this.expression(node.cond as Node)) return this.expression(node.body as Node);
        return node.else_ ? this.expression(node.else_ as Node) : '';
      case 'Or':
        return left() || right();
      case 'And':
        return left() && right();
      case 'Not':
        return !this.expression(node.target as Node);
      case 'Neg':
        return -num(this.expression(node.target as Node));
      case 'Pos':
        return +num(this.expression(node.target as Node));
      case 'In': {
        const key = left();
        return contains(key, right(), this.budget);
      }
      case 'Concat': {
        const a = left();
        return concat(a, right(), this.budget);
      }
      case 'Add': {
        const a = left();
        return plus(a, right(), this.budget);
      }
      case 'Sub':
      case 'Mul':
      case 'Div':
      case 'FloorDiv':
      case 'Mod':
      case 'Pow': {
        const a = num(left());
        const b = num(right());
        if (node.typename === 'Sub') return a - b;
        if (node.typename === 'Mul') return a * b;
        if (node.typename === 'Div') return a / b;
        if (node.typename === 'FloorDiv') return Math.floor(a / b);
        if (node.typename === 'Mod') return a % b;
        return Math.pow(a, b);
      }
      case 'Compare': {
        // Nunjucks compiles `a < b < c` to JavaScript's `a < b < c`: from the left, not chained.
        let result = this.expression(node.expr as Node);
        for (const op of node.ops as Node[])
          result = compare(op.type as string, result, this.expression(op.expr as Node), this.budget);
        return result;
      }
      case 'Is':
        return this.test(node);
      case 'Filter':
        return this.filter(node);
      default:
        return refuseNode(node);
    }
  }

  private test(node: Node): boolean {
    const value = this.expression(node.left as Node);
    const right = node.right as Node;
    const call = right.typename === 'FunCall';
    const name = (call ? (right.name as Node).value : right.value) as string;
    const arg = call ? kids(right.args).map((a) => this.expression(a))[0] : undefined;
    return TESTS[name](this.kit, value, arg);
  }

  private filter(node: Node): Data {
    const name = (node.name as Node).value as string;
    const filter = FILTERS[name];
    const [first, ...rest] = kids(node.args);
    const value = first.typename === 'Capture' ? this.capture(first) : this.expression(first);
    const args: Data[] = [];
    for (const arg of rest) {
      if (arg.typename !== 'KeywordArgs') {
        args.push(this.expression(arg));
        continue;
      }
      for (const pair of kids(arg))
        args[filter.params!.indexOf((pair.key as Node).value as string)] = this.expression(pair.value as Node);
    }
    // A filter walks its list and may build another: both are charged, so a loop over a filter
    // of a long list (`big | reverse` k times) costs k × n, never k steps.
    return this.at(node, () => {
      if (Array.isArray(value)) this.kit.budget.list(value.length);
      const out = this.runFilter(name, filter, value, args);
      if (Array.isArray(out)) this.kit.budget.list(out.length);
      return out;
    });
  }

  /** A filter given a text marked safe runs as Nunjucks runs it there (FilterDef.safe), or is refused. */
  private runFilter(name: string, filter: FilterDef, value: Data, args: Data[]): Data {
    if (!(value instanceof SafeText) || filter.safe === 'own') return filter.run(this.kit, value, args);
    if (!filter.safe)
      throw new TemplateError(
        'refused',
        `the filter '${name}' is given a text marked safe (by safe or escape), which Nunjucks reads as an object, not as its letters: apply '${name}' before 'safe' or 'escape'`,
      );
    const out = filter.run(this.kit, value.text, args);
    return filter.safe === 'keeps' && typeof out === 'string' ? new SafeText(out) : out;
  }
}
