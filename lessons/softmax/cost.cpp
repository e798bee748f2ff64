// softmax: the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

LessonWork softmax_work(const LessonOptions&) { return {}; }  // the tokens only: nothing grows with an option

}  // namespace attn
