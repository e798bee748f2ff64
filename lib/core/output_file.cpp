#include "core/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <streambuf>

#include "core/bounded_read.h"
#include "core/safe_text.h"
#include "core/usage_error.h"

namespace attn {

namespace {

// How one output reaches its target.
struct Plan {
  std::string option, path, content;
  bool direct = false;     // a device or FIFO: opened and written as it is
  std::string final_path;  // the regular file to create or replace (symlinks followed)
  bool exists = false;
  struct stat st {};       // of the existing final_path
  std::string temp;        // the temporary beside final_path, once created
};

ErrorText fix_for(int err) {
  switch (err) {
    case ENOENT: case ENOTDIR: return error_text("core.output.fix-mkdir");
    case EACCES: case EPERM: case EROFS: return error_text("core.output.fix-writable");
    case ENOSPC: case EDQUOT: return error_text("core.output.fix-space");
    case ENXIO: return error_text("core.output.fix-reader");
    case ENAMETOOLONG: return error_text("core.output.fix-shorter");
    default: return error_text("core.output.fix-other");
  }
}

// `what`: a key of lib/core/text.txt (core.output.*).
[[noreturn]] void fail(const Plan& p, const char* what, int err) {
  throw UsageError(error_text("core.output.fail-errno", {p.option, echo(p.path, 60), error_text(what), errno_text(err), fix_for(err)}));
}

[[noreturn]] void fail(const Plan& p, ErrorText what_and_fix) {
  throw UsageError(error_text("core.output.fail", {p.option, echo(p.path, 60), std::move(what_and_fix)}));
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Where a chain of symlinks ends (a path that may not exist yet); false after 40 links.
bool follow_links(std::string& path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return true;
    std::vector<char> buffer(PATH_MAX + 1);
    const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size() - 1);
    if (n <= 0) return true;
    const std::string link(buffer.data(), static_cast<std::size_t>(n));
    path = link[0] == '/' ? link : directory_of(path) + "/" + link;
  }
  return false;
}

void plan_target(Plan& p) {
  struct stat st {};
  if (::stat(p.path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(p, error_text("core.output.directory", {echo(p.path, 40)}));
    if (!S_ISREG(st.st_mode)) {  // /dev/null, /dev/full, a FIFO, a terminal: written where it is
      p.direct = true;
      return;
    }
  } else if (errno != ENOENT) {
    fail(p, "core.output.cannot-reach", errno);
  }
  p.final_path = p.path;
  if (!follow_links(p.final_path)) fail(p, "core.output.cannot-reach", ELOOP);
  p.exists = ::lstat(p.final_path.c_str(), &p.st) == 0;
  if (p.exists && ::access(p.final_path.c_str(), W_OK) != 0)
    fail(p, error_text("core.output.read-only"));
}

bool write_all(int fd, const std::string& text) {
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

mode_t new_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

void write_temp(Plan& p) {
  std::string name = directory_of(p.final_path) + "/.attn-tutor-XXXXXX";
  std::vector<char> templ(name.begin(), name.end());
  templ.push_back('\0');
  const int fd = ::mkstemp(templ.data());
  if (fd < 0) fail(p, "core.output.cannot-create", errno);
  p.temp = templ.data();
  // mkstemp creates 0600: a new file takes the umask's permissions, a replaced one keeps its own.
  const mode_t mode = p.exists ? (p.st.st_mode & 07777) : new_file_mode();
  if (p.exists && ::geteuid() == 0 && ::fchown(fd, p.st.st_uid, p.st.st_gid) != 0) {
    // best effort: root replacing someone's file gives it back to them
  }
  if (::fchmod(fd, mode) != 0 || !write_all(fd, p.content) || ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail(p, "core.output.cannot-write", err);
  }
  if (::close(fd) != 0) fail(p, "core.output.cannot-write", errno);
}

void write_direct(const Plan& p) {
  const int fd = ::open(p.path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(p, errno == ENXIO ? "core.output.no-reader" : "core.output.cannot-open", errno);
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  if (!write_all(fd, p.content)) {
    const int err = errno;
    ::close(fd);
    fail(p, "core.output.cannot-write", err);
  }
  if (::close(fd) != 0) fail(p, "core.output.cannot-write", errno);
}

// Removes the temporaries when the commit does not reach its end.
struct Temporaries {
  std::vector<Plan>& plans;
  bool committed = false;
  ~Temporaries() {
    if (committed) return;
    for (const Plan& p : plans)
      if (!p.temp.empty()) ::unlink(p.temp.c_str());
  }
};

// A reader that goes away must not kill the process between writing the temporaries and removing
// them: EPIPE comes back as an error instead.
struct IgnoreSigpipe {
  struct sigaction old {};
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &old);
  }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &old, nullptr); }
};

}  // namespace

ErrorText empty_path_message(const std::string& option, bool dash_is_stdout) {
  return error_text(dash_is_stdout ? "core.output.empty-path-or-dash" : "core.output.empty-path", {option});
}

void check_output_path(const std::string& option, const std::string& path) {
  if (path.empty()) throw UsageError(empty_path_message(option, false));
  Plan p;
  p.option = option;
  p.path = path;
  plan_target(p);
  if (!p.direct && ::access(directory_of(p.final_path).c_str(), W_OK | X_OK) != 0)
    fail(p, "core.output.cannot-create", errno);
}

void OutputSet::add_file(const std::string& option, const std::string& path, std::string content) {
  if (path.empty()) throw UsageError(empty_path_message(option, false));
  files_.push_back({option, path, std::move(content)});
}

void OutputSet::set_stdout(std::string text) {
  stdout_text_ = std::move(text);
  has_stdout_ = true;
}

void OutputSet::commit() {
  std::vector<Plan> plans;
  for (File& f : files_) {
    Plan p;
    p.option = f.option;
    p.path = f.path;
    p.content = std::move(f.content);
    plan_target(p);
    for (const Plan& q : plans)
      if (!p.direct && !q.direct && p.final_path == q.final_path)
        fail(p, error_text("core.output.same-file", {q.option}));
    plans.push_back(std::move(p));
  }
  files_.clear();
  const IgnoreSigpipe sigpipe_ignored;
  Temporaries temporaries{plans};
  for (Plan& p : plans)
    if (!p.direct) write_temp(p);
  for (const Plan& p : plans)
    if (p.direct) write_direct(p);
  if (has_stdout_) {
    std::cout.flush();
    std::fflush(stdout);
    if (!write_all(STDOUT_FILENO, stdout_text_)) {
      const int err = errno;
      if (err == EPIPE) {  // the reader is gone (| head): remove the temporaries, then end as a pipe writer does
        for (Plan& p : plans)
          if (!p.temp.empty()) ::unlink(p.temp.c_str());
        ::signal(SIGPIPE, SIG_DFL);
        ::raise(SIGPIPE);
      }
      throw UsageError(error_text(err == ENOSPC ? "core.output.stdout-space" : "core.output.stdout", {errno_text(err)}));
    }
  }
  for (Plan& p : plans)
    if (!p.direct) {
      if (std::rename(p.temp.c_str(), p.final_path.c_str()) != 0) fail(p, "core.output.cannot-replace", errno);
      p.temp.clear();
    }
  temporaries.committed = true;
}

namespace {

// std::cout's buffer: writes to descriptor 1 itself, so the reason of the first failed write
// (ENOSPC, EBADF) is known when the exit check reports it. Line-buffered on a terminal.
class CheckedStdout : public std::streambuf {
 public:
  CheckedStdout() : line_buffered_(::isatty(STDOUT_FILENO) == 1) { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }
  bool drain() { return flush_buffer(); }

 protected:
  int_type overflow(int_type c) override {
    if (!flush_buffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
      if (line_buffered_ && c == '\n' && !flush_buffer()) return traits_type::eof();
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::size_t size = static_cast<std::size_t>(n);
    if (size > static_cast<std::size_t>(epptr() - pptr())) {
      if (!flush_buffer()) return 0;
      if (size >= sizeof buffer_) return write_out(s, size) ? n : 0;
    }
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(n));
    if (line_buffered_ && std::memchr(s, '\n', size) && !flush_buffer()) return 0;
    return n;
  }
  int sync() override { return flush_buffer() ? 0 : -1; }

 private:
  bool write_out(const char* data, std::size_t left) {
    if (error_ != 0) return false;
    while (left > 0) {
      const ssize_t n = ::write(STDOUT_FILENO, data, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      data += n;
      left -= static_cast<std::size_t>(n);
    }
    return true;
  }
  bool flush_buffer() {
    const bool ok = write_out(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buffer_, buffer_ + sizeof buffer_);
    return ok;
  }

  char buffer_[1 << 16];
  bool line_buffered_;
  int error_ = 0;
};

CheckedStdout* checked_stdout = nullptr;  // never destroyed: std::cout may be used until the very end
ErrorRenderer render_error = nullptr;

void stdout_exit_check() {
  std::cout.flush();
  const bool ok = checked_stdout->drain() && std::fflush(stdout) == 0 && !std::ferror(stdout);
  if (ok) return;
  const int err = checked_stdout->error();
  const ErrorText why = err != 0 ? errno_text(err) : error_text("core.output.write-failed");
  const std::string line = render_error(error_text(err == ENOSPC ? "core.output.stdout-space" : "core.output.stdout", {why}));
  std::fprintf(stderr, "attn-tutor: error: %s\n", line.c_str());
  std::_Exit(2);
}

}  // namespace

void check_stdout_at_exit(ErrorRenderer render) {
  if (checked_stdout) return;
  render_error = render;
  checked_stdout = new CheckedStdout;
  std::cout.rdbuf(checked_stdout);
  std::atexit(stdout_exit_check);
}

}  // namespace attn
