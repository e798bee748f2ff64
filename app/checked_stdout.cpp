#include "checked_stdout.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <streambuf>

#include "core/bounded_read.h"
#include "core/usage_error.h"
#include "language.h"
#include "output_file.h"
#include "lessons/ui_text.h"

namespace attn {

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

void stdout_exit_check() {
  std::cout.flush();
  const bool ok = checked_stdout->drain() && std::fflush(stdout) == 0 && !std::ferror(stdout);
  if (ok) return;
  const std::string line = error_message(stdout_error_text(checked_stdout->error()), help_language());
  std::fprintf(stderr, "attn-tutor: error: %s\n", line.c_str());
  std::_Exit(2);
}

}  // namespace

void check_stdout_at_exit() {
  if (checked_stdout) return;
  checked_stdout = new CheckedStdout;
  std::cout.rdbuf(checked_stdout);
  std::atexit(stdout_exit_check);
}

}  // namespace attn
