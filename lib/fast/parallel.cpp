#include "fast/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#if defined(ATTN_HAVE_OPENMP)
#include <omp.h>
#endif

namespace attn {

namespace {

thread_local bool t_in_region = false;  // nested regions run on the calling thread

#if !defined(ATTN_HAVE_OPENMP)
// Workers wait for a new generation of work; the caller runs thread 0 and waits for the others.
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void run(int threads, const std::function<void(int)>& body) {
    std::lock_guard<std::mutex> one_at_a_time(run_mutex_);
    while (static_cast<int>(workers_.size()) < threads - 1) {
      const int id = static_cast<int>(workers_.size()) + 1;
      workers_.emplace_back([this, id] { work(id); });
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &body;
      wanted_ = threads;
      remaining_ = threads - 1;
      ++generation_;
    }
    start_.notify_all();
    body(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return remaining_ == 0; });
    job_ = nullptr;
  }

 private:
  void work(int id) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (id >= wanted_) continue;  // not needed this time
      const std::function<void(int)>* job = job_;
      lock.unlock();
      t_in_region = true;
      (*job)(id);
      t_in_region = false;
      lock.lock();
      if (--remaining_ == 0) done_.notify_one();
    }
  }

  std::mutex run_mutex_, mutex_;
  std::condition_variable start_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(int)>* job_ = nullptr;
  uint64_t generation_ = 0;
  int wanted_ = 0, remaining_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}
#endif

}  // namespace

int parallel_run(int threads, const std::function<void(int)>& body) {
  threads = std::max(1, threads);
  if (threads == 1 || t_in_region) {
    body(0);
    return 1;
  }
  std::atomic<int> ran{0};
#if defined(ATTN_HAVE_OPENMP)
#pragma omp parallel num_threads(threads)
  {
    const bool was = t_in_region;
    t_in_region = true;
    ran.fetch_add(1);
    body(omp_get_thread_num());
    t_in_region = was;
  }
#else
  const bool was = t_in_region;
  t_in_region = true;
  pool().run(threads, [&](int t) {
    ran.fetch_add(1);
    body(t);
  });
  t_in_region = was;
#endif
  return ran.load();
}

void parallel_for(int threads, int64_t count, const std::function<void(int64_t, int)>& body) {
  if (count <= 0) return;
  if (count == 1 || threads <= 1 || t_in_region) {
    for (int64_t i = 0; i < count; ++i) body(i, 0);
    return;
  }
  std::atomic<int64_t> next{0};
  parallel_run(static_cast<int>(std::min<int64_t>(threads, count)), [&](int t) {
    for (int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) body(i, t);
  });
}

void parallel_ranges(int threads, int64_t count, const std::function<void(int64_t, int64_t)>& body) {
  if (count <= 0) return;
  const int64_t pieces = std::min<int64_t>(count, threads <= 1 ? 1 : 4 * static_cast<int64_t>(threads));
  parallel_for(threads, pieces, [&](int64_t p, int) { body(count * p / pieces, count * (p + 1) / pieces); });
}

const char* threading_name() {
#if defined(ATTN_HAVE_OPENMP)
  return "OpenMP";
#elif defined(__EMSCRIPTEN__)
  return "one thread (WebAssembly)";  // built without threads: every parallel loop runs on the caller
#else
  return "std::thread";
#endif
}

}  // namespace attn
