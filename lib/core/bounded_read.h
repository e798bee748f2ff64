#pragma once
// Reads a learner's file with a size limit and a time limit: /dev/zero, an endless FIFO or a
// terminal cannot make attn-tutor read forever or fill the memory.
#include <cstddef>
#include <string>

#include "core/usage_error.h"

namespace attn {

constexpr std::size_t kMiB = 1024 * 1024;

struct BoundedRead {
  enum Problem { kNone, kCannotOpen, kIsDirectory, kTooLarge, kTimedOut, kReadError };
  Problem problem = kNone;
  std::string text;  // the whole file when problem == kNone
  ErrorText reason;  // the system's reason (errno_text) for kCannotOpen and kReadError
};

// At most `limit` bytes. A regular file larger than the limit is refused from its size without
// being read; any other file (device, FIFO, socket, terminal) is read until end of file, until one
// byte more than the limit, or until `timeout_seconds` have passed, whichever comes first.
BoundedRead read_bounded(const std::string& path, std::size_t limit, int timeout_seconds = 10);

// At most the first `bytes` bytes of a regular file (what it holds when shorter); "" when it is not one
// or cannot be read. Never waits: for deciding what a file is from its start.
std::string read_start(const std::string& path, std::size_t bytes);

// "1 MiB", "8 MiB", "512 KiB": a limit as the messages state it.
std::string size_text(std::size_t bytes);

// The system's reason for errno `err`: keyed for the common ones (core.errno.NAME, whose English is
// strerror's own text), else strerror's text as it is.
ErrorText errno_text(int err);

// The one-line problem for the messages, e.g. "is larger than 1 MiB, the limit for this file" (no
// leading source and no fix), for every problem but kNone.
ErrorText read_problem_text(const BoundedRead& r, std::size_t limit, int timeout_seconds = 10);

}  // namespace attn
