#include "node_process.h"

#include <string>
#include <vector>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#include <sys/stat.h>

// process.umask() reads the mask by setting it and setting it back: node's own documentation deprecates
// the call without an argument for that race, which a single-threaded CLI does not have.
// clang-format off
EM_JS(int, attn_node_umask, (), {
  if (typeof process === 'undefined' || typeof process.umask !== 'function') return 0o022;
  const mask = process.umask(0o022);
  process.umask(mask);
  return mask;
});
// clang-format on

// The last `count` arguments of /proc/self/cmdline, each ended by a 0 byte, kept for the copy below;
// returns their length, or -1 when there are none or they are not the arguments node decoded.
// clang-format off
EM_JS(int, attn_node_argument_bytes_size, (int count), {
  try {
    if (typeof process === 'undefined' || process.platform !== 'linux') return -1;
    const raw = require('fs').readFileSync('/proc/self/cmdline');
    const parts = [];
    for (let start = 0, i = 0; i < raw.length; ++i)
      if (raw[i] === 0) { parts.push(raw.subarray(start, i + 1)); start = i + 1; }
    if (process.argv.length - 2 !== count || parts.length < count) return -1;
    const mine = parts.slice(parts.length - count);
    for (let i = 0; i < count; ++i)
      if (mine[i].subarray(0, mine[i].length - 1).toString('utf8') !== process.argv[2 + i]) return -1;
    Module.attnArgumentBytes = Buffer.concat(mine);
    return Module.attnArgumentBytes.length;
  } catch (e) {
    return -1;
  }
});
// clang-format on
// clang-format off
EM_JS(void, attn_node_hold_signals, (), {
  if (Module.attnHoldSignals) Module.attnHoldSignals();
});
// clang-format on
// clang-format off
EM_JS(void, attn_node_argument_bytes_copy, (char* to), {
  HEAPU8.set(Module.attnArgumentBytes, to);
  delete Module.attnArgumentBytes;
});
// clang-format on
#endif

namespace attn {

char** adopt_node_process(int argc, char** argv) {
#if defined(__EMSCRIPTEN__)
  ::umask(static_cast<mode_t>(attn_node_umask()));
#endif
#if defined(__EMSCRIPTEN__) && defined(ATTN_NODE_CLI)
  const int size = attn_node_argument_bytes_size(argc - 1);
  if (size < 0) return argv;
  static std::string bytes;  // the arguments, each ended by its 0 byte, for the life of the process
  static std::vector<char*> arguments;
  bytes.assign(static_cast<size_t>(size), '\0');
  attn_node_argument_bytes_copy(bytes.data());
  arguments.assign(1, argv[0]);
  for (size_t start = 0; start < bytes.size(); start = bytes.find('\0', start) + 1) arguments.push_back(&bytes[start]);
  arguments.push_back(nullptr);
  return arguments.data();
#else
  (void)argc;
  return argv;
#endif
}

void hold_signals_until_exit() {
#if defined(__EMSCRIPTEN__) && defined(ATTN_NODE_CLI)
  attn_node_hold_signals();
#endif
}

}  // namespace attn
