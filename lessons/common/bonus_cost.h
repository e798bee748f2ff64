#pragma once
// What the lessons after the chapter share in their cost (lessons/NAME/cost.cpp): their sizes as
// bonus_options() fills them in, and the tokens fed one at a time through a cache.
#include <cstdint>
#include <string>

#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

// The sizes a lesson after the chapter runs with (lessons/common/bonus_cells.h's bonus_options).
struct BonusSizes {
  double tokens, d_in, d_out, heads;
};
inline BonusSizes bonus_sizes(const std::string& lesson, const LessonOptions& opt) {
  return {work_count(opt.num_tokens()), work_count(opt.d_in()),
          work_count(opt.d_out_or(lesson_default_count(lesson, "--d-out"))),
          work_count(opt.heads_or(lesson_default_count(lesson, "--num-heads")))};
}

// The tokens one at a time through a cache after a full forward: keys x d_out and keys x heads summed
// over the calls (the full forward's T x T, the steps' 1 + 2 + ... + T).
inline void token_steps(LessonWork& w, const BonusSizes& s) {
  const double keys = s.tokens * s.tokens + s.tokens * (s.tokens + 1) / 2;
  w.streamed += keys * s.d_out;
  w.head_keys += keys * s.heads;
  w.recorded += s.tokens * (s.tokens + 1) / 2 * s.d_out;  // the cache recorded at every step
}

}  // namespace attn
