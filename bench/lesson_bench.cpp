// Wall time of each lesson in one process (the notebook and its text), median over many runs.
// Run with `make bench`; not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "notebook/json_export.h"
#include "lessons/lesson.h"
#include "notebook/notebook_text.h"

int main() {
  using clock = std::chrono::steady_clock;
  const attn::LessonOptions opt;
  std::printf("%-14s %12s %12s\n", "lesson", "median ms", "max ms");
  for (const attn::LessonInfo& lesson : attn::lessons()) {
    std::vector<double> ms;
    size_t sink = 0;
    for (int i = 0; i < 200; ++i) {
      const auto t0 = clock::now();
      const attn::Notebook nb = lesson.run(opt);
      sink += attn::render_text(nb, attn::TextOptions{}).size() + attn::export_json(nb, "bench").size();
      ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-14s %12.3f %12.3f%s\n", lesson.name.c_str(), ms[ms.size() / 2], ms.back(), sink ? "" : " ");
  }
  return 0;
}
