#pragma once
// Everything one command writes (its files and its standard output), written all or nothing:
// every file is first written in full to a temporary beside its target, then the devices and
// FIFOs and standard output are written, and only when all of that succeeded are the temporaries
// renamed onto their targets. Any failure removes the temporaries and throws UsageError, so a
// failing command leaves no file behind, new or half-written.
//
// Outputs are compared with each other and with the command's inputs by identity (device and inode,
// or for a file not created yet its directory's identity and its name, symlinks followed), not by
// spelling: two outputs that are one file, or an output that is an input, are refused before
// anything is written; so is an output that is the regular file or pipe on standard input, output or
// error (/dev/stdout > f). Character devices (/dev/null, a terminal) may be shared.
//
// Signals: while commit() runs, SIGINT, SIGTERM and SIGHUP (unless the caller ignores them) remove
// the temporaries before the process ends of them, and are held back while the temporaries are
// renamed, so an interrupted command leaves either all the old files or all the new ones.
// A closed pipe on standard output ends the process of SIGPIPE as usual, after removing the
// temporaries; when the caller ignores SIGPIPE it is an error (UsageError) instead.
//
// A target that is a device or a FIFO (/dev/null, /dev/full, a pipe) is written directly, never
// replaced by a regular file; a symlink keeps being a symlink and its target file is replaced; a
// new file gets the umask's permissions, a replaced one keeps its own.
#include <string>
#include <vector>

#include "core/usage_error.h"

namespace attn {

class OutputSet {
 public:
  // `option` names the output in messages, as the caller names it. Throws UsageError at once when `path` is empty.
  void add_file(const std::string& option, const std::string& path, std::string content);
  // A file the command reads: no output may be it. A path that does not exist (yet) is not compared.
  void add_input(const std::string& option, const std::string& path);
  // The text for standard output (written after the devices, before the renames).
  void set_stdout(std::string text);
  // Writes everything or nothing; throws UsageError with one line naming the output that failed.
  void commit();

 private:
  struct File {
    std::string option, path, content;
  };
  std::vector<File> files_;
  std::vector<File> inputs_;  // content unused
  std::string stdout_text_;
  bool has_stdout_ = false;
};

// The one-line problem for an empty output path, named as the caller names it (with its fix);
// `dash_is_stdout` when "-" would have meant standard output.
// The line for a failed write to standard output with errno `err` (0: unknown), its fix chosen by it.
ErrorText stdout_error_text(int err);

ErrorText empty_path_message(const std::string& option, bool dash_is_stdout);

// Before a long computation: throws UsageError when `path` cannot become an output (empty, a
// directory, a missing or read-only directory, a FIFO nobody reads is found only when written).
void check_output_path(const std::string& option, const std::string& path);

// An output or input as the command line names it ("--json", "out.json").
struct NamedPath {
  std::string option, path;
};

// Before a long computation: throws UsageError naming both options when two of `outputs` are the
// same file or one of them is one of `inputs` (compared as commit() compares them).
void check_distinct_files(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace attn
