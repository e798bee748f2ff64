// The lessons rerun with each known mistake, for `attn-tutor check`'s diagnosis: the reruns each lesson's
// row names (lessons/NAME/mistakes.cpp, lessons/diagnosis.h), after the other settings an export's shapes suggest.
#include <algorithm>
#include <new>
#include <stdexcept>

#include "features/check/replay.h"
#include "lessons/diagnosis.h"
#include "lessons/ui_text.h"

namespace attn {

namespace {

// The settings the learner's first differing tensor's shape suggests (d_out, num_heads), when it has
// another shape than the lesson's: the lesson rerun with each.
void settings(Reruns& r, const LessonInfo& info, const LessonOptions& opt) {
  const std::string& lesson = info.name;  // the sizes it takes, except after the chapter
  const bool heads = !info.after_chapter() && info.takes(option_row("--num-heads"));
  const bool d_out = !info.after_chapter() && info.takes(option_row("--d-out"));
  const int64_t book_heads = opt.num_heads                               ? *opt.num_heads
                             : info.default_value("--num-heads").empty() ? -1  // course-mha: from d_model
                                                                         : lesson_default_count(lesson, "--num-heads");
  for (int64_t d = d_out ? 1 : opt.d_out; d <= (d_out ? 8 : opt.d_out); ++d)
    for (int64_t h = heads ? 1 : 0; h <= (heads ? 4 : 0); ++h) {
      LessonOptions o = opt;
      o.d_out = d;
      if (heads) o.num_heads = h;
      if (d == opt.d_out && (!heads || h == book_heads)) continue;
      std::string config, flags;
      if (d != opt.d_out) {
        config = "d_out=" + std::to_string(d);
        flags = " --d-out " + std::to_string(d);
      }
      if (heads && h != book_heads) {
        config += (config.empty() ? "" : ", ") + std::string("num_heads=") + std::to_string(h);
        flags += " --num-heads " + std::to_string(h);
      }
      settings_rerun(r, config, lesson + flags, o);
    }
}

// The reruns for a lesson: its known mistakes (its row's diagnoses), after the settings its shapes may show
// with `shapes_differ`; no rerun with settings the lesson refuses (its heads not dividing its width).
std::vector<MistakeRerun> mistake_reruns(const std::string& lesson, const LessonOptions& opt, bool shapes_differ) {
  const LessonInfo& info = *find_lesson(lesson);
  Reruns r{opt, {}};
  if (shapes_differ) settings(r, info, opt);  // first, then the mistakes (a shape some mistake gives)
  if (info.diagnoses) info.diagnoses(r);
  if (info.settings_exist)
    r.list.erase(std::remove_if(r.list.begin(), r.list.end(),
                                [&](const MistakeRerun& x) { return !info.settings_exist(x.opt); }),
                 r.list.end());
  return std::move(r.list);
}

}  // namespace

int64_t mistake_rerun_count(const std::string& lesson, const LessonOptions& opt) {
  return static_cast<int64_t>(
      std::max(mistake_reruns(lesson, opt, false).size(), mistake_reruns(lesson, opt, true).size()));
}

std::vector<WhatIf> mistake_what_ifs(const std::string& lesson, const LessonOptions& opt, bool shapes_differ,
                                     int64_t* runs, std::vector<RerunFailure>* failures) {
  std::vector<WhatIf> out;
  const LessonInfo* info = find_lesson(lesson);
  for (const MistakeRerun& rerun : mistake_reruns(lesson, opt, shapes_differ)) {
    if (runs) ++*runs;
    try {
      LessonOptions o = rerun.opt;
      o.variant.own_masks = opt.variant.own_masks;  // the learner's own dropout masks stay (own_masks.h)
      const Notebook nb = info->run(o);
      out.push_back({rerun.mistake, rerun.detail, nb.timeline(), nb.inside_values()});
    } catch (const std::bad_alloc&) {
      throw;  // told as out of memory (app/main.cpp), not as a failed run
    } catch (const std::exception& e) {
      // Every rerun generated is one the lesson can run: one that throws is a bug, reported, never skipped.
      const std::string error = e.what();
      if (!failures)
        throw std::logic_error("check: the " + lesson + " lesson rerun with mistake " + mistake(rerun.mistake).id +
                               " (" + ui(rerun.detail.key, Lang::En, rerun.detail.args) + ") failed: " + error);
      failures->push_back({rerun.mistake, rerun.detail, error});
    }
  }
  return out;
}

}  // namespace attn
