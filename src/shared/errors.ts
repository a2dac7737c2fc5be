/** Turns anything thrown into one line of text. */
export function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : typeof err === 'string' ? err : JSON.stringify(err);
  return (text ?? String(err)).trim() || 'unknown error';
}

/** A bad action input; its message is the whole `::error::` line. */
export class InputError extends Error {
  override name = 'InputError';
}

/** The run was cancelled (SIGINT/SIGTERM) while waiting. */
export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor() {
    super('cancelled');
  }
}
