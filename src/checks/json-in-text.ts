// JSON inside prose: the first balanced object (a judge's verdict around its reasoning, in a code
// fence or after a <think> block), or every object and array (promptfoo's contains-json). The
// scan is bounded: replies are untrusted and may hold thousands of braces.

/** The most text scanned, and the most candidate openings tried. */
const MAX_SCAN_CHARS = 64 * 1024;
const MAX_CANDIDATES = 200;

/** The end (exclusive) of the balanced value opening at `start`, strings respected; -1 when it never closes. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/** Every JSON object or array found in `text`, in order; with `objectsOnly`, objects alone. */
export function jsonValuesIn(text: string, { objectsOnly = false, first = false } = {}): unknown[] {
  const scanned = text.slice(0, MAX_SCAN_CHARS);
  const found: unknown[] = [];
  let tries = 0;
  for (let i = 0; i < scanned.length && tries < MAX_CANDIDATES; i++) {
    const c = scanned[i];
    if (c !== '{' && (objectsOnly || c !== '[')) continue;
    tries++;
    const end = balancedEnd(scanned, i);
    if (end < 0) continue;
    try {
      found.push(JSON.parse(scanned.slice(i, end)));
      if (first) return found;
      i = end - 1;
    } catch {
      // not JSON (prose in braces): try the next opening
    }
  }
  return found;
}

/** The first JSON object in a model's answer, after a leading `<think>…</think>` block and any fence. */
export function firstJsonObject(answer: string): { value: Record<string, unknown> } | { problem: string } {
  let text = answer.trimStart();
  if (/^<think>/i.test(text)) {
    const end = text.search(/<\/think>/i);
    if (end < 0) return { problem: 'an unfinished <think> block and no verdict' };
    text = text.slice(end + '</think>'.length);
  }
  const [value] = jsonValuesIn(text, { objectsOnly: true, first: true });
  if (value === undefined) return { problem: 'no JSON object' };
  return { value: value as Record<string, unknown> };
}
