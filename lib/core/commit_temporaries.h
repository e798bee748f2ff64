#pragma once
// The temporaries of one OutputSet commit (app/output_file.h), removed whatever ends it: at its end,
// or when SIGINT, SIGTERM or SIGHUP arrive while it runs, by an async-signal-safe handler that unlinks
// them and ends the process of the same signal, as it would have ended. Their names live in fixed C
// strings, registered before a signal can miss them.
#include <signal.h>

#include <string>

#include "core/no_copy.h"

namespace attn {

// Blocks SIGINT, SIGTERM and SIGHUP in this thread for its lifetime (the renames run under it).
struct HoldSignals {
  sigset_t old;
  HoldSignals();
  ~HoldSignals();
};

// For one commit: the handler on the signals the caller does not ignore (nohup's stay ignored), the
// registry emptied and the temporaries still in it removed at the end, whatever the end.
class Temporaries : NoCopy {
 public:
  Temporaries();
  ~Temporaries();

  // Creates a temporary in `dir` and registers it before a signal can miss it; returns its slot
  // and descriptor, or -1 with errno set.
  int create(const std::string& dir, int& fd);
  static const char* name(int slot);
  static void forget(int slot);  // after its rename: nothing left to remove
  static void remove_all();

 private:
  struct sigaction old_[3]{};
  bool installed_[3] = {false, false, false};
};

}  // namespace attn
