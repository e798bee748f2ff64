#pragma once
// Runs the built attn-tutor under a time limit and measures its peak memory (tests only): a hostile
// input must end quickly, in little memory, with one clean line, and leave no file behind.
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

// Memory measured under AddressSanitizer is not the program's own (shadow memory, quarantine):
// a bound meant for the program is compared only without it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// The arm64 tests run under qemu-user, whose own memory and limits are counted with the program's.
#if defined(ATTN_UNDER_EMULATOR)
constexpr bool kEmulated = true;
#else
constexpr bool kEmulated = false;
#endif

struct BoundedRun {
  int exit_code = -1;  // 128 + signal when killed
  std::string out, err;
  double seconds = 0;
  long max_rss_kb = 0;     // peak resident memory of the command and what it waited for
  double cpu_seconds = 0;  // its user + system time (wait4's rusage), whatever else loads the machine
  bool timed_out = false;
};

// `args` as in run_cli. `before` is shell text run first in the same shell (e.g. "yes > fifo & "),
// killed with the command at the end. Everything the shell started is killed after `limit_seconds`.
// `stdout_to` replaces the captured standard output by another target, e.g. "/dev/full" or "&-".
BoundedRun run_bounded(const std::string& args, const std::string& before = "", int limit_seconds = 20,
                       const std::string& stdout_to = "");

// Exit 2 within 15 s and 1 GB, nothing on stdout, and one short stderr line "attn-tutor: error: ..."
// without control characters, mentioning `mentions`.
void expect_clean_refusal(const std::string& args, const std::string& mentions, const std::string& before = "");

// True when `line` holds no byte below 0x20 but its final newline, and no DEL.
bool free_of_control_characters(const std::string& line);

bool is_root();

// Starts attn-tutor with `args` (no shell) in `dir`, with standard output and error on the given
// descriptors, standard input from /dev/null, SIGINT, SIGTERM, SIGHUP and SIGPIPE at their default
// action except those in `ignored` (as `trap '' PIPE` or nohup leave them); returns its process id.
pid_t start_attn_tutor(const std::vector<std::string>& args, const std::string& dir, int stdout_fd, int stderr_fd,
                       const std::vector<int>& ignored = {});

// Waits for a process started by start_attn_tutor: its exit code, or 128 + the signal that ended it.
int wait_exit_code(pid_t pid);

// The names in `dir` (without . and ..), sorted, in one string separated by spaces.
std::string names_in(const std::string& dir);
// A temporary the writes left in `dir` (".attn-tutor-..."): there should never be one.
bool stray_temporaries_in(const std::string& dir);
// True when `text` starts as a --json export does.
bool is_export(const std::string& text);
// The English message of the UsageError `run` throws, or "" when it returns.
std::string usage_error_of(const std::function<void()>& run);
