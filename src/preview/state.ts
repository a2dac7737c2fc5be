// The hidden state a preview comment keeps: which Claw each preview is (the service may have given
// it another id than the one asked for), for which pull request and commit. It comes back from a
// comment anyone with write access can edit, so it is read as untrusted input: encoded so it cannot
// end the HTML comment, and validated field by field; a broken one is ignored, never trusted.
import { isValidId } from '../identifiers.js';

export interface PreviewRecord {
  /** The production Claw (declared in the manifest). */
  claw: string;
  /** The preview's id, as the service returned it. */
  id: string;
  /** Its GitHub Deployment, when `environment` is set. */
  githubDeployment?: number;
}

export interface PreviewState {
  pr: number;
  head: string;
  previews: PreviewRecord[];
}

const PREFIX = '<!-- claw-deploy preview-state: ';

export function encodeState(state: PreviewState): string {
  return `${PREFIX}${Buffer.from(JSON.stringify({ v: 1, ...state }), 'utf8').toString('base64url')} -->`;
}

/**
 * The state in a comment's body, or why it cannot be used. Only Claws the manifest declares are
 * accepted, only usable ids, and only this pull request's.
 */
export function decodeState(
  body: string,
  expect: { pr: number; declared: string[] },
): { state?: PreviewState; problem?: string } {
  const start = body.indexOf(PREFIX);
  if (start < 0) return {};
  const end = body.indexOf(' -->', start);
  const encoded = body.slice(start + PREFIX.length, end < 0 ? undefined : end);
  if (!/^[A-Za-z0-9_-]{1,20000}$/.test(encoded)) return { problem: 'the state is not base64url' };
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return { problem: 'the state is not JSON' };
  }
  const record = data as Record<string, unknown>;
  if (typeof data !== 'object' || data === null || record.v !== 1) return { problem: 'the state has no known version' };
  if (record.pr !== expect.pr)
    return { problem: `the state is for pull request ${String(record.pr).slice(0, 20)}, not #${expect.pr}` };
  const head = typeof record.head === 'string' && /^[0-9a-f]{0,64}$/i.test(record.head) ? record.head : undefined;
  if (head === undefined || !Array.isArray(record.previews) || record.previews.length > 100) {
    return { problem: 'the state has no usable head or previews' };
  }
  const previews: PreviewRecord[] = [];
  for (const item of record.previews as Record<string, unknown>[]) {
    const claw = item?.claw;
    const id = item?.id;
    if (typeof claw !== 'string' || !expect.declared.includes(claw))
      return { problem: 'the state names a Claw the manifest does not declare' };
    if (typeof id !== 'string' || !isValidId(id) || expect.declared.includes(id)) {
      return { problem: `the state names an unusable preview id for ${claw}` };
    }
    const github = item.githubDeployment;
    previews.push({
      claw,
      id,
      ...(Number.isSafeInteger(github) && (github as number) > 0 ? { githubDeployment: github as number } : {}),
    });
  }
  return { state: { pr: expect.pr, head, previews } };
}

/** The id a preview asks for: `<claw>-pr-<number>` (the service may assign another). */
export function previewId(claw: string, pr: number): string {
  return `${claw}-pr-${pr}`;
}

/** The pull request a Claw id names as a preview of one of `declared`, or undefined. */
export function previewOf(id: string, declared: string[]): { claw: string; pr: number } | undefined {
  const match = /^(.+)-pr-(\d{1,9})$/.exec(id);
  if (!match || !declared.includes(match[1])) return undefined;
  return { claw: match[1], pr: Number(match[2]) };
}

/** The marker that finds a manifest's preview comment (apart from its plan comment). */
export function previewMarker(manifest: string): string {
  return `<!-- claw-deploy preview: ${encodeURIComponent(manifest)} -->`;
}
