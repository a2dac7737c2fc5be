// JSON Schema for `is-json` and `contains-json`: compiled once, when the checks file is read, with
// a real validator (Ajv); a schema that does not compile is a mistake in the file.
import { Ajv } from 'ajv';

export interface SchemaCheck {
  /** The schema as written, for messages. */
  source: string;
  validate(value: unknown): boolean;
}

let ajv: Ajv | undefined;

/** Compiles `schema`; throws with Ajv's reason when it is not a usable JSON Schema. */
export function compileSchema(schema: unknown): SchemaCheck {
  ajv ??= new Ajv({ allErrors: false, strict: false, validateFormats: false });
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('a JSON Schema is an object, such as {type: object, required: [id]}');
  }
  const validate = ajv.compile(schema);
  const source = JSON.stringify(schema);
  return { source: source.length > 120 ? `${source.slice(0, 120)}…` : source, validate: (v) => validate(v) === true };
}
