#pragma once
// This machine's float32 peak, measured rather than looked up: every thread runs the widest FMA
// loop the CPU has (the active kernel set's: AVX-512 16 independent 16-lane FMAs, AVX2 12 x 8
// lanes, NEON 24 x 4 lanes), all at once; the rate is all their FLOPs over the wall time, and the
// peak is the best trial. Trials can be spread over a long run, so a moment when the system took a
// core away does not set the figure.
#include <string>

#include "fast/cpu_features.h"

namespace attn {

class FmaPeak {
 public:
  explicit FmaPeak(int threads);
  void measure(int trials, double trial_ms = 20.0);  // adds trials of about trial_ms each
  double gflops() const;                             // 0 before the first trial
  int threads() const { return threads_; }
  int trials() const { return trials_; }
  Isa isa() const { return isa_; }
  std::string loop_text() const;  // e.g. "16 independent 16-lane FMAs (AVX-512)", English (the JSON's)
  // The loop's facts, for a report to word: `chains` independent chains of `lanes` lanes (1: the
  // portable loop's separate multiply and add), on the instruction set `isa`.
  struct Loop {
    int chains, lanes;
    Isa isa;
  };
  Loop loop() const;

 private:
  int threads_;
  Isa isa_;              // the kernel set active when the peak was made
  long iterations_ = 0;  // per trial and thread, calibrated on the first call
  double best_ = 0;      // GFLOP/s
  int trials_ = 0;
};

}  // namespace attn
