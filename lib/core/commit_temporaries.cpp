#include "core/commit_temporaries.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace attn {

namespace {

// The temporaries of the commit under way, for the signal handler: fixed C strings, so the handler
// reads them without allocating; a slot whose first byte is 0 holds nothing (renamed or removed).
constexpr int kMaxTemporaries = 16;
char temporary_names[kMaxTemporaries][PATH_MAX];
volatile sig_atomic_t temporary_count = 0;
pthread_t commit_thread;
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

sigset_t cleanup_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kCleanupSignals) sigaddset(&set, sig);
  return set;
}

// Async-signal-safe: unlink, sigaction, raise, pthread_kill and pthread_self only.
extern "C" void remove_temporaries_and_end(int sig) {
#if !defined(__EMSCRIPTEN__)  // the WebAssembly build has one thread (and node delivers it no signals)
  if (!pthread_equal(pthread_self(), commit_thread)) {
    // Another thread (the bench's pool) took it: the committing thread decides, once it lets
    // signals in again (never in the middle of its renames).
    pthread_kill(commit_thread, sig);
    return;
  }
#endif
  for (int i = 0; i < temporary_count; ++i)
    if (temporary_names[i][0] != '\0') ::unlink(temporary_names[i]);
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(sig, &fallback, nullptr);
  ::raise(sig);  // delivered when this handler returns: the process ends of the signal, as it would have
}

}  // namespace

HoldSignals::HoldSignals() {
  const sigset_t set = cleanup_signals();
  pthread_sigmask(SIG_BLOCK, &set, &old);
}

HoldSignals::~HoldSignals() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }

Temporaries::Temporaries() {
  commit_thread = pthread_self();
  temporary_count = 0;
  struct sigaction handler {};
  handler.sa_handler = remove_temporaries_and_end;
  handler.sa_mask = cleanup_signals();
  for (int i = 0; i < 3; ++i) {
    ::sigaction(kCleanupSignals[i], nullptr, &old_[i]);
    installed_[i] = old_[i].sa_handler != SIG_IGN;  // nohup, a background job: stays ignored
    if (installed_[i]) ::sigaction(kCleanupSignals[i], &handler, nullptr);
  }
}

Temporaries::~Temporaries() {
  {
    const HoldSignals held;
    remove_all();
    temporary_count = 0;
  }
  for (int i = 0; i < 3; ++i)
    if (installed_[i]) ::sigaction(kCleanupSignals[i], &old_[i], nullptr);
}

int Temporaries::create(const std::string& dir, int& fd) {
  const std::string templ = dir + "/.attn-tutor-XXXXXX";
  if (templ.size() >= PATH_MAX) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (temporary_count >= kMaxTemporaries) {
    errno = EMFILE;
    return -1;
  }
  const HoldSignals held;
  const int slot = temporary_count;
  std::memcpy(temporary_names[slot], templ.c_str(), templ.size() + 1);
  fd = ::mkostemp(temporary_names[slot], O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    temporary_names[slot][0] = '\0';
    errno = err;
    return -1;
  }
  temporary_count = slot + 1;
  return slot;
}

const char* Temporaries::name(int slot) { return temporary_names[slot]; }

void Temporaries::forget(int slot) { temporary_names[slot][0] = '\0'; }

void Temporaries::remove_all() {
  for (int i = 0; i < temporary_count; ++i)
    if (temporary_names[i][0] != '\0') {
      ::unlink(temporary_names[i]);
      temporary_names[i][0] = '\0';
    }
}

}  // namespace attn
