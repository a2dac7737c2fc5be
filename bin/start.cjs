// Loaded by claw-deploy.cjs once the Node.js version is known to be recent enough (older ones
// cannot even parse `import()`): runs the command and exits with its code.
'use strict';

// Loading the bundle takes a while. A signal meanwhile ends the run as a cancel does (nothing was
// done yet): one line, --json's one object, the signal's exit code. The command takes over at once.
var CANCEL_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
var json = process.argv.slice(2).some(function (arg) {
  return arg === '--json' || arg.indexOf('--json=') === 0;
});
function interrupted(signal) {
  var message = 'Interrupted (' + signal + ') before the command started: nothing was done.';
  if (json) {
    process.stdout.write(
      JSON.stringify({ outcome: 'cancelled', 'exit-code': CANCEL_CODES[signal], message: message }) + '\n',
    );
  }
  process.stderr.write('error: ' + message + '\n');
  process.exit(CANCEL_CODES[signal]);
}
var signals = Object.keys(CANCEL_CODES);
signals.forEach(function (signal) {
  process.on(signal, interrupted);
});

import('../dist/index.js')
  .then(function (bundle) {
    // The command's own handlers are installed as it starts, in this same turn.
    signals.forEach(function (signal) {
      process.off(signal, interrupted);
    });
    return bundle.cli(process.argv.slice(2));
  })
  .then(
    function (code) {
      process.exitCode = code;
    },
    function (err) {
      // Only a broken install gets here (the command reports its own faults): one line, exit 3.
      process.stderr.write(
        'error: claw-deploy could not start: ' + String((err && err.message) || err).split('\n')[0] + '\n',
      );
      process.exitCode = 3;
    },
  );
