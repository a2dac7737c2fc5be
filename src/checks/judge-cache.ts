// Judge verdicts kept between runs (`judge-cache`): an identical question (same judge, model,
// parameters, template and rendered messages, hashed) gets the verdict it got before, at no cost,
// so a rerun of the same release grades the same. The file comes back through actions/cache, so it
// is read as untrusted: entries of the wrong shape are dropped, and the file is capped. Its keys
// are predictable (anyone who knows the rubric and the reply can compute one), so each entry is
// sealed with an HMAC keyed from the API key: a verdict written or edited by anyone else (a pull
// request committing the file, a cache restored from elsewhere) is never read.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { readJson } from '../api/json.js';
import { isObject } from '../api/shapes.js';
import { writeOutputFile } from '../config/output-file.js';
import { placeProblem } from '../config/place.js';
import type { SealKey } from '../shared/seal.js';

export interface CachedVerdict {
  /** The judge's JSON answer, as it was read. */
  answer: Record<string, unknown>;
  model?: string;
  fingerprint?: string;
}

const VERSION = 2;
/** The most verdicts kept: the newest win. */
const MAX_ENTRIES = 5000;
/** A larger file is not read at all. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export class VerdictCache {
  private readonly entries = new Map<string, CachedVerdict>();
  private changed = false;

  private constructor(
    readonly path: string,
    private readonly workspace: string,
    private readonly key: SealKey,
  ) {}

  /** The entry's seal: an HMAC over its key and its verdict, as written. */
  private seal(key: string, verdict: CachedVerdict): string {
    const body = JSON.stringify([key, verdict.answer, verdict.model ?? null, verdict.fingerprint ?? null]);
    return createHmac('sha256', this.key.bytes).update(`judge-cache\n${body}`).digest('base64url');
  }

  /**
   * Reads the cache at `path` (relative to `workspace`); a missing file is an empty cache. `key`
   * seals the entries (sealKey of the API key): one without its seal is dropped.
   */
  static async load(
    path: string,
    workspace: string,
    warn: (message: string) => void,
    key: SealKey,
  ): Promise<VerdictCache> {
    const cache = new VerdictCache(isAbsolute(path) ? path : resolve(workspace, path), workspace, key);
    let text: string;
    const problem = placeProblem(cache.path, workspace);
    if (problem) {
      warn(`The judge cache '${path}' is not read (${problem}); starting with an empty one.`);
      return cache;
    }
    try {
      // Looked at first: a link to /dev/zero or a FIFO is never read.
      const found = await stat(cache.path);
      if (!found.isFile() || found.size > MAX_FILE_BYTES) {
        warn(
          `The judge cache '${path}' is not a regular file of at most ${MAX_FILE_BYTES / 1048576} MiB; starting with an empty one.`,
        );
        return cache;
      }
      text = await readFile(cache.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') warn(`The judge cache '${path}' could not be read (${code}); starting with an empty one.`);
      return cache;
    }
    if (text.length > MAX_FILE_BYTES) {
      warn(`The judge cache '${path}' is over ${MAX_FILE_BYTES / 1048576} MiB; starting with an empty one.`);
      return cache;
    }
    try {
      // Depth-bounded: a cache file is a few levels deep, and JSON.parse slows on deep nesting.
      const read = readJson(text);
      if (!read.ok) throw new Error(read.reason);
      const data = read.value;
      const verdicts = isObject(data) && data.version === VERSION && isObject(data.verdicts) ? data.verdicts : {};
      for (const [key, value] of Object.entries(verdicts)) {
        if (!/^[0-9a-f]{64}$/.test(key) || !isObject(value) || !isObject(value.answer)) continue;
        const text = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, 200) : undefined);
        const verdict = { answer: value.answer, model: text(value.model), fingerprint: text(value.fingerprint) };
        const expected = Buffer.from(cache.seal(key, verdict));
        const given = Buffer.from(typeof value.seal === 'string' ? value.seal : '');
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) continue;
        cache.entries.set(key, verdict);
      }
    } catch {
      warn(`The judge cache '${path}' is not JSON; starting with an empty one.`);
    }
    return cache;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): CachedVerdict | undefined {
    return this.entries.get(key);
  }

  set(key: string, verdict: CachedVerdict): void {
    this.entries.delete(key);
    this.entries.set(key, verdict);
    this.changed = true;
  }

  /** Writes the cache when it changed (the newest MAX_ENTRIES), through a temporary file. */
  async save(): Promise<boolean> {
    if (!this.changed) return false;
    const kept = [...this.entries].slice(-MAX_ENTRIES);
    const sealed = kept.map(([key, verdict]) => [key, { ...verdict, seal: this.seal(key, verdict) }]);
    const body = JSON.stringify({ version: VERSION, verdicts: Object.fromEntries(sealed) });
    await writeOutputFile(this.path, this.workspace, body);
    this.changed = false;
    return true;
  }
}
