#pragma once
// A traced program's events (features/check/trace_check.h) as an export of one lesson (or of the whole
// chapter, `all`): the tensors the lesson has names for, each placed where the program computed it.
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "features/check/trace_check.h"

namespace attn {

// The names `tool`'s timeline has.
std::set<std::string> timeline_names(const Notebook& tool);

// The program's tensors the lesson has names for, as an export of `lesson` with `config`, each with its
// origin; `unlisted` counts the rest. With the lesson's `timeline`, the values that are not the lesson's
// are left out and the others given the cell they are in (trace_place.h says which); `furthest` (when
// given) is the last module-level event kept of a shape its name has in the lesson (an index into the trace's
// events; a module's attribute under the lesson's bare name only where it equals the lesson's value);
// `module_only`: the program's module-level
// names only (what an export of it holds).
LearnerExport export_for(const TraceDocument& trace, const std::string& source, const std::string& lesson,
                         const std::set<std::string>& names, const nlohmann::json& config, int& unlisted,
                         const std::vector<Binding>* timeline = nullptr, int* furthest = nullptr,
                         bool module_only = false);

}  // namespace attn
