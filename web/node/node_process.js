// Linked into the node CLI with --post-js (cmake/web.cmake): what emscripten 3.1.6 does not take
// from node's process, given to the program before its main runs.
(function () {
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
      const st = require('fs').fstatSync(stream.nfd);
      stream.seekable = st.isFile() || st.isBlockDevice();
    }
    return stream;
  };
})();
