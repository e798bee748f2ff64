#!/usr/bin/env node
// Runs one attn-tutor command through the module the page loads (build-web/attn-tutor-web.js: a fresh
// instance per command, as a process, with an in-memory filesystem) and passes on its bytes: stdout to
// stdout, stderr to stderr, its exit code as ours. Usage: node module_run.js MODULE ARGS...
// The wasm beside the module is handed over as bytes (the page inlines it; node's own fetch cannot read
// a file path).
'use strict';
const fs = require('fs');
const path = require('path');
const modulePath = path.resolve(process.argv[2]);
const create = require(modulePath);
const wasmBinary = fs.readFileSync(modulePath.replace(/\.js$/, '.wasm'));

async function main() {
  const out = [], err = [];
  let status = 0;
  const instance = await create({
    noInitialRun: true,
    wasmBinary,
    stdout: (byte) => { if (byte !== null) out.push(byte); },
    stderr: (byte) => { if (byte !== null) err.push(byte); },
    quit: (code, thrown) => { status = code; throw thrown; },
  });
  try {
    status = instance.callMain(process.argv.slice(3));
  } catch (e) {
    if (!(e && e.name === 'ExitStatus')) throw e;
  }
  process.stdout.write(Buffer.from(out));
  process.stderr.write(Buffer.from(err));
  process.exitCode = status;
}
main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exitCode = 99; });
