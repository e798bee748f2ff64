// The lessons, one row each: the registry every command, help text, completion and table is built from.
// A new lesson is its folder lessons/NAME/ (its cells and its text.txt) plus one row here.
#include "lessons/lesson.h"

namespace attn {

Notebook naive_scores_lesson(const LessonOptions& opt);  // lessons/naive-scores/
Notebook softmax_lesson(const LessonOptions& opt);  // lessons/softmax/
Notebook trainable_lesson(const LessonOptions& opt);  // lessons/trainable/
Notebook causal_mask_lesson(const LessonOptions& opt);  // lessons/causal-mask/
Notebook dropout_lesson(const LessonOptions& opt);  // lessons/dropout/
Notebook wrapper_lesson(const LessonOptions& opt);  // lessons/wrapper/
Notebook mha_lesson(const LessonOptions& opt);  // lessons/mha/
Notebook course_mha_lesson(const LessonOptions& opt);  // lessons/course-mha/
Notebook d2l_mha_lesson(const LessonOptions& opt);  // lessons/d2l-mha/
Notebook kv_cache_lesson(const LessonOptions& opt);  // lessons/kv-cache/
Notebook gqa_lesson(const LessonOptions& opt);  // lessons/gqa/
Notebook mla_lesson(const LessonOptions& opt);  // lessons/mla/
Notebook swa_lesson(const LessonOptions& opt);  // lessons/swa/

const std::vector<LessonInfo>& lessons() {
  static const std::vector<LessonInfo> all = {
      // name, the sections it replays, the options it takes beyond the common ones, its cells
      {"naive-scores", {"3.3.1", "3.3.2"}, {}, naive_scores_lesson},
      {"softmax", {"3.3.1", "3.3.2"}, {}, softmax_lesson},
      {"trainable", {"3.4.1", "3.4.2"}, {"--init"}, trainable_lesson},
      {"causal-mask", {"3.5.1"}, {}, causal_mask_lesson},  // its mask is the scores' size: no buffer, no dropout
      {"dropout", {"3.5.2", "3.5.3"}, {"--dropout", "--context-length", "--bernoulli"}, dropout_lesson},
      {"wrapper", {"3.6.1"}, {"--num-heads", "--dropout", "--context-length", "--bernoulli", "--no-reseed"}, wrapper_lesson},
      {"mha", {"3.6.2"}, {"--num-heads", "--dropout", "--context-length", "--bernoulli", "--gpt2"}, mha_lesson},
      {"course-mha", {"course"}, {"--num-heads", "--dropout", "--context-length", "--bernoulli", "--preset", "--d-model"}, course_mha_lesson},
      {"d2l-mha", {"d2l 11.5"}, {"--num-heads", "--dropout", "--bernoulli", "--num-hiddens", "--valid-lens"}, d2l_mha_lesson},
      // After the chapter: the book's bonus material (rasbt/LLMs-from-scratch ch04), listed apart, not in `all`.
      {"kv-cache", {"ch04/03_kv-cache"}, {"--num-heads", "--context-length"}, kv_cache_lesson},
      {"gqa", {"ch04/04_gqa"}, {"--num-heads", "--num-kv-groups"}, gqa_lesson},
      {"mla", {"ch04/05_mla"}, {"--num-heads", "--latent-dim"}, mla_lesson},
      {"swa", {"ch04/06_swa"}, {"--num-heads", "--window"}, swa_lesson},
  };
  return all;
}

}  // namespace attn
