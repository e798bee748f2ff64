#include "notebook/json_export.h"

#include "core/py_repr.h"

#include <charconv>
#include <cmath>

namespace attn {
namespace {

// data nested like tensor.tolist(): a bare number (or bool) for 0-d.
void write_data(std::string& out, const std::vector<float>& v, const Shape& shape, size_t dim, size_t& pos,
                bool as_bool) {
  if (dim == shape.size()) {
    const float x = v[pos++];
    out += as_bool ? (x != 0.0f ? "true" : "false") : json_float(x);
    return;
  }
  out += "[";
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (i) out += ", ";
    write_data(out, v, shape, dim + 1, pos, as_bool);
  }
  out += "]";
}

}  // namespace

std::string json_float(float v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  std::string text = float32_text(v);
  // Keep it a float, and keep the sign of -0.0: "1" and "-0" would read back as integers.
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string export_json(const Notebook& nb, const std::string& version) {
  using nlohmann::json;
  // A file name in the config may hold bytes that are not UTF-8 (JSON cannot): those become U+FFFD.
  const auto text = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string out = "{\"schema\": \"attn-tutor/1\", \"version\": " + json(version).dump() +
                    ", \"lesson\": " + json(nb.lesson()).dump() + ",\n \"sections\": " + json(nb.sections()).dump() +
                    ",\n \"config\": " + text(nb.config()) + ",\n \"tokens\": " + text(json(nb.tokens())) +
                    ",\n \"tensors\": [";
  bool first = true;
  for (const NamedTensor& nt : nb.tensors()) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += "{\"name\": " + json(nt.name).dump() + ", \"cell\": " + std::to_string(nt.cell) +
           ", \"code\": " + json(nt.code).dump() + ", \"shape\": " + json(nt.tensor.shape()).dump() +
           ", \"dtype\": \"" + dtype_name(nt.tensor.dtype()) + "\", \"data\": ";
    size_t pos = 0;
    write_data(out, nt.tensor.values(), nt.tensor.shape(), 0, pos, nt.tensor.dtype() == DType::Bool);
    out += "}";
  }
  out += "\n ]}\n";
  return out;
}

}  // namespace attn
