#include "core/file_access.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>

// 0 when allowed; otherwise 1 + the index of node's error code in kNodeErrors (an unknown code counts
// as EACCES, the first); -1 without node.
// clang-format off
EM_JS(int, attn_node_access, (const char* path, int mode), {
  if (typeof process === 'undefined' || typeof require === 'undefined') return -1;
  try {
    require('fs').accessSync(UTF8ToString(path), mode);
    return 0;
  } catch (e) {
    return 1 + Math.max(0, ['EACCES', 'ENOENT', 'ENOTDIR', 'EROFS', 'ELOOP', 'ENAMETOOLONG', 'EPERM'].indexOf(e.code));
  }
});
// clang-format on
constexpr int kNodeErrors[] = {EACCES, ENOENT, ENOTDIR, EROFS, ELOOP, ENAMETOOLONG, EPERM};
#endif

namespace attn {

int file_access(const char* path, int mode) {
#if defined(__EMSCRIPTEN__)
  const int result = attn_node_access(path, mode);
  if (result == -1) return ::access(path, mode);  // no node (the page): the in-memory filesystem's answer
  if (result == 0) return 0;
  errno = result >= 1 && result <= 7 ? kNodeErrors[result - 1] : EACCES;
  return -1;
#else
  return ::access(path, mode);
#endif
}

int standard_stream_stat(int fd, struct stat* st) {
#if defined(__EMSCRIPTEN__)
  for (const char* folder : {"/proc/self/fd/", "/dev/fd/"})
    if (::stat((folder + std::to_string(fd)).c_str(), st) == 0) return 0;
#endif
  return ::fstat(fd, st);
}

}  // namespace attn
