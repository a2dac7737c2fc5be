// JSON from the service, read defensively: a body nested absurdly deep is refused before any
// recursive reader (ours or JSON.parse's callers) can overflow the stack on it.

/** Deeper than any plausible response; deeper bodies are unreadable, not a crash. */
export const MAX_JSON_DEPTH = 64;

export type JsonRead = { ok: true; value: unknown } | { ok: false; reason: string };

/** The deepest nesting of arrays and objects in `text`, stopping early past `limit`. */
export function nestingDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

export function readJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonRead {
  if (nestingDepth(text, maxDepth) > maxDepth) {
    return { ok: false, reason: `JSON nested deeper than ${maxDepth} levels` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'a body that is not JSON' };
  }
}
