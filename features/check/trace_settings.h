#pragma once
// The settings a traced program used for a lesson, as an export's config: the arguments of its modules (a
// book class's, or a global named as a setting), its torch.manual_seed, its own `inputs`.
#include <string>

#include <nlohmann/json.hpp>

#include "features/check/learner_export.h"
#include "features/check/trace_check.h"
#include "lessons/lesson.h"

namespace attn {

// The settings the program used, for `lesson`: its modules' arguments (the last construction's), its
// seed (the first torch.manual_seed that is not one of the book's own 123 and 789, or --seed), its
// `inputs` (`probe`: the program's value of that name, when it binds one).
nlohmann::json settings_for(const LessonInfo& lesson, const TraceDocument& trace, const LearnerExport& probe,
                            const TraceChoices& choices);

// "d_out 4, num_heads 2, seed 5" ("" : the book's settings).
std::string settings_text(const nlohmann::json& config);

}  // namespace attn
