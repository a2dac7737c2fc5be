// What a suite of a given size can detect, stated before the first request.
import type { Detectable } from './types.js';

export interface PowerOptions {
  /** The relative drop asked about (default 0.1). */
  drop?: number;
  /** The suite's tolerance on the pass rate, in points of share (default 0). */
  tolerance?: number;
  level?: number;
}

export function detectableDrop(questions: number, repeats: number, options: PowerOptions = {}): Detectable {
  void questions;
  void repeats;
  void options;
  throw new Error('detectableDrop: not implemented yet');
}
