// The tracer's "attn-tutor-trace/1" document (docs/trace-json.md) read into a TraceDocument
// (features/check/trace_check.h): its events, seeds, modules and settings, or the tracer's own verdict
// (no torch, a bad notebook, a program that raised) as one UsageError.
#include "core/bounded_read.h"
#include "core/safe_json.h"
#include "core/safe_text.h"
#include "core/usage_error.h"
#include "features/check/python_trace.h"
#include "features/check/trace_check.h"

namespace attn {

namespace {

using nlohmann::json;

constexpr const char* kTraceSchema = "attn-tutor-trace/1";

[[noreturn]] void bad_trace(const std::string& source, const std::string& what) {
  throw UsageError(error_text("check.err.trace-bad", {source, echo(what, 80)}));
}

std::string text_of(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

int int_of(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer()) return 0;
  const int64_t v = j[key].get<int64_t>();
  return v < 0 || v > 10000000 ? 0 : static_cast<int>(v);
}

// Reads a document's start without building it: stops at its top-level "schema" member's value (or at
// anything nested deeper than a trace is), keeping whether that value is the trace's schema.
class SchemaFinder : public nlohmann::json_sax<json> {
 public:
  bool trace = false;

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t& v) override {
    if (depth_ == 1 && schema_) trace = v == kTraceSchema;
    return scalar();
  }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t& k) override {
    schema_ = depth_ == 1 && k == "schema";
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool scalar() { return !(depth_ == 1 && schema_); }  // the schema's value read: stop
  bool open() {
    if (depth_ == 0 && seen_root_) return false;
    seen_root_ = true;
    return depth_ == 1 && schema_ ? false : ++depth_ <= kDepth;
  }
  bool close() {
    --depth_;
    return true;
  }
  static constexpr int kDepth = 64;
  int depth_ = 0;
  bool schema_ = false, seen_root_ = false;
};

JsonRules trace_rules(const std::string& source) {
  JsonRules rules;
  rules.source = "check " + source;
  rules.fix = error_text("check.err.trace-json-fix");
  rules.nonfinite_fix = error_text("check.err.trace-json-fix");
  rules.depth_fix = error_text("check.err.trace-depth-fix");
  rules.max_values = kMaxTraceValues;
  rules.values_fix = error_text("check.err.trace-values-fix",
                                {std::to_string(kMaxTraceEvents), std::to_string(kMaxTraceTensorValues)});
  return rules;
}

}  // namespace

bool is_trace_document(const std::string& start) {
  SchemaFinder finder;
  json::sax_parse(start, &finder, json::input_format_t::json, false, false);
  return finder.trace;
}

TraceDocument load_trace(const std::string& path, const std::string& python) {
  const BoundedRead file = read_bounded(path, kMaxTraceBytes);
  if (file.problem == BoundedRead::kTooLarge)
    throw UsageError(error_text("check.err.saved-trace-large",
                                {echo(path, 60), size_text(kMaxTraceBytes), std::to_string(kMaxTraceEvents)}));
  if (file.problem != BoundedRead::kNone)
    throw UsageError(error_text("check.err.fail", {echo(path, 60), read_problem_text(file, kMaxTraceBytes)}));
  return parse_trace(file.text, path, python);
}

namespace {

// The tracer's own verdict, when it is not "ok": one line (no torch, a bad notebook, the program raised).
void refuse_tracer_verdict(const json& doc, const std::string& source, const std::string& python) {
  const std::string status = text_of(doc, "status");
  if (status == "no-torch")
    throw UsageError(error_text("check.err.no-torch", {echo(python, 60), echo(text_of(doc, "message"), 80)}));
  if (status == "bad-notebook")
    throw UsageError(error_text("check.err.bad-notebook", {source, echo(text_of(doc, "message"), 80)}));
  if (status == "raised") {
    // Its last frames in the learner's code, innermost first: "line 12 of f.py (`...`), called from line 30 ...".
    ErrorText where;
    if (doc.contains("traceback") && doc["traceback"].is_array())
      for (const json& f : doc["traceback"]) {
        if (!f.is_object()) continue;
        const int cell = int_of(f, "cell");
        const std::string line = std::to_string(int_of(f, "line")), code = echo(text_of(f, "code"), 80);
        ErrorText here = cell > 0 ? error_text("check.origin.cell", {std::to_string(cell), line, source, code})
                                  : error_text("check.origin.line", {line, source, code});
        where = where.empty() ? here : error_text("check.traceback-sep", {here, where});
      }
    throw UsageError(error_text(
        "check.err.raised", {source, echo(text_of(doc, "message"), 160), where.empty() ? ErrorText(source) : where}));
  }
  if (status != "ok") bad_trace(source, "status " + status);
}

// One event (its data moved out of `e`: the data is held once); `origin_file`: where its line is, unless
// the event names another file of the program's package.
TraceEvent read_event(json& e, const std::string& origin_file) {
  TraceEvent ev;
  ev.kind = text_of(e, "kind");
  ev.name = text_of(e, "name");
  ev.scope = text_of(e, "scope");
  ev.function = text_of(e, "function");
  const std::string file = text_of(e, "file").substr(0, 400);
  ev.origin = {file.empty() ? origin_file : file, int_of(e, "cell"), int_of(e, "line"), text_of(e, "code")};
  ev.function_key =
      ev.function + ":" + file + ":" + std::to_string(ev.origin.cell) + ":" + std::to_string(int_of(e, "def_line"));
  ev.call = int_of(e, "call");
  ev.owner = text_of(e, "owner");
  if (e.contains("data") && !e.contains("skipped")) {
    ev.entry = {{"name", ev.name}, {"data", std::move(e["data"])}};
    if (e.contains("shape")) ev.entry["shape"] = std::move(e["shape"]);
    if (e.contains("dtype")) ev.entry["dtype"] = std::move(e["dtype"]);
  }
  return ev;
}

// The seeds, the globals named as a setting and the modules' constructions.
void read_program_facts(const json& doc, TraceDocument& t) {
  if (doc.contains("seeds") && doc["seeds"].is_array())
    for (const json& s : doc["seeds"])
      if (s.is_object() && s.contains("seed"))
        t.seeds.push_back(s["seed"].is_string() ? s["seed"].get<std::string>() : s["seed"].dump());
  if (doc.contains("settings") && doc["settings"].is_object())
    for (const auto& [key, value] : doc["settings"].items())
      if (value.is_number() || value.is_boolean()) t.settings[key] = value;
  if (doc.contains("modules") && doc["modules"].is_array())
    for (const json& m : doc["modules"])
      if (m.is_object() && m.contains("args") && m["args"].is_object())
        t.modules.push_back({text_of(m, "class"), m["args"]});
}

}  // namespace

TraceDocument parse_trace(const std::string& text, const std::string& source, const std::string& python) {
  json doc = parse_json_safely(text, trace_rules(source));
  if (!doc.is_object() || doc.value("schema", json()) != kTraceSchema)
    bad_trace(source, "no \"schema\": \"attn-tutor-trace/1\"");
  refuse_tracer_verdict(doc, source, python);
  TraceDocument t;
  t.program = text_of(doc, "program");
  t.notebook = text_of(doc, "kind") == "notebook";
  t.truncated = doc.value("truncated", false) == true;
  t.skipped = int_of(doc, "skipped");
  if (!doc.contains("events") || !doc["events"].is_array()) bad_trace(source, "no \"events\" list");
  // Counted before anything is made of them: the check's work and memory grow with the events.
  if (doc["events"].size() > kMaxTraceEvents)
    throw UsageError(error_text("check.err.trace-events",
                                {source, std::to_string(doc["events"].size()), std::to_string(kMaxTraceEvents)}));
  // The program's own name where the learner checks a saved trace; else the path they gave.
  const std::string origin_file = is_program_path(source) || t.program.empty() ? source : t.program;
  for (json& e : doc["events"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) bad_trace(source, "an event without a name");
    if (e["name"].get_ref<const std::string&>().size() > kMaxTensorNameBytes) continue;
    t.events.push_back(read_event(e, origin_file));
  }
  read_program_facts(doc, t);
  return t;
}

}  // namespace attn
