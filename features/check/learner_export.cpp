#include "features/check/learner_export.h"

#include <cmath>
#include <limits>
#include <optional>

#include "core/bounded_read.h"
#include "core/inputs.h"
#include "core/safe_json.h"
#include "core/safe_text.h"
#include "core/usage_error.h"

namespace attn {

namespace {

using nlohmann::json;

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

[[noreturn]] void fail(const std::string& source, ErrorText what) {
  throw UsageError(error_text("check.err.fail", {source, std::move(what)}));
}

// What a tensor's "data" holds, for its "dtype" to agree with.
struct Held {
  bool booleans = false;   // true/false
  bool fractions = false;  // a number that is not a whole one, or "inf"/"-inf"/"nan"
  bool numbers = false;    // any number or non-finite string
};

float number(const json& v, bool& ok, Held& held) {
  if (v.is_boolean()) {
    held.booleans = true;
    return v.get<bool>() ? 1.0f : 0.0f;
  }
  if (v.is_number()) {
    held.numbers = true;
    const double d = v.get<double>();
    if (!v.is_number_integer() && !(std::isfinite(d) && d == std::floor(d))) held.fractions = true;
    return static_cast<float>(d);
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    held.numbers = held.fractions = true;
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
bool flatten(const json& data, const Shape& shape, size_t dim, std::vector<float>& out, Held& held) {
  if (dim == shape.size()) {
    if (data.is_array()) return false;
    bool ok = true;
    out.push_back(number(data, ok, held));
    return ok;
  }
  if (!data.is_array() || static_cast<int64_t>(data.size()) != shape[dim]) return false;
  for (const json& x : data)
    if (!flatten(x, shape, dim + 1, out, held)) return false;
  return true;
}

// The dtypes an export may declare: PyTorch's names, as str(t.dtype) ("torch.float32") or without the
// prefix (python/export_pytorch.py and attn-tutor --json write "float32", "bool", "int64").
enum class Declared { Float, Integer, Bool };
std::optional<Declared> declared_dtype(std::string name) {
  if (name.rfind("torch.", 0) == 0) name = name.substr(6);
  for (const char* f : {"float32", "float", "float64", "double", "float16", "half", "bfloat16"})
    if (name == f) return Declared::Float;
  for (const char* i : {"int64", "long", "int32", "int", "int16", "short", "int8", "uint8"})
    if (name == i) return Declared::Integer;
  if (name == "bool") return Declared::Bool;
  return std::nullopt;
}

Tensor read_tensor(const json& entry, const std::string& name, const std::string& source) {
  const std::string where = echo(name);
  if (!entry.contains("data")) fail(source, error_text("check.err.no-data", {where}));
  Shape shape = shape_of(entry["data"]);
  std::vector<float> values;
  Held held;
  if (!flatten(entry["data"], shape, 0, values, held)) fail(source, error_text("check.err.ragged-data", {where}));
  if (entry.contains("shape")) {
    const json& s = entry["shape"];
    Shape declared;
    bool ok = s.is_array() && s.size() <= 4;
    if (ok)
      for (const json& d : s) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0)
          ok = false;
        else
          declared.push_back(d.get<int64_t>());
      }
    if (ok && !plausible(declared)) fail(source, error_text("check.err.shape-large", {where, echo(s.dump())}));
    // An empty dimension hides the inner sizes from the data; the declared shape then decides.
    if (ok && numel_of(declared) == 0 && values.empty()) shape = declared;
    if (!ok || declared != shape)
      fail(source, error_text("check.err.shape-mismatch", {where, echo(s.dump()), shape_text(shape)}));
  }
  if (shape.size() > 4) fail(source, error_text("check.err.dims", {where, std::to_string(shape.size())}));
  // "dtype", when present: one of PyTorch's, and what the data holds (true/false for bool, whole
  // numbers for an integer dtype, numbers for a floating one).
  std::optional<Declared> dtype;
  if (entry.contains("dtype") && !entry["dtype"].is_null()) {
    const json& d = entry["dtype"];
    if (d.is_string()) dtype = declared_dtype(d.get<std::string>());
    if (!dtype) fail(source, error_text("check.err.dtype", {where, echo(d.dump())}));
    const bool agrees = *dtype == Declared::Bool      ? !held.numbers
                        : *dtype == Declared::Integer ? !held.booleans && !held.fractions
                                                      : !held.booleans;
    if (!agrees) fail(source, error_text("check.err.dtype-data", {where, echo(d.get<std::string>())}));
  }
  const bool is_bool = dtype == Declared::Bool;
  return Tensor(shape, std::move(values), is_bool ? DType::Bool : DType::Float32);
}

}  // namespace

Tensor read_export_tensor(const json& entry, const std::string& name, const std::string& source) {
  return read_tensor(entry, name, source);
}

LearnerExport parse_export(const std::string& text, const std::string& source) {
  JsonRules rules;
  rules.source = "check " + source;
  rules.fix = error_text("check.err.json-fix");
  rules.nonfinite_fix = error_text("check.err.nonfinite-fix");
  rules.depth_fix = error_text("check.err.depth-fix");
  rules.max_depth = kMaxExportDepth;
  json doc = parse_json_safely(text, rules);
  if (!doc.is_object() || !doc.contains("schema")) fail(source, error_text("check.err.no-schema"));
  if (doc["schema"] == "attn-tutor-trace/1") fail(source, error_text("check.err.schema-trace"));
  if (doc["schema"] != "attn-tutor/1") fail(source, error_text("check.err.schema", {echo(doc["schema"].dump())}));
  LearnerExport ex;
  ex.source = source;
  if (!doc.contains("lesson") || !doc["lesson"].is_string()) fail(source, error_text("check.err.no-lesson"));
  ex.lesson = doc["lesson"].get<std::string>();
  if (doc.contains("config") && !doc["config"].is_null()) {
    if (!doc["config"].is_object()) fail(source, error_text("check.err.config-object"));
    ex.config = doc["config"];
  }
  if (doc.contains("tokens") && !doc["tokens"].is_null()) {
    const json& tokens = doc["tokens"];
    if (!tokens.is_array() || tokens.size() > kMaxExportTokens)
      fail(source, error_text("check.err.tokens", {std::to_string(kMaxExportTokens)}));
    for (const json& t : tokens) {
      if (!t.is_string()) fail(source, error_text("check.err.tokens", {std::to_string(kMaxExportTokens)}));
      ex.tokens.push_back(t.get<std::string>());
      if (token_characters(ex.tokens.back()) > kMaxTokenChars)
        fail(source, error_text("check.err.token-long",
                                {std::to_string(ex.tokens.size()), std::to_string(token_characters(ex.tokens.back())),
                                 std::to_string(kMaxTokenChars)}));
      if (!is_printable_utf8(ex.tokens.back()))
        fail(source, error_text("check.err.token-control", {echo(ex.tokens.back())}));
    }
  }
  if (!doc.contains("tensors") || !doc["tensors"].is_array() || doc["tensors"].empty())
    fail(source, error_text("check.err.no-tensors"));
  // Counted before anything is read: the work and the report grow with the number of tensors.
  if (doc["tensors"].size() > kMaxExportTensors)
    fail(source,
         error_text("check.err.too-many", {std::to_string(doc["tensors"].size()), std::to_string(kMaxExportTensors)}));
  ex.tensors.reserve(doc["tensors"].size());
  for (const json& entry : doc["tensors"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
      fail(source, error_text("check.err.entry"));
    const std::string& name = entry["name"].get_ref<const std::string&>();
    if (name.size() > kMaxTensorNameBytes)
      fail(source,
           error_text("check.err.name-long", {std::to_string(ex.tensors.size() + 1), std::to_string(name.size()),
                                              std::to_string(kMaxTensorNameBytes)}));
    ex.tensors.push_back({name, read_tensor(entry, name, source), std::nullopt, std::nullopt, false, std::nullopt});
    if (entry.contains("cell") && !entry["cell"].is_null()) {
      if (!entry["cell"].is_number_integer() || entry["cell"].get<int64_t>() < 1 ||
          entry["cell"].get<int64_t>() > 100000)
        fail(source, error_text("check.err.cell", {echo(name)}));
      ex.tensors.back().cell = static_cast<int>(entry["cell"].get<int64_t>());
    }
  }
  return ex;
}

LearnerExport load_export(const std::string& path) {
  const BoundedRead file = read_bounded(path, kMaxExportBytes);
  switch (file.problem) {
    case BoundedRead::kNone:
      break;
    case BoundedRead::kCannotOpen:
      fail(path, error_text("check.err.cannot-read", {file.reason}));
    case BoundedRead::kIsDirectory:
      fail(path, error_text("check.err.directory"));
    case BoundedRead::kTooLarge:
      fail(path, error_text("check.err.too-large", {read_problem_text(file, kMaxExportBytes)}));
    default:
      fail(path, error_text("check.err.unreadable", {read_problem_text(file, kMaxExportBytes)}));
  }
  return parse_export(file.text, path);
}

}  // namespace attn
