// Linked into the node CLI with --post-js (cmake/web.cmake): what emscripten 3.1.6 does not take
// from node's process, given to the program before its main runs.
(function () {
  const nodeFs = require('fs');

  // 1. The environment (LANG, LC_ALL, NO_COLOR, COLORTERM, TERM, COLUMNS choose the language and the
  //    colours): node's own, in place of emscripten's made-up defaults (USER=web_user, LANG=C.UTF-8
  //    or the browser's language), which getEnvStrings drops when they are set to undefined.
  for (const key of ['USER', 'LOGNAME', 'PATH', 'PWD', 'HOME', 'LANG', '_']) ENV[key] = undefined;
  Object.assign(ENV, process.env);

  // 2. NODERAWFS marks every file it opens as seekable, so a pipe or a terminal opened by its path
  //    (check /dev/stdin, check <(...), --json /dev/stdout into a pipe) is read and written at an
  //    offset and fails with ESPIPE. Each stream is marked as the operating system says it is.
  const open = FS.open;
  FS.open = function () {
    const stream = open.apply(this, arguments);
    if (stream && stream.nfd !== undefined) {
      const st = nodeFs.fstatSync(stream.nfd);
      stream.seekable = st.isFile() || st.isBlockDevice();
    }
    return stream;
  };

  // 3. Paths byte for byte. Emscripten reads a path from the program as UTF-8 and hands node the
  //    string, so a byte that is not UTF-8 was lost or swallowed the byte after it (bad\xc3.json
  //    reached badîjson). Each such byte travels as one lone surrogate U+DC80..U+DCFF (it cannot
  //    come from UTF-8), and every call into node's fs turns a path holding one into a Buffer of the
  //    program's bytes; what node gives back (readlink) comes back the same way.
  const strict = new TextDecoder('utf-8', { fatal: true });
  function pathFromBytes(bytes) {
    try {
      return strict.decode(bytes);
    } catch (e) {
      let text = '';
      for (let i = 0; i < bytes.length;) {
        let n = 1;  // the shortest UTF-8 character that starts here, or the byte escaped
        for (; n <= 4 && i + n <= bytes.length; ++n) {
          try {
            text += strict.decode(bytes.subarray(i, i + n));
            break;
          } catch (e) {}
        }
        if (n > 4 || i + n > bytes.length) {
          text += String.fromCharCode(0xdc00 + bytes[i]);
          n = 1;
        }
        i += n;
      }
      return text;
    }
  }
  function pathForNode(path) {  // a string with escaped bytes as a Buffer; anything else as it is
    if (typeof path !== 'string' || !/[\udc80-\udcff]/.test(path)) return path;
    const parts = [];
    let run = '';
    for (let i = 0; i < path.length; ++i) {
      const c = path.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < path.length) {
        run += path[i] + path[++i];  // a pair: a character past U+FFFF
      } else if (c >= 0xdc80 && c <= 0xdcff) {
        parts.push(Buffer.from(run, 'utf8'), Buffer.from([c - 0xdc00]));
        run = '';
      } else {
        run += path[i];
      }
    }
    parts.push(Buffer.from(run, 'utf8'));
    return Buffer.concat(parts);
  }
  SYSCALLS.getStr = function (ptr) {
    let end = ptr;
    while (HEAPU8[end]) ++end;
    return pathFromBytes(HEAPU8.subarray(ptr, end));
  };
  SYSCALLS.doReadlink = function (path, buf, bufsize) {  // readlink writes no 0 byte after the target
    if (bufsize <= 0) return -28;  // EINVAL
    const bytes = Buffer.from(pathForNode(FS.readlink(path)));
    const length = Math.min(bufsize, bytes.length);
    HEAPU8.set(bytes.subarray(0, length), buf);
    return length;
  };
  // A relative path goes to node as it is (node resolves it against the working directory, as the
  // kernel does), not joined to process.cwd()'s string and normalized (which made dir/../x skip a
  // symlinked dir).
  const calculateAt = SYSCALLS.calculateAt;
  SYSCALLS.calculateAt = function (dirfd, path, allowEmpty) {
    if (dirfd === -100 /* AT_FDCWD */ && path.length > 0) return path;
    return calculateAt.apply(this, arguments);
  };
  fs = new Proxy(nodeFs, {  // `fs` is the module's node fs, which NODERAWFS and NODEFS call
    get(target, key) {
      const value = target[key];
      if (typeof value !== 'function') return value;
      if (key === 'readlinkSync')
        return (path) => pathFromBytes(target.readlinkSync(pathForNode(path), { encoding: 'buffer' }));
      if (key === 'readdirSync')
        return (path) => target.readdirSync(pathForNode(path), { encoding: 'buffer' }).map(pathFromBytes);
      return function () {
        return value.apply(target, Array.prototype.map.call(arguments, pathForNode));
      };
    },
  });

  // 4. Signals while a command writes its files. The program runs synchronously, so node cannot run
  //    a handler during it, and without one SIGINT, SIGTERM or SIGHUP killed it mid-write, leaving
  //    .attn-tutor-* temporaries and some outputs new, others old. From the first temporary on
  //    (OutputSet::commit calls Module.attnHoldSignals through app/node_process.cpp) the three
  //    signals wait: the command finishes, every output new, and the exit is put off by one turn
  //    of node's loop, in which a signal that came meanwhile ends the process of that signal.
  const heldSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let holding = false;
  function stopHolding() {  // node's default again: the signal ends the process at once
    holding = false;
    for (const s of heldSignals) process.removeListener(s, endOf);
  }
  function endOf(signal) {
    stopHolding();
    process.kill(process.pid, signal);
  }
  Module.attnHoldSignals = function () {
    if (holding) return;
    holding = true;
    for (const s of heldSignals) process.on(s, endOf);
    process.once('exit', stopHolding);
  };
  // --step writes its files first, then puts the terminal in raw mode (app/terminal.cpp) and waits
  // for keys: from then on the signals act at once again (one that came during the writing is lost:
  // the stepping goes on).
  const tty = require('tty');
  const setRawMode = tty.ReadStream.prototype.setRawMode;
  tty.ReadStream.prototype.setRawMode = function (on) {
    if (on && holding) stopHolding();
    return setRawMode.apply(this, arguments);
  };
  const quitNow = quit_;
  quit_ = function (status, toThrow) {
    if (!holding || !(toThrow instanceof ExitStatus)) return quitNow(status, toThrow);
    process.exitCode = status;
    setImmediate(function () {});  // one more turn: node reads the signals that came before it
    throw toThrow;  // unwinds the program to callMain, which takes an ExitStatus as its end
  };
})();
