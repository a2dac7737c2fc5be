// A promptfoo config's values as plain JavaScript (what promptfoo itself reads), each object and
// array remembering the file and the line it came from, so that every mistake found while reading
// them, in the config, a tests file, a CSV row or a JSONL line, is one error naming the file and
// the line. YAML aliases and merge keys (`<<: *defaults`) are followed as promptfoo follows them,
// within a bound on the nodes visited.
import { type Document, type Node, isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import { FileError, type YamlFile } from '../../config/yaml-file.js';
import { sentence } from '../../shared/format.js';

export type Value = unknown;
export type Obj = Record<string, unknown>;

interface Place {
  file: string;
  line: number;
  /** The line of each key, for a mapping. */
  keys?: Record<string, number>;
}

/**
 * `obj[key] = value` as an own key whatever its name: assigned, `__proto__` would set the object's
 * prototype, its keys unseen by every allow-list of keys yet read through.
 */
function own(obj: Obj, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The most nodes one file may expand to (aliases included). */
const MAX_NODES = 200_000;

/** Where values came from: one registry per reading of a config. */
export class Places {
  private readonly places = new WeakMap<object, Place>();

  set(value: object, place: Place): void {
    this.places.set(value, place);
  }

  /** Places `target` (a merge of `sources`, later ones winning) where its keys came from. */
  merged<T extends object>(target: T, ...sources: unknown[]): T {
    let place: Place | undefined;
    const keys: Record<string, number> = {};
    for (const source of sources) {
      const found = typeof source === 'object' && source !== null ? this.places.get(source) : undefined;
      if (!found) continue;
      Object.assign(keys, found.keys ?? Object.fromEntries(Object.keys(source as object).map((k) => [k, found.line])));
      place = { file: found.file, line: found.line, keys };
    }
    if (place) this.places.set(target, place);
    return target;
  }

  /** `file, line N` of a value (or of one of its keys). */
  where(value: unknown, key?: string): { file: string; line: number } | undefined {
    if (typeof value !== 'object' || value === null) return undefined;
    const place = this.places.get(value);
    if (!place) return undefined;
    const line = key !== undefined && place.keys && Object.hasOwn(place.keys, key) ? place.keys[key] : undefined;
    return { file: place.file, line: line || place.line };
  }

  /** The one error for a mistake at `value` (a key of it, when named); `fallback` when it has no place. */
  fail(value: unknown, key: string | undefined, message: string, fallback?: { file: string; line: number }): never {
    const at = this.where(value, key) ?? fallback;
    throw new FileError(sentence(at ? `${at.file}, line ${at.line}: ${message}` : message));
  }

  /** A YAML document's contents as values, each object placed. */
  fromYaml(file: YamlFile): Value {
    let visited = 0;
    const doc: Document = file.doc;
    const walk = (node: Node | null | undefined, depth: number): Value => {
      if (++visited > MAX_NODES || depth > 100) {
        file.fail(
          node,
          `the file expands to more than ${MAX_NODES} values (aliases included): expected a smaller file`,
        );
      }
      if (!node) return null;
      if (isAlias(node)) return walk(node.resolve(doc) as Node, depth + 1);
      if (isScalar(node)) return node.value;
      if (isSeq(node)) {
        const list = node.items.map((item) => walk(item as Node, depth + 1));
        this.set(list, { file: file.name, line: file.line(node) });
        return list;
      }
      if (isMap(node)) {
        const obj: Obj = {};
        const keys: Record<string, number> = {};
        for (const pair of node.items) {
          if (!isPair(pair)) continue;
          const keyNode = pair.key as Node | null;
          const key = isScalar(keyNode) ? keyNode.value : undefined;
          if (key === '<<') {
            // A merge key: the merged mappings' entries, the mapping's own winning.
            const merged = walk(pair.value as Node, depth + 1);
            for (const source of Array.isArray(merged) ? merged : [merged]) {
              if (typeof source !== 'object' || source === null || Array.isArray(source))
                file.fail(pair.value as Node, "'<<' merges a mapping: expected an alias to a mapping");
              for (const [k, v] of Object.entries(source as Obj)) if (!Object.hasOwn(obj, k)) own(obj, k, v);
            }
            continue;
          }
          if (typeof key !== 'string' && typeof key !== 'number') file.fail(pair, 'a key is not text');
          own(obj, String(key), walk(pair.value as Node, depth + 1));
          own(keys, String(key), file.line(pair));
        }
        this.set(obj, { file: file.name, line: file.line(node), keys });
        return obj;
      }
      return null;
    };
    return walk(file.doc.contents as Node, 0);
  }

  /** A value parsed from elsewhere (a JSON line, a CSV row), placed at one line, deeply. */
  placeAll(value: Value, file: string, line: number): Value {
    if (typeof value === 'object' && value !== null) {
      this.set(value, { file, line });
      for (const inner of Object.values(value)) this.placeAll(inner, file, line);
    }
    return value;
  }
}

export const isObj = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Shows a value in an error: quoted, cut when long. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
