// Loaded by claw-deploy.cjs once the Node.js version is known to be recent enough (older ones
// cannot even parse `import()`): runs the command and exits with its code.
'use strict';

import('../dist/index.js')
  .then(function (bundle) {
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
