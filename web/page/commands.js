// The module as the page runs it: compiled once, a fresh instance per command, as a process (the
// command line's `main` with its arguments, stdout and stderr as bytes, the exit code, an in-memory
// working directory for the files a command reads). page.js is its one user; no lesson knowledge here.
'use strict';
const attnTutorCommands = (() => {
  let compiled = null;
  function wasmModule() {
    if (!compiled) {
      const text = atob(document.getElementById('wasm').textContent.trim());
      const bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
      compiled = WebAssembly.compile(bytes);
    }
    return compiled;
  }

  class Bytes {
    constructor() { this.buf = new Uint8Array(1 << 16); this.n = 0; }
    push(b) {
      if (this.n === this.buf.length) { const grown = new Uint8Array(this.buf.length * 2); grown.set(this.buf); this.buf = grown; }
      this.buf[this.n++] = b;
    }
    text() { return new TextDecoder('utf-8').decode(this.buf.subarray(0, this.n)); }
    bytes() { return this.buf.slice(0, this.n); }
  }

  // `name` in the working directory as a stream of `bytes` (a character device, read as a pipe is: not a
  // regular file, no size known before the end).
  function addStream(FS, name, bytes) {
    let at = 0;
    FS.createDevice(FS.cwd(), name, () => (at < bytes.length ? bytes[at++] : null));
  }

  // Runs `attn-tutor ARGS...` with `files` ({name: bytes, text or {stream: bytes}}) in its working directory.
  async function run(args, files = {}) {
    const mod = await wasmModule();
    const out = new Bytes(), err = new Bytes();
    let status = 0;
    const instance = await createAttnTutor({
      noInitialRun: true,
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(mod, imports).then((inst) => receive(inst, mod));
        return {};
      },
      stdout: (b) => { if (b !== null) out.push(b & 255); },
      stderr: (b) => { if (b !== null) err.push(b & 255); },
      quit: (code, thrown) => { status = code; throw thrown; },
    });
    for (const [name, data] of Object.entries(files)) {
      if (data && data.stream) addStream(instance.FS, name, data.stream); else instance.FS.writeFile(name, data);
    }
    try {
      status = instance.callMain(args);
    } catch (e) {
      if (!(e && e.name === 'ExitStatus')) throw e;
    }
    return { status, stdout: out.text(), stdoutBytes: out.bytes(), stderr: err.text() };
  }

  return { run };
})();
