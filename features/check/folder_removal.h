#pragma once
// Folders read and removed as the check's runner needs it: the program's scratch folder (from a signal
// handler and after fork as well as in the normal way) and /proc's entries, without allocating.
#if !defined(__EMSCRIPTEN__)
#include <dirent.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#include <cstdint>
#endif

namespace attn {

#if !defined(__EMSCRIPTEN__)
// "." and "..".
inline bool is_dot(const char* name) { return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)); }

#if defined(__linux__)
struct Dirent64 {
  std::uint64_t ino;
  std::int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

// Calls f(name) for each entry of the folder open at fd, from its start (getdents64: no allocation).
template <class F>
void each_entry(int fd, F&& f) {
  alignas(8) char buf[2048];
  ::lseek(fd, 0, SEEK_SET);
  for (;;) {
    const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n <= 0) return;
    for (long off = 0; off < n;) {
      const Dirent64* d = reinterpret_cast<const Dirent64*>(buf + off);
      off += d->reclen;
      if (!is_dot(d->name)) f(d->name);
    }
  }
}
#else
// Calls f(name) for each entry of the folder open at fd (readdir: the portable way, not signal-safe).
template <class F>
void each_entry(int fd, F&& f) {
  const int copy = ::dup(fd);
  DIR* d = copy >= 0 ? ::fdopendir(copy) : nullptr;
  if (!d) {
    if (copy >= 0) ::close(copy);
    return;
  }
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d))
    if (!is_dot(e->d_name)) f(e->d_name);
  ::closedir(d);
}
#endif

#endif

// Removes the folder `dir` and everything in it, never following a symbolic link (a link is removed, not
// what it names) and never leaving the folder; a folder the program made unreadable is made readable
// first. True when it is gone. Allocates nothing (it runs in a signal handler and after fork).
bool remove_tree(const char* dir);

}  // namespace attn
