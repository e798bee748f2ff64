#pragma once
// This machine's float32 peak, measured rather than looked up: every thread runs a loop of 12
// independent 8-lane FMAs (more than FMA latency x FMA ports keep in flight), all at once; the
// rate is all their FLOPs over the wall time, and the peak is the best trial. Trials can be spread
// over a long run, so a moment when the system took a core away does not set the figure.

namespace attn {

class FmaPeak {
 public:
  explicit FmaPeak(int threads);
  void measure(int trials, double trial_ms = 20.0);  // adds trials of about trial_ms each
  double gflops() const;                             // 0 before the first trial
  int threads() const { return threads_; }
  int trials() const { return trials_; }

 private:
  int threads_;
  long iterations_ = 0;  // per trial and thread, calibrated on the first call
  double best_ = 0;      // GFLOP/s
  int trials_ = 0;
};

}  // namespace attn
