#include "features/check/learner_export.h"

#include <cmath>
#include <limits>

#include "core/bounded_read.h"
#include "core/safe_json.h"
#include "core/safe_text.h"
#include "core/usage_error.h"

namespace attn {

namespace {

using nlohmann::json;

// An export of the largest lesson (course-mha --preset post with 16 tokens) is under 6 MB.
constexpr std::size_t kMaxExportBytes = 8 * kMiB;
constexpr int kMaxExportDepth = 64;
// No lesson has a tensor anywhere near this many elements; a declared shape beyond it is refused
// before anything is sized by it.
constexpr int64_t kMaxDeclaredElements = int64_t{1} << 31;

// False when the nonzero dimensions of `shape` multiply to more than kMaxDeclaredElements.
bool plausible(const Shape& shape) {
  int64_t product = 1;
  for (int64_t d : shape)
    if (d > 0 && (__builtin_mul_overflow(product, d, &product) || product > kMaxDeclaredElements)) return false;
  return true;
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw UsageError("check " + source + ": " + what);
}

float number(const json& v, bool& ok) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0f : 0.0f;
  if (v.is_number()) return static_cast<float>(v.get<double>());
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "inf" || s == "Infinity") return std::numeric_limits<float>::infinity();
    if (s == "-inf" || s == "-Infinity") return -std::numeric_limits<float>::infinity();
    if (s == "nan" || s == "NaN") return std::numeric_limits<float>::quiet_NaN();
  }
  ok = false;
  return 0.0f;
}

// The shape of `data` nested like tensor.tolist(): the sizes along its first elements.
Shape shape_of(const json& data) {
  Shape shape;
  for (const json* level = &data; level->is_array(); level = &level->front()) {
    shape.push_back(static_cast<int64_t>(level->size()));
    if (level->empty()) break;
  }
  return shape;
}

// Appends the values in row-major order; false when `data` is ragged or holds something else.
bool flatten(const json& data, const Shape& shape, size_t dim, std::vector<float>& out) {
  if (dim == shape.size()) {
    if (data.is_array()) return false;
    bool ok = true;
    out.push_back(number(data, ok));
    return ok;
  }
  if (!data.is_array() || static_cast<int64_t>(data.size()) != shape[dim]) return false;
  for (const json& x : data)
    if (!flatten(x, shape, dim + 1, out)) return false;
  return true;
}

Tensor read_tensor(const json& entry, const std::string& name, const std::string& source) {
  const std::string where = "tensor \"" + echo(name) + "\"";
  if (!entry.contains("data")) fail(source, where + " has no \"data\"; write its values as tensor.tolist() does");
  Shape shape = shape_of(entry["data"]);
  std::vector<float> values;
  if (!flatten(entry["data"], shape, 0, values))
    fail(source, where + ": \"data\" is not a rectangular array of numbers (true/false and \"inf\", \"-inf\", "
                         "\"nan\" are allowed); export it with tools/export_pytorch.py");
  if (entry.contains("shape")) {
    const json& s = entry["shape"];
    Shape declared;
    bool ok = s.is_array() && s.size() <= 4;
    if (ok)
      for (const json& d : s) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) ok = false;
        else declared.push_back(d.get<int64_t>());
      }
    if (ok && !plausible(declared))
      fail(source, where + ": \"shape\" " + echo(s.dump()) + " is larger than any tensor of the lessons; write "
                           "list(tensor.shape)");
    // An empty dimension hides the inner sizes from the data; the declared shape then decides.
    if (ok && numel_of(declared) == 0 && values.empty()) shape = declared;
    if (!ok || declared != shape)
      fail(source, where + ": \"shape\" " + echo(s.dump()) + " does not match its data " + shape_text(shape) +
                       "; write list(tensor.shape)");
  }
  if (shape.size() > 4) fail(source, where + " has " + std::to_string(shape.size()) + " dimensions; at most 4 here");
  const bool is_bool = entry.contains("dtype") && entry["dtype"] == "bool";
  return Tensor(shape, std::move(values), is_bool ? DType::Bool : DType::Float32);
}

}  // namespace

LearnerExport parse_export(const std::string& text, const std::string& source) {
  JsonRules rules;
  rules.source = "check " + source;
  rules.fix = "write it with tools/export_pytorch.py or attn-tutor LESSON --json FILE";
  rules.nonfinite_fix = "write infinities and NaN as the strings \"inf\", \"-inf\" and \"nan\", as "
                        "tools/export_pytorch.py does";
  rules.depth_fix = "an export nests a handful of levels (the document, its tensors, up to 4 dimensions of data)";
  rules.max_depth = kMaxExportDepth;
  json doc = parse_json_safely(text, rules);
  if (!doc.is_object() || !doc.contains("schema"))
    fail(source, "no \"schema\" key; this is not an attn-tutor export (write it with tools/export_pytorch.py)");
  if (doc["schema"] != "attn-tutor/1")
    fail(source, "schema " + echo(doc["schema"].dump()) + " is not \"attn-tutor/1\"; write it with this version's "
                 "tools/export_pytorch.py");
  LearnerExport ex;
  ex.source = source;
  if (!doc.contains("lesson") || !doc["lesson"].is_string())
    fail(source, "no \"lesson\"; pass the lesson's name to export(), e.g. export(tensors, \"mha\", path)");
  ex.lesson = doc["lesson"].get<std::string>();
  if (doc.contains("config") && !doc["config"].is_null()) {
    if (!doc["config"].is_object()) fail(source, "\"config\" must be an object of settings");
    ex.config = doc["config"];
  }
  if (doc.contains("tokens") && doc["tokens"].is_array())
    for (const json& t : doc["tokens"])
      if (t.is_string()) {
        ex.tokens.push_back(t.get<std::string>());
        if (!is_printable_utf8(ex.tokens.back()))
          fail(source, "token \"" + echo(ex.tokens.back()) + "\" holds a control character; give every token a "
                       "plain printable label");
      }
  if (!doc.contains("tensors") || !doc["tensors"].is_array() || doc["tensors"].empty())
    fail(source, "no \"tensors\"; export at least one, e.g. export({\"context_vecs\": context_vecs}, ...)");
  for (const json& entry : doc["tensors"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
      fail(source, "every entry of \"tensors\" needs a \"name\" and \"data\"");
    const std::string name = entry["name"].get<std::string>();
    ex.tensors.push_back({name, read_tensor(entry, name, source), std::nullopt});
    if (entry.contains("cell") && !entry["cell"].is_null()) {
      if (!entry["cell"].is_number_integer() || entry["cell"].get<int64_t>() < 1 || entry["cell"].get<int64_t>() > 100000)
        fail(source, "tensor \"" + name + "\": \"cell\" is the lesson's In [n] its value comes from, a whole number from 1");
      ex.tensors.back().cell = static_cast<int>(entry["cell"].get<int64_t>());
    }
  }
  return ex;
}

LearnerExport load_export(const std::string& path) {
  const BoundedRead file = read_bounded(path, kMaxExportBytes);
  switch (file.problem) {
    case BoundedRead::kNone: break;
    case BoundedRead::kCannotOpen:
      fail(path, "cannot read the file (" + file.reason + "); give the path of a file written by "
                 "tools/export_pytorch.py");
    case BoundedRead::kIsDirectory:
      fail(path, "is a directory; give the path of a file written by tools/export_pytorch.py");
    case BoundedRead::kTooLarge:
      fail(path, read_problem_text(file, kMaxExportBytes) + "; export only the tensors you want checked");
    default:
      fail(path, read_problem_text(file, kMaxExportBytes) + "; give the path of a regular file");
  }
  return parse_export(file.text, path);
}

}  // namespace attn
