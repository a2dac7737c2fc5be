// Identifiers are opaque strings the spec never describes. The same rule holds for ids the user
// gives and ids the service returns, since both end up in a path segment and in outputs.

export const MAX_ID_LENGTH = 200;

export const ID_EXPECTED = `an identifier without whitespace, control characters or '/', not '.' or '..', at most ${MAX_ID_LENGTH} characters`;

// eslint-disable-next-line no-control-regex
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Usable in a path segment and an output: `.` and `..` would escape their segment. */
export function isValidId(value: string): boolean {
  return (
    value.length > 0 &&
    value.length <= MAX_ID_LENGTH &&
    value !== '.' &&
    value !== '..' &&
    !SPACE_OR_CONTROL.test(value) &&
    !value.includes('/') &&
    // A lone surrogate cannot be percent-encoded into a path ("URI malformed").
    value.isWellFormed()
  );
}

/** True when the text holds whitespace or control characters (for keys and single-line values). */
export function hasSpaceOrControl(value: string): boolean {
  return SPACE_OR_CONTROL.test(value);
}

/** An http(s) URL, or undefined: nothing else becomes a link. */
export function httpUrl(value: string | undefined): string | undefined {
  if (!value || value.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  return url.href;
}
