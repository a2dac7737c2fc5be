#!/usr/bin/env node
// The command line's bin. Written for any Node.js, however old: when this one is older than the
// command line needs (package.json's engines), it says so in one line, rather than fail on a
// syntax error further in; otherwise it loads the bundle in dist/, which the action runs too.
'use strict';

var engines = require('../package.json').engines.node; // ">=20", the one place the need is written
var needed = (/^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines) || [])[1] || '0';

function older(version, than) {
  var a = version.split('.').map(Number);
  var b = than.split('.').map(Number);
  for (var i = 0; i < 3; i++) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) < (b[i] || 0);
  }
  return false;
}

if (older(process.versions.node, needed)) {
  var message = 'claw-deploy needs Node.js ' + needed + ' or later; this is Node.js ' + process.versions.node + '.';
  // --json promises one JSON object on stdout, whatever the exit.
  if (process.argv.indexOf('--json') !== -1) {
    process.stdout.write(JSON.stringify({ outcome: 'error', 'exit-code': 3, message: message }) + '\n');
  }
  process.stderr.write('error: ' + message + '\n');
  process.exit(3);
}
require('./start.cjs');
