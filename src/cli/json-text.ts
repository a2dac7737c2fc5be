// JSON text as a terminal may show it (--json's object, `--output -`). JSON.stringify escapes only
// U+0000–U+001F, so a reply's C1 controls (U+009B is a one-byte CSI), DEL, line and paragraph
// separators and bidi overrides would reach the terminal raw. Decided by what is allowed:
// printable ASCII, and beyond it letters, marks, numbers, punctuation, symbols and spaces. Any
// other character of a JSON text can only sit inside a string (outside one JSON allows only
// ASCII), where its `\uXXXX` escape reads back as the same character: the JSON parses the same.
const NOT_SHOWN = /[^\t\n\r\u0020-\u007e\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]/gu;

const escaped = (char: string): string =>
  Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/** `text` (JSON) with every character a terminal would act on or hide written as `\uXXXX`. */
export function terminalSafeJson(text: string): string {
  return text.replace(NOT_SHOWN, escaped);
}
