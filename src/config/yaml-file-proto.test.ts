// A `__proto__` key in a mapping read as plain data (a JSON Schema in a checks file) is an own key:
// assigned, it set the value's prototype, so Ajv applied keywords the schema shown (its JSON) hid.
import { describe, expect, it } from 'vitest';
import { compileSchema } from '../checks/schema.js';
import { YamlFile } from './yaml-file.js';

const plainOf = (text: string): Record<string, unknown> => {
  const file = YamlFile.parse('checks.yml', text, 'checks file');
  return file.plain(file.doc.contents) as Record<string, unknown>;
};

describe('plain data with a __proto__ key', () => {
  it('keeps it as an own key; the schema applied is the schema shown', () => {
    const schema = plainOf('{__proto__: {type: string}}');
    expect(Object.getPrototypeOf(schema)).toBe(Object.prototype);
    expect(Object.keys(schema)).toEqual(['__proto__']);
    const check = compileSchema(schema);
    expect(check.source).toContain('__proto__');
  });

  it('control: other keys read as before', () => {
    const check = compileSchema(plainOf('{type: string}'));
    expect(check.validate(5)).toBe(false);
    expect(check.validate('x')).toBe(true);
  });
});
