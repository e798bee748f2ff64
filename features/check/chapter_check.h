#pragma once
// Stage "chapter" of a traced program's check: a program that covers several of the chapter's lessons (a
// whole ch03 notebook, or a §3.3 + §3.4 script) checked along the chapter's lessons one after the other,
// as `all` runs them: each section against its own lesson (sections.h), a difference diagnosed with the
// mistakes of the lesson it is in.
#include <optional>
#include <string>

#include "features/check/candidates.h"
#include "features/check/check.h"
#include "features/check/trace_check.h"

namespace attn {

// The chapter's report, when the chapter (or its sections) explains the program better than the one
// lesson `chosen` does; nullopt: the one lesson's check stands.
std::optional<CheckReport> check_chapter(const TraceDocument& trace, const std::string& source,
                                         const ChosenLesson& chosen);

}  // namespace attn
