// The comparison engine's one door: users import from here.
export type * from './types.js';
export { VERDICT_PRECEDENCE } from './types.js';
export { compareSides, worstVerdict, DEFAULT_LEVEL, DEFAULT_MAX_MISSING, DEFAULT_TOLERANCE } from './engine.js';
export { detectableDrop, estimatedRate, passRatePower, referenceProfile } from './power.js';
export { INTERIM_SHARE, type Stop, decisive, lookLevels } from './sequential.js';
export type { QuietResult, WatchInput, WatchResult, WatchRun, WatchSide, WatchVerdict } from './watch.js';
export { DEFAULT_WATCH_LEVEL, DEFAULT_WINDOW_DAYS, quietWatch, watchDeployment } from './watch.js';
