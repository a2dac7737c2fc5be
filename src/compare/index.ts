// The comparison engine's one door: users import from here.
export type * from './types.js';
export { VERDICT_PRECEDENCE } from './types.js';
export { compareSides, worstVerdict } from './engine.js';
export { detectableDrop } from './power.js';
