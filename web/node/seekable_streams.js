// Linked into the node CLI with --post-js (cmake/web.cmake). Emscripten 3.1.6's NODERAWFS marks every
// file it opens as seekable, so a pipe or a terminal opened by its path (check /dev/stdin, check
// <(...), --json /dev/stdout into a pipe) is read and written at an offset and fails with ESPIPE.
// Each stream is marked as the operating system says it is.
(function () {
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
