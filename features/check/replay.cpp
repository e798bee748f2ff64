#include "features/check/replay.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <new>
#include <set>
#include <stdexcept>

#include "core/safe_text.h"
#include "core/usage_error.h"
#include "features/check/own_masks.h"
#include "lessons/cost_model.h"
#include "lessons/option_fields.h"

namespace attn {

namespace {

using nlohmann::json;

struct ConfigReader {
  const LearnerExport& ex;
  const json& c;

  [[noreturn]] void fail(const std::string& key, ErrorText what) const {
    throw UsageError(error_text(ex.traced ? "check.err.config-program" : "check.err.config",
                                {ex.source, key, echo(c[key].dump()), std::move(what)}));
  }
  bool given(const std::string& key) const { return c.contains(key) && !c[key].is_null(); }
  // A JSON integer (4, never 4.0, "4" or "0x4") from lo to hi. json.dumps writes a Python int as 4 and a
  // float as 4.0: a float where a whole number is required is refused, naming the integer to write.
  int64_t integer(const std::string& key, int64_t lo, int64_t hi) const {
    const json& v = c[key];
    if (v.is_number_float() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>()) &&
        v.get<double>() >= static_cast<double>(lo) && v.get<double>() <= static_cast<double>(hi))
      fail(key, error_text("check.err.whole-not-float", {std::to_string(static_cast<int64_t>(v.get<double>())),
                                                         std::to_string(lo), std::to_string(hi)}));
    const bool in_range =
        v.is_number_unsigned()
            ? v.get<uint64_t>() <= static_cast<uint64_t>(hi) && hi >= 0 && static_cast<int64_t>(v.get<uint64_t>()) >= lo
            : v.is_number_integer() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
    if (!in_range) fail(key, error_text("check.err.use-whole", {std::to_string(lo), std::to_string(hi)}));
    return v.get<int64_t>();
  }
  // An integer option within the range its row in lessons/options.h gives the CLI.
  int64_t ranged(const std::string& flag) const {
    const OptionRow& row = option_row(flag);
    return integer(row.config_key(), row.min, row.max);
  }
  // The value of an option's key (lessons/option_fields.h), checked as the command line checks it.
  json value(const OptionField& f, const LessonOptions& opt) const {
    const OptionRow& row = *f.row;
    const std::string key = row.config_key();
    switch (row.kind) {
      case OptionKind::Flag:
        return flag(key);
      case OptionKind::Integer:
        return integer(key, f.min(opt), row.max);
      case OptionKind::Choice:
        return choice(key, row.choices);
      case OptionKind::Number:
        if (!c[key].is_number() || !(c[key].get<double>() >= static_cast<double>(row.min) &&
                                     c[key].get<double>() <= static_cast<double>(row.max)))
          fail(key, error_text("check.err.use-number", {std::to_string(row.min), std::to_string(row.max)}));
        return c[key].get<double>();
      case OptionKind::Text:
        // A string as the CLI takes it, under 1024 characters (one per query of 16 tokens is under 100).
        if (!c[key].is_string() || c[key].get_ref<const std::string&>().size() > 1024)
          fail(key, error_text("check.err.use-text", {row.flag}));
        return c[key];
    }
    return nullptr;
  }
  bool flag(const std::string& key) const {
    if (!given(key)) return false;
    if (!c[key].is_boolean()) fail(key, error_text("check.err.use-bool"));
    return c[key].get<bool>();
  }
  std::string choice(const std::string& key, const std::vector<std::string>& allowed) const {
    ErrorText all;  // "a" or "b" or "c"
    for (const std::string& a : allowed)
      all = all.empty() ? ErrorText("\"" + a + "\"") : error_text("check.err.or", {all, "\"" + a + "\""});
    if (!c[key].is_string()) fail(key, error_text("check.err.use-choice", {all}));
    const std::string v = c[key].get<std::string>();
    for (const std::string& a : allowed)
      if (v == a) return v;
    fail(key, error_text("check.err.use-choice", {all}));
  }
};

// config.inputs_data: the learner's embeddings, rows of finite numbers.
Inputs data_inputs(const ConfigReader& r) {
  const json& rows = r.c["inputs_data"];
  const ErrorText how = error_text("check.err.inputs-data");
  if (!rows.is_array() || rows.size() < 2 || rows.size() > 16 || !rows[0].is_array()) r.fail("inputs_data", how);
  const size_t cols = rows[0].size();
  if (cols < 1 || cols > 16) r.fail("inputs_data", how);
  std::vector<float> values;
  for (const json& row : rows) {
    if (!row.is_array() || row.size() != cols) r.fail("inputs_data", error_text("check.err.inputs-data-ragged"));
    for (const json& v : row) {
      if (!v.is_number() || !std::isfinite(static_cast<float>(v.get<double>()))) r.fail("inputs_data", how);
      values.push_back(static_cast<float>(v.get<double>()));
    }
  }
  Inputs in;
  const int64_t n = static_cast<int64_t>(rows.size());
  if (r.ex.tokens.size() == rows.size())
    in.tokens = r.ex.tokens;
  else
    for (int64_t i = 0; i < n; ++i) in.tokens.push_back("x" + std::to_string(i + 1));
  in.embeddings = Tensor({n, static_cast<int64_t>(cols)}, std::move(values));
  return in;
}

// The config keys `lesson` takes: seed, inputs, inputs_data and num_tokens, and its options' (every
// option that changes what it computes; lessons/options.txt), in the option table's order.
std::vector<std::string> lesson_keys(const LessonInfo& lesson) {
  std::vector<std::string> keys = {"seed", "inputs", "inputs_data", "num_tokens"};
  for (const OptionRow& row : option_table()) {
    const std::string key = row.config_key();
    if (lesson.takes(row) && !row.display && key != "tokens" && std::find(keys.begin(), keys.end(), key) == keys.end())
      keys.push_back(key);
  }
  return keys;
}

// A key of an option that changes what a lesson computes (some lessons' options, not display ones).
bool option_table_has_key(const std::string& key) {
  for (const OptionRow& row : option_table())
    if (!row.display && row.config_key() == key && key != "tokens") return true;
  return false;
}

// The keys the tool's own export writes for every lesson (LessonOptions::config_json), those of
// options the lesson does not take too.
const nlohmann::json& tool_config() {
  static const nlohmann::json config = LessonOptions{}.config_json();
  return config;
}

std::string key_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// Every key of the export's config is one the lesson takes, or one the tool writes for every lesson.
void check_keys(const ConfigReader& r, const LessonInfo& lesson) {
  const std::vector<std::string> keys = lesson_keys(lesson);
  for (const auto& [key, value] : r.c.items())
    if (std::find(keys.begin(), keys.end(), key) == keys.end() && !tool_config().contains(key) &&
        !option_table_has_key(key))
      throw UsageError(error_text("check.err.config-key", {r.ex.source, echo(key), lesson.name, key_list(keys)}));
}

// A setting of an option the lesson does not take holds nothing (null) or what the tool writes when the
// option is not given (for these inputs); anything else would be ignored, so it is refused.
void check_untaken(const ConfigReader& r, const LessonInfo& lesson, const LessonOptions& opt) {
  const std::vector<std::string> keys = lesson_keys(lesson);
  LessonOptions plain;  // the export's inputs, no option given
  plain.inputs = opt.inputs;
  plain.custom_inputs = opt.custom_inputs;
  plain.inputs_source = opt.inputs_source;
  const nlohmann::json unset = plain.config_json();
  for (const auto& [key, value] : r.c.items()) {
    if (value.is_null() || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    if (unset.contains(key) && unset[key] == value) continue;
    throw UsageError(error_text("check.err.config-untaken",
                                {r.ex.source, echo(key), echo(value.dump()), lesson.name, key_list(keys)}));
  }
}

}  // namespace

LessonOptions replay_options(const LearnerExport& ex) {
  const ConfigReader r{ex, ex.config};
  const LessonInfo* lesson = find_lesson(ex.lesson);
  if (lesson) check_keys(r, *lesson);
  LessonOptions opt;
  if (r.given("seed")) {
    const json& s = ex.config["seed"];
    const std::string text = s.is_string() ? s.get<std::string>() : s.dump();
    if (!s.is_number_integer() && !s.is_string()) r.fail("seed", error_text("check.err.seed-type"));
    // A string is the integer's decimal text as json writes it: no sign "+", no leading zero, no hex.
    const bool canonical = !text.empty() && text != "-0" && text[0] != '+' && !(text.size() > 1 && text[0] == '0') &&
                           !(text.size() > 2 && text.rfind("-0", 0) == 0);
    if (!canonical) r.fail("seed", error_text("check.err.seed-type"));
    opt.seed = parse_torch_seed(text);
    if (!opt.seed) r.fail("seed", error_text("check.err.seed-range"));
    opt.seed_text = text;
  }
  if (r.given("inputs_data")) {
    opt.inputs = data_inputs(r);
    opt.custom_inputs = true;
    opt.inputs_source = "data";
  } else if (r.given("inputs") && ex.config["inputs"] == "tokens") {
    std::string sentence;
    for (const std::string& t : ex.tokens) sentence += (sentence.empty() ? "" : " ") + t;
    const int64_t d_in = r.given("d_in") ? r.ranged("--d-in") : 3;
    if (ex.tokens.size() < 2 || ex.tokens.size() > 16)
      throw UsageError(error_text("check.err.token-words", {ex.source, std::to_string(ex.tokens.size())}));
    opt.inputs = sentence_inputs(sentence, d_in, opt.seed_or(123), error_text("check.err.the-tokens", {ex.source}));
    opt.custom_inputs = true;
    opt.inputs_source = "tokens";
  } else if (r.given("inputs") && ex.config["inputs"] != "book") {
    r.fail("inputs", error_text("check.err.inputs-missing"));
  }
  if (r.given("d_in") && r.ranged("--d-in") != opt.d_in())
    r.fail("d_in", error_text("check.err.d-in", {std::to_string(opt.d_in())}));
  // What the tool writes besides the settings: the number of tokens (the inputs' rows).
  if (r.given("num_tokens") && r.integer("num_tokens", 1, 4096) != opt.num_tokens())
    r.fail("num_tokens", error_text("check.err.num-tokens", {std::to_string(opt.num_tokens())}));
  for (const OptionField& f : option_fields()) {
    const std::string key = f.row->config_key();
    if (!r.given(key)) continue;
    const json value = r.value(f, opt);
    // The language and the explanations are how the export was shown; a config value equal to the least one
    // (the number of tokens for context_length) is what the tool writes when the option is not given.
    if (f.learner_setting && !(f.least && value == f.min(opt))) f.set(opt, value);
  }
  if (lesson) check_untaken(r, *lesson, opt);
  return opt;
}

CheckReport check_file(const std::string& path) {
  const LearnerExport ex = load_export(path);
  const LessonInfo* lesson = find_lesson(ex.lesson);
  if (!lesson) {
    std::string names;
    for (const LessonInfo& l : lessons()) names += (names.empty() ? "" : ", ") + l.name;
    throw UsageError(error_text("check.err.lesson", {path, echo(ex.lesson), names}));
  }
  // The lesson, then a rerun per known mistake: refused before it runs when that is too much.
  const LessonOptions opt = replay_options(ex);
  const double reruns = static_cast<double>(mistake_rerun_count(ex.lesson, opt));
  require_affordable(ex.lesson, opt, false, "config.", 1.0 + reruns, "check " + path);
  Notebook nb = [&] {
    try {
      return lesson->run(opt);
    } catch (const UsageError& e) {
      throw UsageError(error_text("check.err.fail", {path, e.text()}));
    } catch (const std::bad_alloc&) {
      throw;  // told as out of memory (app/main.cpp), not as a failed run
    } catch (const std::exception& e) {
      throw UsageError(error_text("check.err.cannot-run", {path, ex.lesson, std::string(e.what())}));
    }
  }();
  const auto what_ifs = [&ex](const LessonOptions& o) {
    return [&ex, o](const CheckReport& r) {
      // Other settings first: any tensor of a known name whose shape the lesson's name never has, wherever it
      // stands in the export (attn_weights first has the same shape at d_out 2 and 4; context_vecs after it not).
      std::map<std::string, std::set<Shape>> shapes;  // each name's shapes in the lesson
      for (const Binding& b : r.tool) shapes[b.name].insert(b.tensor.shape());
      bool shapes_differ = false;
      for (size_t i = 0; i < r.yours.size() && !shapes_differ; ++i) {
        const auto it = shapes.find(r.yours[i].name);
        shapes_differ = it != shapes.end() && it->second.count(r.yours[i].tensor.shape()) == 0;
      }
      return mistake_what_ifs(ex.lesson, o, shapes_differ);
    };
  };
  CheckReport report = check_export(ex, nb, what_ifs(opt));
  if (report.ok() || !report.diagnoses.empty() ||
      !own_masks_affordable(estimate_lesson_cost(ex.lesson, opt, false).seconds, reruns))
    return report;
  // Stage "own masks": a dropout another generator drew is no mistake; compared on under the learner's masks.
  const OwnMasks own =
      find_own_masks(report, opt, [&](const LessonOptions& o) { return check_export(ex, lesson->run(o), nullptr); });
  if (own.names.empty()) {
    const int unseen = unseen_dropout_before(report);
    if (unseen >= 0) throw unseen_dropout_error(report, unseen, path);
    return report;
  }
  CheckReport again = check_export(ex, lesson->run(own.opt), what_ifs(own.opt));
  again.notes.push_back(own_masks_note(again));
  return again;
}

}  // namespace attn
