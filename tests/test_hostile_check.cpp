// Hostile exports for `attn-tutor check`: names and strings that would drive the terminal,
// names and tensor counts that made the report and the memory grow with their product, and what an
// export declares (dtype, cell, config keys, integers), checked. Each run is bounded (20 s, 1 GB) and
// its standard output and error hold no raw control byte but newlines.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded_read.h"
#include "core/usage_error.h"
#include "features/check/learner_export.h"
#include "features/check/trace_check.h"
#include "lessons/ui_text.h"
#include "hostile_run.h"
#include "run_cli.h"

namespace {

using attn::kMaxExportTensors;
using attn::kMaxTensorNameBytes;
using nlohmann::json;

const std::string kMistakes = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

json mha_export(const json& tensors, const json& config = json::object()) {
  return {{"schema", "attn-tutor/1"}, {"lesson", "mha"}, {"config", config}, {"tensors", tensors}};
}

json tensor(const std::string& name, const json& data) { return {{"name", name}, {"data", data}}; }

// A context_vecs of mha's shape (2, 6, 2) with wrong values: a real verdict (exit 1).
json wrong_context_vecs() {
  json batch = json::array();
  for (int b = 0; b < 2; ++b) {
    json rows = json::array();
    for (int i = 0; i < 6; ++i) rows.push_back({0.5, 0.25});
    batch.push_back(rows);
  }
  return tensor("context_vecs", batch);
}

// No byte below 0x20 but newlines, no DEL, and no C1 control (U+0080..U+009F) anywhere in `text`.
bool no_raw_control(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7F) return false;
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xA0) return false;
  }
  return true;
}

BoundedRun check_bounded(const std::string& path, const std::string& more = "") {
  BoundedRun r = run_bounded("check '" + path + "' --color never" + more);
  CHECK(!r.timed_out);
  CHECK(r.seconds < 20);
  CHECK(r.max_rss_kb < 1024 * 1024);
  CHECK(no_raw_control(r.out));
  CHECK(no_raw_control(r.err));
  return r;
}

// check FILE's one-line refusal (exit 2) mentions each of `mentions`.
void expect_refused(const std::string& path, const std::vector<std::string>& mentions) {
  const BoundedRun r = check_bounded(path);
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  for (const std::string& m : mentions) CHECK(r.err.find(m) != std::string::npos);
}

// The message parse_export throws for an export of `tensors`, or "" when it reads.
std::string parse_error(const json& tensors) {
  return usage_error_of([&] { attn::parse_export(mha_export(tensors).dump(), "x.json"); });
}

}  // namespace

TEST_CASE("hostile check: names that would drive the terminal are escaped in the report") {
  const std::string dir = temp_dir();
  struct Case {
    std::string name, shown;
  };
  const std::vector<Case> cases = {
      {"a\x1b[2Jb", "a\\e[2Jb"},                 // clear screen
      {"\x1b]0;PWNED\x07", "\\e]0;PWNED\\x07"},  // OSC window title, BEL
      {"x\ry\bz", "x\\ry\\x08z"},                // carriage return, backspace
      {"t\tab\nnl", "t\\tab\\nnl"},
      {"c1\xc2\x9b"
       "31m",
       "c1\\u009b31m"},  // C1 CSI
      {"del\x7f", "del\\x7f"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.shown);
    const std::string path =
        write_file(dir, "esc.json", mha_export({tensor(c.name, {1.0}), wrong_context_vecs()}).dump());
    const BoundedRun r = check_bounded(path);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("? " + c.shown) != std::string::npos);
  }
  // As the first difference, in the detail too, and in the list of names when none is the lesson's.
  const BoundedRun none =
      check_bounded(write_file(dir, "names.json", mha_export(json::array({tensor("\x1b[31mred", {1.0})})).dump()));
  CAPTURE(none.err);
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("\\e[31mred") != std::string::npos);
}

TEST_CASE("hostile check: a long name is shortened on screen, a name over the limit refused") {
  const std::string dir = temp_dir();
  const std::string long_name(kMaxTensorNameBytes, 'N');
  const BoundedRun shown =
      check_bounded(write_file(dir, "long.json", mha_export({tensor(long_name, {1.0}), wrong_context_vecs()}).dump()));
  CHECK(shown.exit_code == 1);
  CHECK(shown.out.find(std::string(30, 'N') + "\u2026") != std::string::npos);
  CHECK(shown.out.find(std::string(61, 'N')) == std::string::npos);
  CHECK(shown.out.size() < 8000);
  // 1 MB of name (the report used to repeat its width on every line): one line, exit 2.
  expect_refused(
      write_file(dir, "huge.json", mha_export({tensor(std::string(1 << 20, 'N'), {1.0}), wrong_context_vecs()}).dump()),
      {"the name of tensor 1", "1048576 bytes", "limit of 200"});
  expect_refused(write_file(dir, "huge-esc.json",
                            mha_export({wrong_context_vecs(), tensor(std::string(1 << 19, '\x1b'), {1.0})}).dump()),
                 {"the name of tensor 2"});
}

TEST_CASE("hostile check: the report lists at most 64 tensors and counts the rest") {
  const std::string dir = temp_dir();
  // At the limit: 4095 names the lesson does not have, then one that differs.
  json tensors = json::array();
  for (size_t i = 0; i + 1 < kMaxExportTensors; ++i) tensors.push_back(tensor("t" + std::to_string(i), 1.0));
  tensors.push_back(wrong_context_vecs());
  const BoundedRun r = check_bounded(write_file(dir, "many.json", mha_export(tensors).dump()));
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("4096 tensors") != std::string::npos);
  CHECK(r.out.find("... and 4032 more tensors, not listed: 0 match, 0 differ, 4032 not in the lesson") !=
        std::string::npos);
  CHECK(r.out.find("\u2717 context_vecs") != std::string::npos);  // the first difference is always listed
  CHECK(r.out.find("? t62 ") != std::string::npos);               // the file's first 63, then the difference
  CHECK(r.out.find("? t63 ") == std::string::npos);
  CHECK(r.out.find("0 match, 1 differ, 4095 not checked") != std::string::npos);
  CHECK(r.out.size() < 20000);
  // One over the limit: refused before anything is read.
  tensors.push_back(tensor("t", 1.0));
  expect_refused(write_file(dir, "too-many.json", mha_export(tensors).dump()), {"4097 tensors", "limit of 4096"});
  // 100k tiny tensors behind a 3 MiB name (ran past 20 s at 6.7 GB): exit 2 at once.
  json flood = json::array({tensor(std::string(3 << 20, 'N'), {1.0})});
  for (int i = 0; i < 100000; ++i) flood.push_back(tensor("t" + std::to_string(i), 1.0));
  expect_refused(write_file(dir, "flood.json", mha_export(flood).dump()), {"100001 tensors"});
}

TEST_CASE("hostile check: thousands of the lesson's own names stay fast and small") {
  // A real export's tensors repeated up to the limit: every lookup by name, every rerun of a diagnosis.
  const std::string dir = temp_dir();
  for (const char* fixture :
       {"correct-d2l-mha", "stale-scores", "view-no-transpose", "dropout-on-scores", "no-scaling"}) {
    CAPTURE(fixture);
    json doc = json::parse(read_text(kMistakes + fixture + ".json"));
    json repeated = json::array();  // as many as fit in the 8 MiB an export may have, at most the limit
    size_t bytes = 0;
    for (size_t i = 0; i < kMaxExportTensors && bytes < 7 * 1024 * 1024; ++i) {
      repeated.push_back(doc["tensors"][i % doc["tensors"].size()]);
      bytes += repeated.back().dump().size() + 2;
    }
    doc["tensors"] = repeated;
    const BoundedRun r = check_bounded(write_file(dir, "rep.json", doc.dump()));
    CHECK((r.exit_code == 0 || r.exit_code == 1));
    CHECK(count_lines(r.out) < 300);  // a bounded report: its listed tensors take two lines each at 80 columns
  }
}

TEST_CASE("hostile check: deep JSON, huge numbers and NaN end with a verdict or one line") {
  const std::string dir = temp_dir();
  expect_refused(write_file(dir, "deep.json",
                            "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", \"tensors\": [{\"name\": "
                            "\"x\", \"data\": " +
                                std::string(5000, '[') + "]}"),
                 {"64 levels"});
  expect_refused(write_file(dir, "huge.json",
                            "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", \"tensors\": [{\"name\": "
                            "\"context_vecs\", \"data\": [1e999]}]}"),
                 {"too large"});
  expect_refused(write_file(dir, "nan.json",
                            "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", \"tensors\": [{\"name\": "
                            "\"context_vecs\", \"data\": [NaN]}]}"),
                 {"nan"});
  json v = wrong_context_vecs();
  v["data"][0][0][0] = "nan";
  v["data"][0][1][0] = 1e308;  // beyond float32: inf, a difference
  const BoundedRun r = check_bounded(write_file(dir, "values.json", mha_export(json::array({v})).dump()));
  CAPTURE(r.err);
  CHECK(r.exit_code == 1);
}

TEST_CASE("hostile check: the export's dtype is one of PyTorch's and agrees with the data") {
  const std::string dir = temp_dir();
  json doc = json::parse(read_text(kMistakes + "correct-mha.json"));
  for (const char* accepted : {"float32", "torch.float32", "torch.float64", "float16"}) {
    CAPTURE(accepted);
    for (json& t : doc["tensors"]) t["dtype"] = accepted;
    CHECK(check_bounded(write_file(dir, "ok.json", doc.dump())).exit_code == 0);
  }
  for (json& t : doc["tensors"]) t["dtype"] = "float64x";
  expect_refused(write_file(dir, "bad.json", doc.dump()),
                 {"\"dtype\" \"float64x\" is not one of PyTorch's", "torch.float32"});
  for (json& t : doc["tensors"]) t["dtype"] = "\x1b[2J";
  expect_refused(write_file(dir, "esc.json", doc.dump()), {"is not one of PyTorch's"});
  for (json& t : doc["tensors"]) t["dtype"] = 5;
  expect_refused(write_file(dir, "num.json", doc.dump()), {"\"dtype\" 5"});
  for (json& t : doc["tensors"]) t["dtype"] = "torch.bool";
  expect_refused(write_file(dir, "bool.json", doc.dump()),
                 {"\"dtype\" is \"torch.bool\" but its \"data\" holds other values"});
  for (json& t : doc["tensors"]) t["dtype"] = "int64";
  expect_refused(write_file(dir, "int.json", doc.dump()), {"\"int64\""});
  // Whole numbers as the tool writes them (2.0) fit an integer dtype; true/false fit bool.
  CHECK(attn::parse_export(mha_export({{{"name", "d_k"}, {"dtype", "int64"}, {"data", 2.0}},
                                       {{"name", "m"}, {"dtype", "torch.bool"}, {"data", {true, false}}},
                                       {{"name", "x"}, {"dtype", "torch.int64"}, {"data", {1, 2}}}})
                               .dump(),
                           "x.json")
            .tensors.size() == 3);
  CHECK(parse_error(json::array({{{"name", "x"}, {"dtype", "float32"}, {"data", {true, false}}}}))
            .find("\"dtype\" is \"float32\"") != std::string::npos);
  CHECK(parse_error(json::array({{{"name", "x"}, {"dtype", "int64"}, {"data", {"nan", 1}}}}))
            .find("\"dtype\" is \"int64\"") != std::string::npos);
  CHECK(parse_error(json::array({{{"name", "x"}, {"dtype", "int64"}, {"data", {1.5, 1}}}}))
            .find("\"dtype\" is \"int64\"") != std::string::npos);
  CHECK(parse_error(json::array({{{"name", "x"}, {"dtype", "torch.int64"}, {"data", {1.0, 2}}}})).empty());
}

TEST_CASE("hostile check: a cell the lesson does not have is refused with the lesson's cells") {
  const std::string dir = temp_dir();
  json doc = json::parse(read_text(kMistakes + "correct-mha.json"));
  doc["tensors"][0]["cell"] = 999;
  expect_refused(write_file(dir, "cell.json", doc.dump()),
                 {"\"cell\" 999", "lesson mha has the cells In [1] to In [13]"});
  doc["tensors"][0]["cell"] = 13;  // its last cell: a real verdict
  const BoundedRun r = check_bounded(write_file(dir, "last.json", doc.dump()));
  CHECK((r.exit_code == 0 || r.exit_code == 1));
}

TEST_CASE("hostile check: config keys are the lesson's, integers strictly JSON integers") {
  const std::string dir = temp_dir();
  const json base = json::parse(read_text(kMistakes + "correct-mha.json"));
  auto with = [&](const std::string& key, const json& value) {
    json doc = base;
    doc["config"][key] = value;
    return write_file(dir, "cfg.json", doc.dump());
  };
  // Unknown keys name the lesson's settings; a key of another lesson's option must not change anything.
  expect_refused(with("d_ouy", 4),
                 {"config.d_ouy is not a setting of lesson mha", "seed, inputs, inputs_data, num_tokens, d_in",
                  "num_heads", "dropout", "context_length", "gpt2"});
  expect_refused(with("fooo\x1b[2J", 1), {"config.fooo\\e[2J"});
  expect_refused(with("num_kv_groups", 2), {"config.num_kv_groups is 2, but lesson mha does not take it"});
  expect_refused(with("valid_lens", "3,2"), {"config.valid_lens"});
  for (const auto& setting : std::vector<std::pair<std::string, json>>{{"num_kv_groups", nullptr},
                                                                       {"preset", "small"},
                                                                       {"num_hiddens", nullptr},
                                                                       {"lang", "zh"},
                                                                       {"explain", true}}) {
    const std::string& key = setting.first;  // no structured binding: clang 14 cannot capture one in CAPTURE
    CAPTURE(key);
    CHECK(check_bounded(with(key, setting.second)).exit_code ==
          0);  // what the tool writes when the option is not given
  }
  // Integers: 4 yes; 4.0, "4", "0x10", "" and 1e3 no.
  expect_refused(with("d_out", 4.0), {"config.d_out is 4.0", "write the whole number 4"});
  expect_refused(with("d_out", "0x10"), {"config.d_out is \"0x10\"", "whole number from 1"});
  expect_refused(with("d_out", ""), {"config.d_out is \"\""});
  expect_refused(with("d_out", "4"), {"config.d_out is \"4\""});
  expect_refused(with("num_heads", 2.5), {"config.num_heads is 2.5"});
  expect_refused(with("num_heads", json::parse("18446744073709551615")), {"config.num_heads"});
  expect_refused(with("context_length", json::parse("1e3")), {"config.context_length"});
  expect_refused(with("num_tokens", 7), {"config.num_tokens is 7", "6 tokens"});
  expect_refused(with("lang", "fr"), {"config.lang"});
  // A seed string is the decimal text json writes for the integer.
  for (const char* bad : {"0x10", "", "+5", "007", "-0", " 5", "5.0"}) {
    CAPTURE(bad);
    expect_refused(with("seed", bad), {"config.seed"});
  }
  expect_refused(with("seed", 5.0), {"config.seed"});
  const int as_string = check_bounded(with("seed", "42")).exit_code;  // the integer's decimal text
  CHECK(as_string != 2);
  CHECK(check_bounded(with("seed", 42)).exit_code == as_string);
}

TEST_CASE("hostile check: tokens are a short list of printable words") {
  const std::string dir = temp_dir();
  json doc = json::parse(read_text(kMistakes + "correct-mha.json"));
  doc["tokens"] = {"a", 5};
  expect_refused(write_file(dir, "t1.json", doc.dump()), {"\"tokens\" must be a list"});
  doc["tokens"] = "Your journey";
  expect_refused(write_file(dir, "t2.json", doc.dump()), {"\"tokens\" must be a list"});
  doc["tokens"] = json::array();
  for (int i = 0; i < 17; ++i) doc["tokens"].push_back("w");
  expect_refused(write_file(dir, "t3.json", doc.dump()), {"at most 16 words"});
  doc["tokens"] = {"Your\x1b[2J", "journey"};
  expect_refused(write_file(dir, "t4.json", doc.dump()), {"Your\\e[2J"});
}

TEST_CASE("hostile check: the longest tokens the lessons take pass check in their own export, one more is refused") {
  // 1000 Chinese characters are 3000 bytes: the limit counts characters, as --tokens and --inputs do.
  std::string longest;
  for (int i = 0; i < 1000; ++i) longest += "\u6ce8";
  const std::string dir = temp_dir();
  const CliResult exported =
      run_cli("naive-scores --tokens '" + longest + " " + longest + "' --json " + dir + "/own.json");
  REQUIRE(exported.exit_code == 0);
  const CliResult checked = run_cli_wide("check " + dir + "/own.json --color never");
  CAPTURE(checked.err);
  CHECK(checked.exit_code == 0);
  json doc = json::parse(read_text(dir + "/own.json"));
  doc["tokens"][1] = longest + "x";
  expect_refused(write_file(dir, "longer.json", doc.dump()),
                 {"token 2 of \"tokens\" has 1001 characters", "limit of 1000"});
}

TEST_CASE("hostile check: 7 MB strings anywhere in the export cost little to refuse") {
  // Each string is shown shortened in one line; showing it used to cost about 35 bytes per byte
  // (up to 513 MB for a 7 MB valid_lens).
  const std::string dir = temp_dir();
  const std::string big(7 << 20, 'a');
  const json base = json::parse(read_text(kMistakes + "correct-mha.json"));
  std::vector<json> docs;
  for (const char* key : {"lesson", "schema"}) {
    json doc = base;
    doc[key] = big;
    docs.push_back(doc);
  }
  for (const char* key : {"d_out", "preset", "inputs", "seed", big.c_str()}) {
    json doc = base;
    doc["config"][key] = big;
    docs.push_back(doc);
  }
  for (const char* key : {"dtype", "shape", "data"}) {
    json doc = base;
    doc["tensors"][0][key] = big;
    docs.push_back(doc);
  }
  json tokens = base;
  tokens["tokens"] = {big};
  docs.push_back(tokens);
  json lens = base;
  lens["lesson"] = "d2l-mha";
  lens["config"]["valid_lens"] = std::string(7 << 20, '1');
  docs.push_back(lens);
  for (const json& doc : docs) {
    const BoundedRun r = check_bounded(write_file(dir, "big.json", doc.dump()));
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.size() < 1500);
    if (!kSanitized) CHECK(r.max_rss_kb < 256 * 1024);  // the 1 GB bound holds under ASan too (check_bounded)
  }
}

namespace {

const std::string kTraceStart = "{\"schema\": \"attn-tutor-trace/1\", \"status\": \"ok\", \"events\": ";

// check FILE refuses `path` with exit 2 and one line holding `mention`, within 20 s and `max_mb` MB.
void expect_cheap_refusal(const std::string& path, const std::string& mention, long max_mb) {
  const BoundedRun r = check_bounded(path);
  CAPTURE(path);
  CAPTURE(r.err);
  CAPTURE(r.seconds);
  CAPTURE(r.max_rss_kb);
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find(mention) != std::string::npos);
  if (!kSanitized) CHECK(r.max_rss_kb < max_mb * 1024);
}

// The value of `NAME = <integer>` in python/tracer.py.
long tracer_cap(const std::string& name) {
  const std::string text = read_text(std::string(ATTN_SOURCE_DIR) + "/python/tracer.py");
  const std::size_t at = text.find("\n" + name + " = ");
  REQUIRE(at != std::string::npos);
  return std::stol(text.substr(at + name.size() + 4));
}

}  // namespace

TEST_CASE("hostile check: a trace's limits are the tracer's caps") {
  CHECK(static_cast<long>(attn::kMaxTraceEvents) == tracer_cap("MAX_EVENTS"));
  CHECK(static_cast<long>(attn::kMaxTraceTensorValues) == tracer_cap("MAX_VALUES"));
  // The largest committed trace is far inside them.
  for (const char* name : {"kv-mask-row0.json", "swa-cache-oldest.json"}) {
    const std::string path = std::string(ATTN_TEST_FIXTURE_DIR) + "/traces/" + name;
    CHECK(read_text(path).size() < attn::kMaxTraceBytes / 100);
    CHECK(attn::is_trace_document(attn::read_start(path, attn::kTraceStartBytes)));
  }
}

TEST_CASE("hostile check: what a file is comes from its start, without building it") {
  using attn::is_trace_document;
  CHECK(is_trace_document(kTraceStart));
  CHECK(is_trace_document("  {\"program\": {\"a\": [1, {\"schema\": 2}]}, \"schema\": \"attn-tutor-trace/1\""));
  CHECK_FALSE(is_trace_document("{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\""));
  CHECK_FALSE(is_trace_document("{\"a\": {\"schema\": \"attn-tutor-trace/1\"}}"));  // not the document's own
  CHECK_FALSE(is_trace_document("[\"schema\", \"attn-tutor-trace/1\"]"));
  CHECK_FALSE(is_trace_document("{\"schema\": [\"attn-tutor-trace/1\"]}"));
  CHECK_FALSE(is_trace_document(std::string(3000000, '[')));
  CHECK_FALSE(is_trace_document(""));
}

TEST_CASE("hostile check: saved traces and exports end in one line within their own limits") {
  const std::string dir = temp_dir();
  // Each file is written and its text freed before the run: the run's memory is measured from its fork.
  // (A run's peak counts the test's own memory at the fork, some 70 MB.)
  const auto trace_of = [&](const std::string& name, const std::string& item, int times, const std::string& end) {
    std::string text = kTraceStart + (item == "0," || item == "[]," ? "[" : "");
    for (int i = 0; i < times; ++i) text += item;
    return write_file(dir, name, text + end);
  };
  // 33 million levels: refused at level 65, never built (it used to cost 2.4 GB).
  expect_cheap_refusal(trace_of("deep.json", "[", 33000000, ""),
                       "nested more than 64 levels deep at line 1, column 123", 150);
  const std::string deep_export = write_file(dir, "deep-export.json", std::string(33000000, '['));
  expect_cheap_refusal(deep_export, "larger than 8 MiB", 100);
  // 60 MB of values: stopped at the limit (it used to cost 3.5 GB and 40 s).
  expect_cheap_refusal(trace_of("flat.json", "0,", 30000000, "0]}"), "more than 3000000 values", 300);
  expect_cheap_refusal(trace_of("empties.json", "[],", 20000000, "[]]}"), "at most 20000 events and 1000000", 400);
  // Beyond the size any trace of the tracer has.
  expect_cheap_refusal(trace_of("big.json", std::string(1 << 20, ' '), 65, ""),
                       "larger than 64 MiB, the limit for a saved trace", 100);
}

TEST_CASE("hostile check: a trace with more events than the tracer records is refused by their count") {
  const std::string dir = temp_dir();
  std::string events = "[";
  for (std::size_t i = 0; i <= attn::kMaxTraceEvents; ++i)
    events += std::string(i ? "," : "") + "{\"kind\": \"bind\", \"name\": \"x" + std::to_string(i) +
              "\", \"scope\": \"module\", \"line\": 1, \"shape\": [1], \"dtype\": \"float32\", \"data\": [0.5]}";
  expect_cheap_refusal(write_file(dir, "events.json", kTraceStart + events + "]}"),
                       "the trace holds 20001 events, more than the 20000 attn-tutor's tracer records", 200);
  CHECK(usage_error_of([&] { attn::parse_trace(kTraceStart + events + "]}", "t.json"); }).find("20001 events") !=
        std::string::npos);
}

TEST_CASE("hostile check: a trace that does not begin with its schema is told so") {
  const std::string dir = temp_dir();
  // Its start is read for the schema: within it, in any order, a trace; past it, told so.
  const std::string padding = "\"program\": \"" + std::string(attn::kTraceStartBytes, 'p') + "\", ";
  const std::string path = write_file(
      dir, "sorted.json", "{" + padding + "\"events\": [], \"schema\": \"attn-tutor-trace/1\", \"status\": \"ok\"}");
  expect_refused(path, {"is a saved trace's", "begins with its schema"});
  CHECK(attn::is_trace_document("{\"events\": [], \"schema\": \"attn-tutor-trace/1\"}"));
  // A syntax error in a trace names the trace's own fix, not an export's.
  expect_refused(write_file(dir, "broken.json", kTraceStart + "[}"), {"not valid JSON", "check FILE.py"});
}
