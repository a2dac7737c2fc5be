#!/usr/bin/env node
// The command line's bundle entry (dist/cli/index.js): it only runs the command and exits with its code.
import { run } from './cli.js';

void run().then((code) => {
  process.exitCode = code;
});
