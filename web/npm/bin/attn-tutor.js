#!/usr/bin/env node
// attn-tutor: the same C++ as the native command, compiled to WebAssembly (lib/attn-tutor.js, with the
// wasm inlined). Arguments, files, standard streams and the exit code are the native command's.
'use strict';
const major = Number(process.versions.node.split('.')[0]);
if (major < 18) {
  process.stderr.write('attn-tutor: error: node ' + process.versions.node + ' is too old; install node 18 or newer\n');
  process.exit(2);
}
require('../lib/attn-tutor.js');
