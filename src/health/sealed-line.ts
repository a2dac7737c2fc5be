// A history line as the action writes it: the record's JSON with one last field, `seal`, a MAC
// over the text before it (the seal of incident issues, keyed the same way). Anyone with push
// access can write the branch; only a run holding the key can seal, so a line that does not
// carry its seal is not this action's and is never read as a record.
import { type SealKey, checkSeal, sealedMarker } from '../shared/seal.js';

/**
 * What a line is, bound into its seal: a health line never reads as a deployment record, and a
 * deployment record's seal names its month's file, so a line moved to another month does not verify;
 * the index of the action's parts (store-index.ts) is a kind of its own.
 */
export type LineKind = 'history-line' | 'history-index' | `deployment-record ${string}` | `saved-run ${string}`;
const KIND: LineKind = 'history-line';
const SEALED = /,"seal":"([A-Za-z0-9_-]{43})"}$/;

/** What the seal covers: `content` as a sealed marker's payload holds it. */
const payloadOf = (content: string): string => Buffer.from(JSON.stringify(content), 'utf8').toString('base64url');

/** The MAC of `content`, as the seal of a marker holding it. */
function macOf(content: string, key: SealKey, kind: LineKind): string {
  const marker = sealedMarker(kind, content, key);
  return marker.slice(marker.lastIndexOf('.') + 1, marker.lastIndexOf(' -->'));
}

/** `json` (one object's text) with its seal as the last field. */
export function sealLine(json: string, key: SealKey, kind: LineKind = KIND): string {
  return `${json.slice(0, -1)},"seal":"${macOf(json, key, kind)}"}`;
}

/**
 * The object's text as it was sealed, or undefined when the line carries no seal that matches. A
 * line sealed under an older key of the run (the API key's, before a state-secret) still reads.
 */
export function unsealLine(line: string, key: SealKey, kind: LineKind = KIND): string | undefined {
  const match = SEALED.exec(line);
  if (!match) return undefined;
  const content = `${line.slice(0, match.index)}}`;
  return checkSeal(key, kind, payloadOf(content), match[1]) ? content : undefined;
}

/**
 * `text` (a history file) with each line sealed under an older key of the run sealed again under
 * the current one: a file the run writes anyway carries no line the next key rotation would orphan.
 */
export function resealOlder(text: string, key: SealKey, kind: LineKind = KIND): string {
  if (!key.older?.length) return text;
  return text
    .split('\n')
    .map((line) => {
      const match = SEALED.exec(line);
      if (!match) return line;
      const content = `${line.slice(0, match.index)}}`;
      return checkSeal(key, kind, payloadOf(content), match[1]) === 'older' ? sealLine(content, key, kind) : line;
    })
    .join('\n');
}
