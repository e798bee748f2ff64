#include "features/check/folder_removal.h"

#if defined(__EMSCRIPTEN__)

namespace attn {

bool remove_tree(const char*) { return false; }

}  // namespace attn

#else

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace attn {

namespace {

constexpr int kMaxDepth = 8;  // a folder nested deeper is moved up to the top folder, then emptied there

// "attn-up-N", a name for a folder moved up to the top folder.
void moved_name(unsigned n, char* out) {
  char digits[16];
  int k = 0;
  do digits[k++] = static_cast<char>('0' + n % 10);
  while ((n /= 10) != 0 && k < 15);
  std::memcpy(out, "attn-up-", 8);
  for (int i = 0; i < k; ++i) out[8 + i] = digits[k - 1 - i];
  out[8 + k] = 0;
}

bool empty_folder(int fd, int top, int depth, unsigned& moved);

// Removes the entry `name` of the folder open at fd (a folder: emptied first). True when it is gone.
bool remove_entry(int fd, const char* name, int top, int depth, unsigned& moved) {
  struct stat st {};
  if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT;
  if (!S_ISDIR(st.st_mode)) return ::unlinkat(fd, name, 0) == 0 || errno == ENOENT;
  if (depth >= kMaxDepth) {
    char up[32];
    moved_name(++moved, up);
    return ::renameat(fd, name, top, up) == 0;
  }
  int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (sub < 0 && errno == EACCES && ::fchmodat(fd, name, 0700, 0) == 0)
    sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (sub < 0) return false;
  empty_folder(sub, top, depth + 1, moved);
  ::close(sub);
  if (::unlinkat(fd, name, AT_REMOVEDIR) == 0) return true;
  if (errno != EACCES && errno != EPERM) return false;
  ::fchmodat(fd, name, 0700, 0);  // a folder without write permission keeps its entries: grant it, again
  return false;
}

// Removes everything in the folder open at fd, reading it again while a pass removes something.
bool empty_folder(int fd, int top, int depth, unsigned& moved) {
  for (;;) {
    int removed = 0, left = 0;
    each_entry(fd, [&](const char* name) { ++(remove_entry(fd, name, top, depth, moved) ? removed : left); });
    if (left == 0 && removed == 0) return true;
    if (removed == 0) return false;
  }
}

}  // namespace

bool remove_tree(const char* dir) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return true;
    if (errno == ELOOP || errno == ENOTDIR) return ::unlink(dir) == 0;  // replaced by a link or a file
    if (errno != EACCES || ::chmod(dir, 0700) != 0) return false;
    return remove_tree(dir);
  }
  unsigned moved = 0;
  empty_folder(fd, fd, 0, moved);
  ::close(fd);
  return ::rmdir(dir) == 0 || errno == ENOENT;
}

}  // namespace attn

#endif
