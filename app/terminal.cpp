#include "terminal.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>

#include "notebook/text_pages.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>

// node's answers; in a browser no stream is a terminal.
// clang-format off
EM_JS(int, attn_node_isatty, (int fd), {
  if (typeof process === 'undefined' || typeof require === 'undefined') return 0;
  return require('tty').isatty(fd) ? 1 : 0;
});
// clang-format on
// The terminal's size on stdout: columns (`rows` 0) or rows; 0 when stdout is no terminal.
// clang-format off
EM_JS(int, attn_node_stdout_size, (int rows), {
  if (typeof process === 'undefined' || !process.stdout || !process.stdout.isTTY) return 0;
  return (rows ? process.stdout.rows : process.stdout.columns) | 0;
});
// clang-format on
// clang-format off
EM_JS(int, attn_node_raw_mode, (int on), {
  try {
    if (!process.stdin.isTTY) return 0;
    process.stdin.setRawMode(on !== 0);
    return 1;
  } catch (e) {
    return 0;
  }
});
// clang-format on
// A blocking read of one byte: node made stdin non-blocking, so EAGAIN waits 20 ms and tries again.
// clang-format off
EM_JS(int, attn_node_read_byte, (), {
  const fs = require('fs');
  const buffer = Buffer.alloc(1);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return fs.readSync(0, buffer, 0, 1, null) === 1 ? buffer[0] : -1;
    } catch (e) {
      if (e.code !== 'EAGAIN') return -1;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
});
// clang-format on
#endif

namespace attn {

#if defined(__EMSCRIPTEN__)

bool is_terminal(int fd) { return attn_node_isatty(fd) == 1; }

namespace {
size_t stdout_size(bool rows) {
  const int n = attn_node_stdout_size(rows ? 1 : 0);
  return n > 0 ? static_cast<size_t>(n) : 0;
}
}  // namespace

TerminalKeys::TerminalKeys() { active_ = attn_node_raw_mode(1) == 1; }
TerminalKeys::~TerminalKeys() {
  if (active_) attn_node_raw_mode(0);
}
int TerminalKeys::read_key() {
  const int c = attn_node_read_byte();
  return c == 3 ? 'q' : c;  // Ctrl-C: raw mode delivers it as a byte, not as SIGINT
}

#else

bool is_terminal(int fd) { return isatty(fd) == 1; }

namespace {

// The terminal's size on stdout (TIOCGWINSZ): columns or rows; 0 when stdout is no terminal.
size_t stdout_size(bool rows) {
  struct winsize size {};
  if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return rows ? size.ws_row : size.ws_col;
}

// The terminal's mode before raw mode, for the signal handler.
struct termios saved_mode;
volatile sig_atomic_t raw_mode_on = 0;
constexpr size_t kSignals = 3;
const int kRawSignals[kSignals] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous_handlers[kSignals];

void restore_mode() {
  if (raw_mode_on) tcsetattr(STDIN_FILENO, TCSANOW, &saved_mode);
  raw_mode_on = 0;
}

void on_signal(int sig) {
  restore_mode();
  signal(sig, SIG_DFL);
  raise(sig);
}

void restore_handlers() {
  for (size_t i = 0; i < kSignals; ++i) sigaction(kRawSignals[i], &previous_handlers[i], nullptr);
}

}  // namespace

TerminalKeys::TerminalKeys() {
  if (tcgetattr(STDIN_FILENO, &saved_mode) != 0) return;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < kSignals; ++i) sigaction(kRawSignals[i], &action, &previous_handlers[i]);
  struct termios raw = saved_mode;
  raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));  // Ctrl-C still signals (ISIG stays)
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  raw_mode_on = 1;
  if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0) {
    raw_mode_on = 0;
    restore_handlers();
    return;
  }
  active_ = true;
}

TerminalKeys::~TerminalKeys() {
  if (!active_) return;
  restore_mode();
  restore_handlers();
}

int TerminalKeys::read_key() {
  unsigned char c = 0;
  for (;;) {
    const ssize_t n = read(STDIN_FILENO, &c, 1);
    if (n == 1) return c;
    if (n < 0 && errno == EINTR) continue;
    return -1;
  }
}

#endif

// Both builds: the environment first, then the terminal, then the classic 80x24.
size_t output_columns() {
  if (const size_t n = terminal_dimension(std::getenv("COLUMNS"))) return n;
  if (const size_t n = stdout_size(false)) return n;
  return 80;
}

size_t output_rows() {
  if (const size_t n = terminal_dimension(std::getenv("LINES"))) return n;
  if (const size_t n = stdout_size(true)) return n;
  return 24;
}

}  // namespace attn
