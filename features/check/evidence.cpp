#include "features/check/evidence.h"

#include <algorithm>
#include <limits>

#include "core/safe_text.h"
#include "features/check/sections.h"

namespace attn {

using json = nlohmann::json;

namespace {

// The numbers of a JSON array nested to any depth, in order (at most `most`; a string such as "nan" is NaN).
void numbers_of(const json& j, std::vector<float>& out, size_t most) {
  if (out.size() > most) return;
  if (j.is_array()) {
    for (const json& x : j) numbers_of(x, out, most);
  } else {
    out.push_back(j.is_number() ? j.get<float>() : std::numeric_limits<float>::quiet_NaN());
  }
}

// Whether the program binds at module level, under any name, the lesson's given input (`inputs`, `batch`).
bool binds_given_input(const CheckReport& r, const TraceDocument& trace) {
  for (const Binding& b : r.tool) {
    if (!is_given_input(b.name)) continue;
    const std::vector<float> want = b.tensor.values();
    for (const TraceEvent& e : trace.events) {
      if (e.scope != "module" || !e.entry.is_object() || !e.entry.contains("data")) continue;
      std::vector<float> got;
      numbers_of(e.entry["data"], got, want.size());
      if (got.size() == want.size() && tensors_close(Tensor({static_cast<int64_t>(got.size())}, got),
                                                     Tensor({static_cast<int64_t>(want.size())}, want), 1e-6))
        return true;
    }
  }
  return false;
}

}  // namespace

// Whether `r` (the one lesson's check of a program) has evidence that the program computes that lesson: a
// value it computes equal to the lesson's, its given input (under any name) with a step of the lesson's
// shape after it, or a class of the lesson's constructed. Without it a difference would be a guess (a blog's own
// example with other sizes shares a name or two).
bool computes_lesson(const CheckReport& r, const TraceDocument& trace) {
  bool input_equal = false, step_placed = false;
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const TensorCheck& c = r.checks[i];
    if (c.expected < 0) continue;
    const bool given = is_given_input(r.yours[i].name);
    if (c.verdict == TensorCheck::Verdict::Match && !given) return true;
    input_equal = input_equal || (c.verdict == TensorCheck::Verdict::Match && given);
    step_placed = step_placed || (!given && r.yours[i].tensor.shape() == r.tool[c.expected].tensor.shape());
  }
  if ((input_equal || binds_given_input(r, trace)) && step_placed) return true;  // `x` for the book's inputs too
  for (const auto& [cls, args] : trace.modules)
    for (const std::string& cell : r.cells)
      if (cell.find("class " + cls + "(") != std::string::npos) return true;
  return false;
}

// Whether `r` compares a step the lesson computes (not its given input, not a 0/1 mask of ones and zeros)
// and finds it equal: a ✓ on a program says that its attention was compared, not only its setup.
bool compares_a_step(const CheckReport& r) {
  for (size_t i = 0; i < r.checks.size(); ++i) {
    if (r.checks[i].verdict != TensorCheck::Verdict::Match || is_given_input(r.yours[i].name)) continue;
    const std::vector<float> v = r.yours[i].tensor.values();
    if (std::any_of(v.begin(), v.end(), [](float x) { return x != 0.0f && x != 1.0f; })) return true;
  }
  return false;
}

// The program's module-level steps under names `lesson_names` does not hold (at most six, escaped; its
// inputs and its layers' weights left out).
std::string unnamed_tensors(const TraceDocument& trace, const std::set<std::string>& lesson_names) {
  std::vector<std::string> names;
  for (const TraceEvent& e : trace.events)
    if (e.scope == "module" && !lesson_names.count(e.name) && !is_given_input(e.name) &&
        e.name.find('.') == std::string::npos &&  // a layer's weight: not a step
        std::find(names.begin(), names.end(), echo(e.name)) == names.end() && names.size() < 6)
      names.push_back(echo(e.name));
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace attn
