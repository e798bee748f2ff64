#pragma once
// Options that would change nothing in the combination given are an error naming the option and
// why (the options a lesson does not take at all are refused by the parser, app/parse_errors.h).
#include <string>

#include "lesson_command.h"

namespace attn {

// `lesson`: a lesson's name, or "all". Throws UsageError for the first option with no effect.
void reject_no_effect(const std::string& lesson, const CliOptions& o);

}  // namespace attn
