#pragma once
// Threads for the bench kernels: OpenMP when the build found it, otherwise a small pool of
// std::threads that lives for the whole process. Either way the caller is thread 0 and the call
// returns when every thread has finished; a call made from inside a parallel region runs serially.
#include <cstdint>
#include <functional>

namespace attn {

// body(thread) on `threads` threads at once, thread = 0 .. threads-1. Returns how many ran.
int parallel_run(int threads, const std::function<void(int thread)>& body);

// body(i, thread) for every i in [0, count), handed out one at a time to whichever thread is free
// (dynamic scheduling: uneven tasks balance themselves when the costliest come first).
void parallel_for(int threads, int64_t count, const std::function<void(int64_t i, int thread)>& body);

// body(begin, end) over [0, count) cut into about 4 ranges per thread (even work, little overhead).
void parallel_ranges(int threads, int64_t count, const std::function<void(int64_t begin, int64_t end)>& body);

// "OpenMP" or "std::thread".
const char* threading_name();

}  // namespace attn
