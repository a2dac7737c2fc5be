// The reply is JSON (`is-json`) or holds a JSON object (`contains-json`), optionally one a JSON
// Schema accepts; the schema is compiled when the file is read, so a broken one has its line.
import { type Node, isPair, isScalar, visit } from 'yaml';
import { readJson } from '../../api/json.js';
import type { Entry, YamlFile } from '../../config/yaml-file.js';
import { parseYamlValue } from '../../config/yaml-file.js';
import { PATTERN_EXPECTED } from '../../shared/pattern.js';
import { jsonValuesIn } from '../json-in-text.js';
import type { AssertContext } from '../promptfoo/assert-context.js';
import type { Obj } from '../promptfoo/located.js';
import { type SchemaCheck, SchemaPatternError, compileSchema, schemaBudgetOf } from '../schema.js';
import { type Family, assertionName } from './family.js';

export interface JsonAssertion {
  type: 'is-json' | 'contains-json';
  negate: boolean;
  schema?: SchemaCheck;
}

/** Deeper than any reply's JSON a check means: JSON.parse's time grows faster than the text past it. */
const MAX_REPLY_JSON_DEPTH = 1000;

function parsesAsJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const read = readJson(text, MAX_REPLY_JSON_DEPTH);
  return read.ok ? { ok: true, value: read.value } : { ok: false };
}

function holds(a: JsonAssertion, text: string): boolean {
  if (a.type === 'is-json') {
    const json = parsesAsJson(text);
    return json.ok && (!a.schema || a.schema.validate(json.value));
  }
  // Objects, as promptfoo looks for them: a bare array such as [1, 2] is not one.
  const found = jsonValuesIn(text, { objectsOnly: true });
  return a.schema ? found.some((v) => a.schema!.validate(v)) : found.length > 0;
}

export const json: Family<JsonAssertion> = {
  names: ['is-json', 'contains-json'],
  native: {
    value: 'optional',
    read: ({ file, type, negate, value }) => ({
      type: type as JsonAssertion['type'],
      negate,
      schema: value ? readSchema(file, value) : undefined,
    }),
  },
  promptfoo: ({ type, negate, value, a, ctx }) => ({
    type,
    negate,
    schema: value === undefined || value === '' ? undefined : schemaOf(a, value, ctx),
  }),
  evaluation: { holds },
  describe: (a) => (a.schema ? `${assertionName(a)} (schema ${a.schema.source})` : assertionName(a)),
};

/**
 * A JSON Schema written as YAML (aliases resolved as YAML defines them), or as JSON text; compiled
 * now, so a broken one, or a pattern RE2 cannot run, is found with its line.
 */
function readSchema(file: YamlFile, entry: Entry): SchemaCheck {
  let schema: unknown;
  if (isScalar(entry.value) && typeof entry.value.value === 'string') {
    try {
      schema = JSON.parse(entry.value.value);
    } catch {
      file.failValue(entry, 'a JSON Schema: a mapping, or its JSON text');
    }
  } else {
    schema = file.plain(entry.value);
  }
  try {
    return compileSchema(schema, schemaBudgetOf(file));
  } catch (err) {
    if (err instanceof SchemaPatternError) {
      file.fail(
        patternNode(entry.value, err.pattern) ?? entry.value,
        `the schema's pattern ${JSON.stringify(err.pattern)} is not RE2: expected ${PATTERN_EXPECTED} (${err.problem})`,
      );
    }
    file.failValue(
      entry,
      `a JSON Schema that compiles (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
    );
  }
}

/** Where a schema's pattern is written: a `pattern` value, or a key of `patternProperties`. */
function patternNode(root: Node | null, pattern: string): Node | undefined {
  let found: Node | undefined;
  visit(root, {
    Pair(_, pair, path) {
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      const parent = path.at(-2);
      const underPatternProperties =
        isPair(parent) && isScalar(parent.key) && parent.key.value === 'patternProperties' && key === pattern;
      if (underPatternProperties) found = pair.key as Node;
      else if (key === 'pattern' && isScalar(pair.value) && pair.value.value === pattern) found = pair.value;
      return found ? visit.BREAK : undefined;
    },
  });
  return found;
}

/** A promptfoo config's schema: a mapping, or its JSON or YAML text. */
function schemaOf(a: Obj, value: unknown, ctx: AssertContext): SchemaCheck {
  let schema = value;
  if (typeof value === 'string') {
    try {
      schema = parseYamlValue(value) as unknown;
    } catch {
      ctx.places.fail(a, 'value', "'value' is not a JSON Schema: expected a mapping, or its JSON or YAML text");
    }
  }
  try {
    return compileSchema(schema, schemaBudgetOf(ctx.places));
  } catch (err) {
    return ctx.places.fail(
      a,
      'value',
      `'value' is not a JSON Schema that compiles (${(err as Error).message.split('\n')[0]})`,
    );
  }
}
