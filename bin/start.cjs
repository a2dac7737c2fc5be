// Loaded by claw-deploy.cjs once the Node.js version is known to be recent enough (older ones
// cannot even parse `import()`): runs the command and exits with its code.
'use strict';

import('../dist/index.js').then(function (bundle) {
  return bundle.cli(process.argv.slice(2)).then(function (code) {
    process.exitCode = code;
  });
});
