// The `report` output every command writes: a JSON array under GitHub's limit for a step's outputs.

/** The `report` output stays well under GitHub's 1 MiB limit for a step's outputs. */
export const MAX_REPORT_BYTES = 512 * 1024;

/**
 * The `report` output: a JSON array, cut to whole entries when it would pass `maxBytes`, with a
 * note for the log saying how many were left out.
 */
export function reportOutput(
  entries: unknown[],
  maxBytes = MAX_REPORT_BYTES,
  name = 'report',
): { json: string; notes: string[] } {
  const parts: string[] = [];
  let bytes = 2;
  for (const entry of entries) {
    const part = JSON.stringify(entry);
    const size = Buffer.byteLength(part, 'utf8') + 1;
    if (bytes + size > maxBytes) break;
    parts.push(part);
    bytes += size;
  }
  const left = entries.length - parts.length;
  const cap = `${Math.round(maxBytes / 1024)} KiB`;
  const notes =
    left > 0 ? [`The ${name} output left out ${left} of ${entries.length} entries: it is capped at ${cap}.`] : [];
  return { json: `[${parts.join(',')}]`, notes };
}
