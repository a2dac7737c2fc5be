// Every occurrence of any of a few patterns in one pass over the text: an Aho–Corasick automaton
// compiled to a table (state × character class), so a scan costs one table read per code unit
// whatever the text holds, and never looks at a character twice.

/**
 * Past this many table cells (long secrets of many distinct characters) the automaton keeps each
 * state's moves in a map instead: still one pass, amortised, at a few times the cost per unit.
 */
const MAX_CELLS = 1 << 23;

export class MultiSearch {
  /** The character class of each UTF-16 code unit: 0 for one no pattern holds. */
  private readonly classOf = new Uint16Array(0x10000);
  private readonly classes: number;
  /** next[state * classes + class]: the state after reading a unit of that class (empty when sparse). */
  private readonly next: Int32Array;
  /** For a sparse automaton: each state's own moves, and where it falls back to. */
  private readonly sparse?: { children: Map<number, number>[]; fallback: Int32Array };
  /** The longest pattern that ends on reaching each state (0: none). */
  private readonly longest: Int32Array;

  constructor(patterns: readonly string[]) {
    let classes = 1;
    for (const pattern of patterns)
      for (let i = 0; i < pattern.length; i++) {
        const unit = pattern.charCodeAt(i);
        if (this.classOf[unit] === 0) this.classOf[unit] = classes++;
      }
    this.classes = classes;
    // The trie of the patterns: children[state] maps a class to the state after it.
    const children: Map<number, number>[] = [new Map()];
    const own: number[] = [0];
    for (const pattern of patterns) {
      let state = 0;
      for (let i = 0; i < pattern.length; i++) {
        const cls = this.classOf[pattern.charCodeAt(i)];
        let child = children[state].get(cls);
        if (child === undefined) {
          child = children.length;
          children.push(new Map());
          own.push(0);
          children[state].set(cls, child);
        }
        state = child;
      }
      own[state] = Math.max(own[state], pattern.length);
    }
    const dense = children.length * classes <= MAX_CELLS;
    this.next = new Int32Array(dense ? children.length * classes : 0);
    this.longest = new Int32Array(children.length);
    // Breadth first: a state's fallback (the longest proper suffix that is a trie state) is done
    // before the state, so its row of the table and its longest match are already known.
    const fallback = new Int32Array(children.length);
    const queue: number[] = [0];
    if (!dense) {
      this.sparse = { children, fallback };
      for (let head = 0; head < queue.length; head++) {
        const state = queue[head];
        this.longest[state] = Math.max(own[state], state === 0 ? 0 : this.longest[fallback[state]]);
        for (const [cls, child] of children[state]) {
          fallback[child] = state === 0 ? 0 : this.move(fallback[state], cls);
          queue.push(child);
        }
      }
      return;
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head];
      const back = fallback[state];
      this.longest[state] = Math.max(own[state], state === 0 ? 0 : this.longest[back]);
      const row = state * classes;
      for (let cls = 0; cls < classes; cls++) {
        const child = children[state].get(cls);
        if (child === undefined) {
          this.next[row + cls] = state === 0 ? 0 : this.next[back * classes + cls];
        } else {
          this.next[row + cls] = child;
          fallback[child] = state === 0 ? 0 : this.next[back * classes + cls];
          queue.push(child);
        }
      }
    }
  }

  /**
   * Calls `found(last, length)` at each unit where a pattern ends, with the longest one ending
   * there (the shorter ones ending there lie inside it).
   */
  scan(units: Uint16Array, length: number, found: (last: number, length: number) => void): void {
    const { classOf, next, longest, classes } = this;
    let state = 0;
    if (this.sparse) {
      for (let i = 0; i < length; i++) {
        state = this.move(state, classOf[units[i]]);
        if (longest[state] !== 0) found(i, longest[state]);
      }
      return;
    }
    for (let i = 0; i < length; i++) {
      state = next[state * classes + classOf[units[i]]];
      if (longest[state] !== 0) found(i, longest[state]);
    }
  }

  /** A sparse automaton's move: fall back until a state has one for `cls` (or the root). */
  private move(from: number, cls: number): number {
    const { children, fallback } = this.sparse!;
    let state = from;
    while (state !== 0 && !children[state].has(cls)) state = fallback[state];
    return children[state].get(cls) ?? 0;
  }
}
