#include "output_file.h"

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

#include "core/file_access.h"
#include "core/bounded_read.h"
#include "core/commit_temporaries.h"
#include "core/safe_text.h"
#include "core/usage_error.h"
#include "node_process.h"

namespace attn {

namespace {

// How one output reaches its target.
struct Plan {
  std::string option, path, content;
  bool direct = false;     // a device or FIFO: opened and written as it is
  std::string final_path;  // the regular file to create or replace (symlinks followed)
  bool exists = false;
  struct stat st {};  // of the existing final_path
  int temp = -1;      // its slot in the registry of temporaries, once created
};

ErrorText fix_for(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return error_text("core.output.fix-mkdir");
    case EACCES:
    case EPERM:
      return error_text("core.output.fix-writable");
    case EROFS:
      return error_text("core.output.fix-read-only-fs");
    case EFBIG:
      return error_text("core.output.fix-file-size");
    case ENOSPC:
    case EDQUOT:
      return error_text("core.output.fix-space");
    case ENXIO:
      return error_text("core.output.fix-reader");
    case ENAMETOOLONG:
      return error_text("core.output.fix-shorter");
    default:
      return error_text("core.output.fix-other");
  }
}

// `what`: a key of lib/core/text.txt (core.output.*).
[[noreturn]] void fail(const std::string& option, const std::string& path, const char* what, int err) {
  throw UsageError(
      error_text("core.output.fail-errno", {option, echo(path, 60), error_text(what), errno_text(err), fix_for(err)}));
}

[[noreturn]] void fail(const Plan& p, const char* what, int err) { fail(p.option, p.path, what, err); }

[[noreturn]] void fail(const std::string& option, const std::string& path, ErrorText what_and_fix) {
  throw UsageError(error_text("core.output.fail", {option, echo(path, 60), std::move(what_and_fix)}));
}

[[noreturn]] void fail(const Plan& p, ErrorText what_and_fix) { fail(p.option, p.path, std::move(what_and_fix)); }

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
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

// What a path names, whatever its spelling: an existing file's device and inode (hard links and
// symlinks to it included), or for a file not created yet (a dangling symlink followed to its end)
// its directory's device and inode and its name.
struct Identity {
  bool known = false;      // false: neither the file nor its directory can be reached
  bool shareable = false;  // a character device (/dev/null, a terminal): two outputs may both write it
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;  // of a file not created yet
};

Identity identity_of(const std::string& path) {
  Identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.known = id.exists = true;
    id.shareable = S_ISCHR(st.st_mode);
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  std::string final_path = path;
  if (!follow_links(final_path)) return id;
  if (::stat(final_path.c_str(), &st) == 0) return identity_of(final_path);  // appeared meanwhile
  if (::stat(directory_of(final_path).c_str(), &st) != 0) return id;
  id.known = true;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.name = name_of(final_path);
  return id;
}

bool same_file(const Identity& a, const Identity& b) {
  return a.known && b.known && !a.shareable && !b.shareable && a.exists == b.exists && a.dev == b.dev &&
         a.ino == b.ino && a.name == b.name;
}

// A standard descriptor's file when it is one an output could replace or feed (a regular file, a
// pipe), not a terminal or /dev/null, which outputs may share.
Identity identity_of_descriptor(int fd) {
  Identity id;
  struct stat st {};
  if (standard_stream_stat(fd, &st) != 0 || S_ISCHR(st.st_mode)) return id;
  id.known = id.exists = true;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  return id;
}

// Outputs against each other, against the inputs and against the standard descriptors (--json
// /dev/stdout > f, --json /dev/stdin < f, /proc/self/fd/1); throws naming both.
void require_distinct(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  const char* const standard[] = {"core.output.is-stdin", "core.output.is-stdout", "core.output.is-stderr"};
  std::vector<Identity> input_ids;
  for (const NamedPath& in : inputs) {
    Identity id = identity_of(in.path);
    input_ids.push_back(id.exists ? id : Identity{});  // a missing input is reported by its reader
  }
  std::vector<Identity> seen;
  for (const NamedPath& out : outputs) {
    const Identity id = identity_of(out.path);
    for (int fd = 0; fd < 3; ++fd)
      if (same_file(id, identity_of_descriptor(fd))) fail(out.option, out.path, error_text(standard[fd]));
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (same_file(id, input_ids[i]))
        fail(out.option, out.path,
             error_text("core.output.same-as-input", {inputs[i].option + " " + echo(inputs[i].path, 60)}));
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (same_file(id, seen[i]))
        fail(out.option, out.path,
             error_text("core.output.same-file", {outputs[i].option + " " + echo(outputs[i].path, 60)}));
    seen.push_back(id);
  }
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
  if (p.exists && file_access(p.final_path.c_str(), W_OK) != 0)  // chmod helps a file, not a read-only mount
    fail(p, error_text(errno == EROFS ? "core.output.read-only-fs" : "core.output.read-only"));
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

void write_temp(Plan& p, Temporaries& temporaries) {
  int fd = -1;
  p.temp = temporaries.create(directory_of(p.final_path), fd);
  if (p.temp < 0) {
    const int err = errno;
    if (p.exists && (err == ENOENT || err == ENOTDIR))  // the file is there, its directory takes no new one (/proc)
      throw UsageError(
          error_text("core.output.fail-errno", {p.option, echo(p.path, 60), error_text("core.output.cannot-create"),
                                                errno_text(err), error_text("core.output.fix-other")}));
    fail(p, "core.output.cannot-create", err);
  }
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
  std::string().swap(p.content);  // written: its memory is not needed any more
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

// A reader that goes away must not kill the process between writing the temporaries and removing
// them: EPIPE comes back as an error instead. `caller_ignores` keeps what the process was started
// with: then EPIPE stays an error to the end.
struct IgnoreSigpipe {
  struct sigaction old {};
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &old);
  }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &old, nullptr); }
  bool caller_ignores() const { return old.sa_handler == SIG_IGN; }
};

}  // namespace

ErrorText stdout_error_text(int err) {
  const ErrorText why = err != 0 ? errno_text(err) : error_text("core.output.write-failed");
  return error_text(err == ENOSPC  ? "core.output.stdout-space"
                    : err == EFBIG ? "core.output.stdout-size"
                                   : "core.output.stdout",
                    {why});
}

ErrorText empty_path_message(const std::string& option, bool dash_is_stdout) {
  return error_text(dash_is_stdout ? "core.output.empty-path-or-dash" : "core.output.empty-path", {option});
}

void check_distinct_files(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  require_distinct(outputs, inputs);
}

void check_output_path(const std::string& option, const std::string& path) {
  if (path.empty()) throw UsageError(empty_path_message(option, false));
  require_distinct({{option, path}}, {});
  Plan p;
  p.option = option;
  p.path = path;
  plan_target(p);
  if (!p.direct && file_access(directory_of(p.final_path).c_str(), W_OK | X_OK) != 0)
    fail(p, "core.output.cannot-create", errno);
}

void OutputSet::add_file(const std::string& option, const std::string& path, std::string content) {
  if (path.empty()) throw UsageError(empty_path_message(option, false));
  files_.push_back({option, path, std::move(content)});
}

void OutputSet::add_input(const std::string& option, const std::string& path) { inputs_.push_back({option, path, {}}); }

void OutputSet::set_stdout(std::string text) {
  stdout_text_ = std::move(text);
  has_stdout_ = true;
}

void OutputSet::commit() {
  {
    std::vector<NamedPath> outputs, inputs;
    for (const File& f : files_) outputs.push_back({f.option, f.path});
    for (const File& f : inputs_) inputs.push_back({f.option, f.path});
    require_distinct(outputs, inputs);
  }
  std::vector<Plan> plans;
  for (File& f : files_) {
    Plan p;
    p.option = f.option;
    p.path = f.path;
    p.content = std::move(f.content);
    plan_target(p);
    for (const Plan& q : plans)  // the same file reached twice after all (a link made meanwhile)
      if (!p.direct && !q.direct && p.final_path == q.final_path)
        fail(p, error_text("core.output.same-file", {q.option + " " + echo(q.path, 60)}));
    plans.push_back(std::move(p));
  }
  files_.clear();
  const IgnoreSigpipe sigpipe_ignored;
  hold_signals_until_exit();  // under node; natively the temporaries' own handlers
  Temporaries temporaries;
  // 1. Every file in full beside its target; a signal now removes them and leaves the old files.
  for (Plan& p : plans)
    if (!p.direct) write_temp(p, temporaries);
  // 2. Devices, FIFOs and standard output, which cannot be taken back; a signal still leaves the
  //    old files (and part of this output).
  for (const Plan& p : plans)
    if (p.direct) write_direct(p);
  if (has_stdout_) {
    std::cout.flush();
    std::fflush(stdout);
    if (!write_all(STDOUT_FILENO, stdout_text_)) {
      const int err = errno;
      if (err == EPIPE && !sigpipe_ignored.caller_ignores()) {
        // The reader is gone (| head): remove the temporaries, then end as a pipe writer does.
        Temporaries::remove_all();
        ::signal(SIGPIPE, SIG_DFL);
        ::raise(SIGPIPE);
      }
      throw UsageError(stdout_error_text(err));
    }
  }
  // 3. The renames, with SIGINT, SIGTERM and SIGHUP held back until the last one is done: a signal
  //    then ends the process with every new file in place.
  std::vector<std::string> directories;
  {
    const HoldSignals held;
    for (Plan& p : plans)
      if (!p.direct) {
        if (std::rename(Temporaries::name(p.temp), p.final_path.c_str()) != 0)
          fail(p, "core.output.cannot-replace", errno);
        Temporaries::forget(p.temp);
        directories.push_back(directory_of(p.final_path));
      }
  }
  // Best effort: the renames themselves on disk (a power loss after this keeps the new files).
  for (const std::string& dir : directories) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      ::fsync(fd);
      ::close(fd);
    }
  }
}

}  // namespace attn
