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

/** Compiles `schema`; throws with Ajv's reason (or a SchemaPatternError) when it is not usable. */
/**
 * The deepest a schema may nest (objects and lists): ajv's compile time grows faster than the
 * schema with its depth (250 schemas chained by anchors, each one level deeper, took 20 s). Far
 * past a real one: each level of `properties` is two.
 */
export const MAX_SCHEMA_DEPTH = 64;

/** Whether `value` nests deeper than MAX_SCHEMA_DEPTH: a walk of at most that depth, never deeper. */
function tooDeep(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth >= MAX_SCHEMA_DEPTH) return true;
  return Object.values(value).some((item) => tooDeep(item, depth + 1));
}

export function compileSchema(schema: unknown): SchemaCheck {
  if (tooDeep(schema)) throw new Error(`a JSON Schema nested at most ${MAX_SCHEMA_DEPTH} levels deep`);
  ajv ??= new Ajv({ allErrors: false, strict: false, validateFormats: false, code: { regExp: re2 } });
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('a JSON Schema is an object, such as {type: object, required: [id]}');
  }
  const validate = ajv.compile(schema);
  const source = JSON.stringify(schema);
  return { source: source.length > 120 ? `${source.slice(0, 120)}…` : source, validate: (v) => validate(v) === true };
}
