// The escapers for markup, one per format: HTML (and the SVG inside it or alone) and XML (JUnit).
// Markdown has its own, `escapeText` in report/markdown.ts. Values from the service, a Claw or
// GitHub are untrusted: escaped, nothing in them can open or close markup, and characters these
// formats forbid are replaced so the document stays well formed.

// What XML 1.0 (so SVG) forbids, and HTML reads as a parse error: C0 controls but tab, line feed
// and carriage return; DEL and the C1 controls; a surrogate without its pair; the noncharacters
// (U+FDD0–U+FDEF, and the last two of every plane, U+FFFE and U+FFFF among them).
const NOT_IN_MARKUP =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]|[\ud83f\ud87f\ud8bf\ud8ff\ud93f\ud97f\ud9bf\ud9ff\uda3f\uda7f\udabf\udaff\udb3f\udb7f\udbbf\udbff][\udffe\udfff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text any XML, SVG or HTML document may hold: each character those formats forbid becomes U+FFFD. */
export function markupChars(text: string): string {
  return text.replace(NOT_IN_MARKUP, '\ufffd');
}

/** The five characters markup reads as syntax, and their entities. */
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or an attribute value in HTML or SVG: nothing in it can open or close markup. */
export function escapeHtml(value: string): string {
  return markupChars(value).replace(/[&<>"']/g, (c) => ENTITY[c]);
}

/** Text safe in XML content and in a double-quoted attribute; a carriage return kept as `&#13;`. */
export function escapeXml(value: string): string {
  return markupChars(value).replace(/[&<>"\r]/g, (c) => (c === '\r' ? '&#13;' : ENTITY[c]));
}
