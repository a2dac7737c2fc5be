// What Ctrl-C (or SIGTERM, SIGHUP) is told on the command line: what happens next, for the command
// that runs. A command whose run goes on on the service when stopped says so in its definition
// (`cancel`: deploy/cancel-notice.ts); any other stops and reports what is known.
import type { CommandDefinition } from '../contract/command.js';
import type { Settings } from '../contract/settings.js';

export function cancelNotice(
  signal: string,
  definition: CommandDefinition,
  settings: Settings,
  deployments: readonly string[],
): string {
  return (
    definition.commandLine?.cancel?.(signal, settings, deployments) ??
    `Received ${signal}: stopping the ${settings.command}; what is known so far is reported.`
  );
}
