// JSON Schema for `is-json` and `contains-json`: compiled once, when the checks file is read, with
// a real validator (Ajv); a schema that does not compile is a mistake in the file. Its `pattern`s
// (and `patternProperties`) run on RE2, like every other pattern here: a reply can never make one
// backtrack for ever. A pattern RE2 cannot run is refused, naming the pattern.
import { Ajv, type CodeOptions } from 'ajv';
import { RE2JS } from 're2js';
import { patternProblem } from '../shared/pattern.js';

export interface SchemaCheck {
  /** The schema as written, for messages. */
  source: string;
  validate(value: unknown): boolean;
}

/** A schema pattern RE2 refuses (backreferences, lookaround): the reader names its line. */
export class SchemaPatternError extends Error {
  override name = 'SchemaPatternError';
  constructor(
    readonly pattern: string,
    readonly problem: string,
  ) {
    super(`the pattern ${JSON.stringify(pattern)} is not one RE2 can run (${problem})`);
  }
}

/** Ajv's regular expression engine, as RE2: linear in the text, whatever the pattern. */
const re2: NonNullable<CodeOptions['regExp']> = Object.assign(
  (pattern: string) => {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (err) {
      throw new SchemaPatternError(pattern, patternProblem(err));
    }
    return { test: (text: string) => compiled.matcher(text).find(), toString: () => `/${pattern}/` };
  },
  { code: 're2js' },
);

let ajv: Ajv | undefined;

/**
 * The deepest a schema may nest (objects and lists): ajv's compile time grows faster than the
 * schema with its depth (250 schemas chained by anchors, each one level deeper, took 20 s). Far
 * past a real one: each level of `properties` is two.
 */
export const MAX_SCHEMA_DEPTH = 64;

/**
 * The values (nodes) of all the schemas one file may have compiled, YAML and JSON text alike:
 * ajv spends about 0.2 ms a value (more as a schema widens), so this holds a file's schemas to
 * about two seconds; a real file's are a few hundred values. A schema compiled before is reused.
 */
export const MAX_SCHEMA_NODES_PER_FILE = 10_000;

/** What is left of one file's MAX_SCHEMA_NODES_PER_FILE: one per file being read. */
export interface SchemaBudget {
  nodesLeft: number;
}

const budgets = new WeakMap<object, SchemaBudget>();

/** The schema budget of the file `owner` stands for (made on first use). */
export function schemaBudgetOf(owner: object): SchemaBudget {
  let budget = budgets.get(owner);
  if (!budget) budgets.set(owner, (budget = { nodesLeft: MAX_SCHEMA_NODES_PER_FILE }));
  return budget;
}

/** Compiled validators by their schema's JSON text: the same schema written again compiles once. */
const compiled = new Map<string, (value: unknown) => boolean>();
/** Distinct schemas kept; past it the cache (and ajv's own) starts again, so memory stays bounded. */
const MAX_CACHED_SCHEMAS = 1000;

/**
 * The values in `value`, counted up to `limit` + 1 (the walk stops there, so it is never more
 * work than the bound); throws when it nests deeper than MAX_SCHEMA_DEPTH.
 */
function countNodes(value: unknown, limit: number): number {
  let count = 0;
  const walk = (item: unknown, depth: number): void => {
    count++;
    if (count > limit || typeof item !== 'object' || item === null) return;
    if (depth >= MAX_SCHEMA_DEPTH) throw new Error(`a JSON Schema nested at most ${MAX_SCHEMA_DEPTH} levels deep`);
    for (const child of Object.values(item)) {
      walk(child, depth + 1);
      if (count > limit) return;
    }
  };
  walk(value, 0);
  return count;
}

/**
 * Compiles `schema`; throws with Ajv's reason (or a SchemaPatternError) when it is not usable, or
 * when compiling it would take `budget` (its file's) past MAX_SCHEMA_NODES_PER_FILE values.
 */
export function compileSchema(
  schema: unknown,
  budget: SchemaBudget = { nodesLeft: MAX_SCHEMA_NODES_PER_FILE },
): SchemaCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('a JSON Schema is an object, such as {type: object, required: [id]}');
  }
  const nodes = countNodes(schema, MAX_SCHEMA_NODES_PER_FILE);
  if (nodes > MAX_SCHEMA_NODES_PER_FILE) throw budgetError();
  const source = JSON.stringify(schema);
  let validate = compiled.get(source);
  if (!validate) {
    if (nodes > budget.nodesLeft) {
      throw budgetError();
    }
    budget.nodesLeft -= nodes;
    if (compiled.size >= MAX_CACHED_SCHEMAS || !ajv) {
      compiled.clear();
      ajv = new Ajv({ allErrors: false, strict: false, validateFormats: false, code: { regExp: re2 } });
    }
    const check = ajv.compile(schema);
    validate = (value) => check(value) === true;
    compiled.set(source, validate);
    schemaCompiles.count++;
  }
  return { source: source.length > 120 ? `${source.slice(0, 120)}…` : source, validate };
}

const budgetError = () => new Error(`JSON Schemas of at most ${MAX_SCHEMA_NODES_PER_FILE} values in all in one file`);

/** How many schemas ajv has compiled (cache misses), for tests. */
export const schemaCompiles = { count: 0 };
