// The lessons, one row each: the registry every command, help text, completion and table is built from.
// A new lesson is its folder lessons/NAME/ (its cells, its text.txt, its descriptor lesson.txt) plus one row here.
#include "lessons/lesson.h"
#include "lessons/lesson_file.h"
#include "lessons/lesson_work.h"

namespace attn {

Notebook naive_scores_lesson(const LessonOptions& opt);  // lessons/naive-scores/
Notebook softmax_lesson(const LessonOptions& opt);       // lessons/softmax/
Notebook trainable_lesson(const LessonOptions& opt);     // lessons/trainable/
Notebook causal_mask_lesson(const LessonOptions& opt);   // lessons/causal-mask/
Notebook dropout_lesson(const LessonOptions& opt);       // lessons/dropout/
Notebook wrapper_lesson(const LessonOptions& opt);       // lessons/wrapper/
Notebook mha_lesson(const LessonOptions& opt);           // lessons/mha/
Notebook course_mha_lesson(const LessonOptions& opt);    // lessons/course-mha/
Notebook d2l_mha_lesson(const LessonOptions& opt);       // lessons/d2l-mha/
Notebook kv_cache_lesson(const LessonOptions& opt);      // lessons/kv-cache/
Notebook gqa_lesson(const LessonOptions& opt);           // lessons/gqa/
Notebook mla_lesson(const LessonOptions& opt);           // lessons/mla/
Notebook swa_lesson(const LessonOptions& opt);           // lessons/swa/
Notebook mha_forms_lesson(const LessonOptions& opt);     // lessons/mha-forms/

LessonWork naive_scores_work(const LessonOptions& opt);  // lessons/naive-scores/cost.cpp
LessonWork softmax_work(const LessonOptions& opt);       // lessons/softmax/cost.cpp
LessonWork trainable_work(const LessonOptions& opt);     // lessons/trainable/cost.cpp
LessonWork causal_mask_work(const LessonOptions& opt);   // lessons/causal-mask/cost.cpp
LessonWork dropout_work(const LessonOptions& opt);       // lessons/dropout/cost.cpp
LessonWork wrapper_work(const LessonOptions& opt);       // lessons/wrapper/cost.cpp
LessonWork mha_work(const LessonOptions& opt);           // lessons/mha/cost.cpp
LessonWork course_mha_work(const LessonOptions& opt);    // lessons/course-mha/cost.cpp
LessonWork d2l_mha_work(const LessonOptions& opt);       // lessons/d2l-mha/cost.cpp
LessonWork kv_cache_work(const LessonOptions& opt);      // lessons/kv-cache/cost.cpp
LessonWork gqa_work(const LessonOptions& opt);           // lessons/gqa/cost.cpp
LessonWork mla_work(const LessonOptions& opt);           // lessons/mla/cost.cpp
LessonWork swa_work(const LessonOptions& opt);           // lessons/swa/cost.cpp
LessonWork mha_forms_work(const LessonOptions& opt);     // lessons/mha-forms/cost.cpp

namespace {

// A row: the lesson's name and functions, with the facts of its descriptor lessons/NAME/lesson.txt.
LessonInfo row(const std::string& name, Notebook (*run)(const LessonOptions&), LessonWork (*work)(const LessonOptions&),
               void (*diagnoses)(Reruns&), bool (*settings_exist)(const LessonOptions&)) {
  const LessonFile f = lesson_file(name);
  return {name, f.sections, f.options, f.defaults, run, work, diagnoses, settings_exist, f.eval_unless_dropout};
}

// Each row's exports, computed from its cells when first asked for.
std::vector<LessonInfo> bind_exports(std::vector<LessonInfo> rows) {
  for (LessonInfo& row : rows) row.exports.bind(row.run);
  return rows;
}

}  // namespace

void softmax_diagnoses(Reruns& r);                       // lessons/softmax/mistakes.cpp
void trainable_diagnoses(Reruns& r);                     // lessons/trainable/mistakes.cpp
void causal_mask_diagnoses(Reruns& r);                   // lessons/causal-mask/mistakes.cpp
void dropout_diagnoses(Reruns& r);                       // lessons/dropout/mistakes.cpp
void wrapper_diagnoses(Reruns& r);                       // lessons/wrapper/mistakes.cpp
void mha_diagnoses(Reruns& r);                           // lessons/mha/mistakes.cpp
void course_mha_diagnoses(Reruns& r);                    // lessons/course-mha/mistakes.cpp
void d2l_mha_diagnoses(Reruns& r);                       // lessons/d2l-mha/mistakes.cpp
void kv_cache_diagnoses(Reruns& r);                      // lessons/kv-cache/mistakes.cpp
void gqa_diagnoses(Reruns& r);                           // lessons/gqa/mistakes.cpp
void mla_diagnoses(Reruns& r);                           // lessons/mla/mistakes.cpp
void swa_diagnoses(Reruns& r);                           // lessons/swa/mistakes.cpp
bool mha_settings_exist(const LessonOptions& o);         // lessons/mha/mistakes.cpp
bool course_mha_settings_exist(const LessonOptions& o);  // lessons/course-mha/mistakes.cpp
bool d2l_mha_settings_exist(const LessonOptions& o);     // lessons/d2l-mha/mistakes.cpp

const std::vector<LessonInfo>& lessons() {
  static const std::vector<LessonInfo> all = bind_exports({
      // name, its cells, its work (the cost model's), its diagnoses (`check`'s reruns) and whether other
      // settings can exist for it (nullptr: always); the rest of its row is lessons/NAME/lesson.txt
      row("naive-scores", naive_scores_lesson, naive_scores_work, nullptr, nullptr),
      row("softmax", softmax_lesson, softmax_work, softmax_diagnoses, nullptr),
      row("trainable", trainable_lesson, trainable_work, trainable_diagnoses, nullptr),
      row("causal-mask", causal_mask_lesson, causal_mask_work, causal_mask_diagnoses, nullptr),
      row("dropout", dropout_lesson, dropout_work, dropout_diagnoses, nullptr),
      row("wrapper", wrapper_lesson, wrapper_work, wrapper_diagnoses, nullptr),
      row("mha", mha_lesson, mha_work, mha_diagnoses, mha_settings_exist),
      row("course-mha", course_mha_lesson, course_mha_work, course_mha_diagnoses, course_mha_settings_exist),
      row("d2l-mha", d2l_mha_lesson, d2l_mha_work, d2l_mha_diagnoses, d2l_mha_settings_exist),
      // After the chapter: the book's bonus material (rasbt/LLMs-from-scratch ch04), listed apart, not in `all`.
      row("kv-cache", kv_cache_lesson, kv_cache_work, kv_cache_diagnoses, nullptr),
      row("gqa", gqa_lesson, gqa_work, gqa_diagnoses, nullptr),
      row("mla", mla_lesson, mla_work, mla_diagnoses, nullptr),
      row("swa", swa_lesson, swa_work, swa_diagnoses, nullptr),
      // The chapter's own bonus (ch03/02_bonus_efficient-multihead-attention): the nine forms of MultiHeadAttention.
      row("mha-forms", mha_forms_lesson, mha_forms_work, nullptr, nullptr),
  });
  return all;
}

std::vector<const LessonInfo*> lessons_run_by(const std::string& command) {
  std::vector<const LessonInfo*> out;
  for (const LessonInfo& l : lessons())
    if (command == "all" ? l.in_chapter() : l.name == command) out.push_back(&l);
  return out;
}

}  // namespace attn
