// The last check before a value becomes a step output, which later steps read into shells,
// expressions and URLs: ids must be usable ids, `url` an http(s) URL, and nothing may carry a
// control character. What fails is left empty and said, never passed on.
import { hasControls } from '../shared/format.js';
import { ID_EXPECTED, httpUrl, isValidId } from '../shared/identifiers.js';

const ID_OUTPUTS = new Set(['deployment-id', 'rollback-id', 'github-deployment-id']);
/** JSON outputs: their own encoding escapes control characters. */
const JSON_OUTPUTS = new Set(['report', 'checks-report', 'plan', 'comparison']);

export interface CheckedOutputs {
  values: Record<string, string>;
  /** One line per refused value, naming the output and why. */
  refused: string[];
}

export function checkOutputs(outputs: Record<string, string>): CheckedOutputs {
  const values: Record<string, string> = {};
  const refused: string[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    let problem: string | undefined;
    if (value === '') problem = undefined;
    else if (name === 'url' && httpUrl(value) === undefined) problem = 'expected an http(s) URL';
    else if (ID_OUTPUTS.has(name) && !isValidId(value)) problem = `expected ${ID_EXPECTED}`;
    else if (!JSON_OUTPUTS.has(name) && hasControls(value)) problem = 'it holds control characters';
    if (problem) {
      refused.push(`Output '${name}' is left empty: the service's value was refused (${problem}).`);
      values[name] = '';
    } else values[name] = value;
  }
  return { values, refused };
}
