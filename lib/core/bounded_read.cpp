#include "core/bounded_read.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>

// A real sleep under node (Atomics.wait blocks the thread without spinning); in a browser's main thread,
// which may not block, it returns at once (the page's files are in memory and never wait).
// clang-format off
EM_JS(void, attn_sleep_ms, (int ms), {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  } catch (e) {
  }
});
// clang-format on
#endif

namespace attn {

namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Waits until `fd` has something to read (or its writer hung up), but not past `deadline`; false,
// with the problem set, on a timeout or an error.
bool wait_readable(int fd, std::chrono::steady_clock::time_point deadline, BoundedRead& r) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.problem = BoundedRead::kTimedOut;
      r.text.clear();
      return false;
    }
#if defined(__EMSCRIPTEN__)
    // emscripten's poll() cannot wait on a file node opened (it has no poll for them): sleep a little
    // and let the caller read again, until the deadline.
    (void)fd;
    attn_sleep_ms(static_cast<int>(std::min<long long>(10, left.count())));
    return true;
#else
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) {
      r.problem = BoundedRead::kReadError;
      r.reason = errno_text(errno);
      r.text.clear();
      return false;
    }
#endif
  }
}

}  // namespace

std::string size_text(std::size_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " bytes";
}

BoundedRead read_bounded(const std::string& path, std::size_t limit, int timeout_seconds) {
  BoundedRead r;
  // O_NONBLOCK: opening a FIFO without a writer must not block; reads then wait in poll() below,
  // where the time limit applies.
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (f.fd < 0) {
    r.problem = BoundedRead::kCannotOpen;
    r.reason = errno_text(errno);
    return r;
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    r.problem = BoundedRead::kReadError;
    r.reason = errno_text(errno);
    return r;
  }
  if (S_ISDIR(st.st_mode)) {
    r.problem = BoundedRead::kIsDirectory;
    return r;
  }
  const bool regular = S_ISREG(st.st_mode);
  if (regular && static_cast<unsigned long long>(st.st_size) > limit) {
    r.problem = BoundedRead::kTooLarge;
    return r;
  }
  if (regular) r.text.reserve(static_cast<std::size_t>(st.st_size));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  // A FIFO opened with O_NONBLOCK reads as empty (read() returns 0) until its writer has opened it,
  // so `printf ... > fifo &` started just before us would look like an empty file. Wait until it
  // is readable first (Linux's poll() does not report a hang-up for a writer that never came).
  // (Under node there is no such wait: a FIFO that has never had a writer reads as empty at once.)
#if !defined(__EMSCRIPTEN__)
  if (S_ISFIFO(st.st_mode) && !wait_readable(f.fd, deadline, r)) return r;
#endif
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(f.fd, buffer, sizeof buffer);
    if (n > 0) {
      r.text.append(buffer, static_cast<std::size_t>(n));
      if (r.text.size() > limit) {  // a regular file that grew, /dev/zero, an endless pipe
        r.text.clear();
        r.text.shrink_to_fit();
        r.problem = BoundedRead::kTooLarge;
        return r;
      }
      continue;
    }
    if (n == 0) return r;  // end of file
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      r.problem = errno == EISDIR ? BoundedRead::kIsDirectory : BoundedRead::kReadError;
      r.reason = errno_text(errno);
      r.text.clear();
      return r;
    }
    // Nothing to read yet (a FIFO, a terminal): wait, but not past the deadline.
    if (!wait_readable(f.fd, deadline, r)) return r;
  }
}

std::string read_start(const std::string& path, std::size_t bytes) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st {};
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::string start(bytes, '\0');
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::read(f.fd, &start[got], bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  start.resize(got);
  return start;
}

ErrorText errno_text(int err) {
  const char* name = nullptr;
  switch (err) {
    case ENOENT:
      name = "ENOENT";
      break;
    case ENOTDIR:
      name = "ENOTDIR";
      break;
    case EISDIR:
      name = "EISDIR";
      break;
    case EACCES:
      name = "EACCES";
      break;
    case EPERM:
      name = "EPERM";
      break;
    case EROFS:
      name = "EROFS";
      break;
    case ENOSPC:
      name = "ENOSPC";
      break;
    case EDQUOT:
      name = "EDQUOT";
      break;
    case EFBIG:
      name = "EFBIG";
      break;
    case ENXIO:
      name = "ENXIO";
      break;
    case ENAMETOOLONG:
      name = "ENAMETOOLONG";
      break;
    case ELOOP:
      name = "ELOOP";
      break;
    case EPIPE:
      name = "EPIPE";
      break;
    case EIO:
      name = "EIO";
      break;
    case EINVAL:
      name = "EINVAL";
      break;
    default:
      return std::string(std::strerror(err));
  }
  return error_text(std::string("core.errno.") + name, {std::string(std::strerror(err))});
}

ErrorText read_problem_text(const BoundedRead& r, std::size_t limit, int timeout_seconds) {
  switch (r.problem) {
    case BoundedRead::kNone:
      return "";
    case BoundedRead::kCannotOpen:
      return error_text("core.read.cannot-open", {r.reason});
    case BoundedRead::kIsDirectory:
      return error_text("core.read.directory");
    case BoundedRead::kTooLarge:
      return error_text("core.read.too-large", {size_text(limit)});
    case BoundedRead::kTimedOut:
      return error_text("core.read.timed-out", {std::to_string(timeout_seconds)});
    case BoundedRead::kReadError:
      return error_text("core.read.cannot-read", {r.reason});
  }
  return "";
}

}  // namespace attn
