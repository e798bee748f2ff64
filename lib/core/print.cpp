// PyTorch 1.13's tensor repr under default print options, written from docs/spec/torch-print.md.
// Section numbers (§n) refer to that spec.
#include "core/print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>

namespace attn {
namespace {

constexpr int kBaseIndent = 7;  // strlen("tensor(")
constexpr int kLineWidth = 80;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

// printf one double with a C-locale conversion spec such as "%.4f".
std::string printf_double(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

bool is_float(DType d) { return d == DType::Float32 || d == DType::Float64; }

// How every cell of one tensor is written (§3: one formatter per printed tensor).
struct Formatter {
  enum class Mode { FloatInt, Fixed, Sci, Integer, Bool } mode = Mode::FloatInt;
  int width = 1;

  // The cell text before right-alignment (§5.6, §10).
  std::string text(double v) const {
    switch (mode) {
      case Mode::Bool:
        return v != 0.0 ? "True" : "False";
      case Mode::Integer:
        return std::to_string(static_cast<long long>(v));
      default:
        break;
    }
    if (std::isnan(v)) return "nan";  // never "-nan", whatever the sign bit says
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (mode == Mode::Sci) return printf_double("%.4e", v);
    if (mode == Mode::Fixed) return printf_double("%.4f", v);
    return printf_double("%.0f", v) + ".";
  }

  // The cell right-aligned to the global width; wider cells are never truncated.
  std::string cell(double v) const {
    std::string s = text(v);
    if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), ' ');
    return s;
  }
};

// Float formatter (§5): mode and width from the finite nonzero visible values only.
Formatter float_formatter(const std::vector<double>& visible) {
  Formatter f;
  std::vector<double> s;
  for (double v : visible)
    if (std::isfinite(v) && v != 0.0) s.push_back(v);
  if (s.empty()) return f;  // int mode, width 1

  bool integral = true;
  double max_abs = 0.0, min_abs = INFINITY;
  for (double v : s) {
    integral = integral && v == std::floor(v);
    max_abs = std::max(max_abs, std::fabs(v));
    min_abs = std::min(min_abs, std::fabs(v));
  }
  const bool sci = max_abs / min_abs > 1000.0 || max_abs > 1.0e8 || (!integral && min_abs < 1.0e-4);
  f.mode = sci ? Formatter::Mode::Sci : integral ? Formatter::Mode::FloatInt : Formatter::Mode::Fixed;

  f.width = 1;
  for (double v : s) f.width = std::max(f.width, static_cast<int>(f.text(v).size()));
  return f;
}

// Integer and bool formatters (§10): width over all visible elements.
Formatter plain_formatter(DType dtype, const std::vector<double>& visible) {
  Formatter f;
  f.mode = dtype == DType::Bool ? Formatter::Mode::Bool : Formatter::Mode::Integer;
  f.width = 1;
  for (double v : visible) f.width = std::max(f.width, static_cast<int>(f.text(v).size()));
  return f;
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// A tensor's shape and values plus the per-dimension indices that will be shown (§4).
// An index of -1 stands for the placeholder.
struct View {
  const std::vector<int64_t>& shape;
  const std::vector<double>& values;
  std::vector<std::vector<int64_t>> kept;  // per dimension
  std::vector<int64_t> strides;            // row-major
};

View make_view(const PrintSpec& spec) {
  View view{spec.shape, spec.values, {}, {}};
  const size_t ndim = spec.shape.size();
  const bool summarize = numel(spec.shape) > kThreshold;
  view.strides.assign(ndim, 1);
  for (size_t d = ndim; d-- > 1;) view.strides[d - 1] = view.strides[d] * spec.shape[d];
  for (int64_t n : spec.shape) {
    std::vector<int64_t> idx;
    if (summarize && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      idx.push_back(-1);
      for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    view.kept.push_back(std::move(idx));
  }
  return view;
}

// Every element reached through the kept indices, in row-major order.
std::vector<double> visible_values(const View& view) {
  std::vector<double> out;
  std::function<void(size_t, int64_t)> walk = [&](size_t dim, int64_t offset) {
    if (dim == view.shape.size()) {
      out.push_back(view.values[offset]);
      return;
    }
    for (int64_t i : view.kept[dim])
      if (i >= 0) walk(dim + 1, offset + i * view.strides[dim]);
  };
  walk(0, 0);
  return out;
}

// Appends cell text `cell` (right-aligned by the formatter) to `out`; with `spans`, records where the
// element's text (without the alignment padding) lies in `out`.
void append_cell(std::string& out, const std::string& cell, int64_t index, std::vector<ElementSpan>* spans) {
  if (spans) {
    const size_t pad = cell.find_first_not_of(' ');
    const size_t begin = out.size() + (pad == std::string::npos ? cell.size() : pad);
    spans->push_back({index, begin, out.size() + cell.size()});
  }
  out += cell;
}

// A 1-D row at the given indent, wrapped at the line width (§7), appended to `out`.
void render_row(std::string& out, const View& view, const Formatter& f, int64_t offset, int indent,
                std::vector<ElementSpan>* spans) {
  const size_t dim = view.shape.size() - 1;
  const std::vector<int64_t>& kept = view.kept[dim];
  const size_t per_line = std::max(1, (kLineWidth - indent) / (f.width + 2));
  const std::string line_break = ",\n" + std::string(indent + 1, ' ');
  out += "[";
  for (size_t k = 0; k < kept.size(); ++k) {
    if (k > 0) out += k % per_line == 0 ? line_break : ", ";
    const int64_t i = kept[k];
    if (i < 0) {
      out += " ...";
      continue;
    }
    const int64_t at = offset + i * view.strides[dim];
    append_cell(out, f.cell(view.values[at]), at, spans);
  }
  out += "]";
}

// The sub-tensor starting at `offset` whose first dimension is `dim`, at indent 7 + dim (§7), appended to `out`.
void render_block(std::string& out, const View& view, const Formatter& f, size_t dim, int64_t offset,
                  std::vector<ElementSpan>* spans) {
  const int indent = kBaseIndent + static_cast<int>(dim);
  const size_t ndim = view.shape.size();
  if (dim + 1 == ndim) return render_row(out, view, f, offset, indent, spans);

  // Children are separated by "," + (rank - 1) newlines + the child indent.
  const std::string sep = "," + std::string(ndim - dim - 1, '\n') + std::string(indent + 1, ' ');
  out += "[";
  bool first = true;
  for (int64_t i : view.kept[dim]) {
    if (!first) out += sep;
    first = false;
    if (i < 0)
      out += "...";
    else
      render_block(out, view, f, dim + 1, offset + i * view.strides[dim], spans);
  }
  out += "]";
}

// Appends suffixes after `text` with the line-width rule of §8.2, then closes the paren.
std::string join_suffixes(std::string text, const std::vector<std::string>& suffixes) {
  const size_t last_nl = text.rfind('\n');
  const int last_len = static_cast<int>(last_nl == std::string::npos ? text.size() : text.size() - last_nl - 1);
  int col = last_len + 2;
  for (const std::string& s : suffixes) {
    const int len = static_cast<int>(s.size());
    if (col + len + 2 > kLineWidth) {
      text += ",\n" + std::string(kBaseIndent, ' ') + s;
      col = kBaseIndent + len;
    } else {
      text += ", " + s;
      col += len + 2;
    }
  }
  return text + ")";
}

// "(2, 0)" in Python tuple syntax, "(0,)" for one element.
std::string python_tuple(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + (dims.size() == 1 ? ",)" : ")");
}

// Suffixes of an empty tensor (§9).
std::vector<std::string> empty_suffixes(const PrintSpec& spec) {
  std::vector<std::string> out;
  if (spec.shape.size() != 1) out.push_back("size=" + python_tuple(spec.shape));
  if (spec.dtype != DType::Float32) out.push_back(std::string("dtype=torch.") + dtype_name(spec.dtype));
  return out;
}

// Suffixes of a non-empty tensor (§8.1), autograd excluded.
std::vector<std::string> dtype_suffixes(const PrintSpec& spec) {
  const bool implicit = spec.dtype == DType::Float32 || spec.dtype == DType::Int64 || spec.dtype == DType::Bool;
  if (implicit) return {};
  return {std::string("dtype=torch.") + dtype_name(spec.dtype)};
}

// The formatter print(t) uses for every cell of `spec` (non-empty).
Formatter formatter_for(const PrintSpec& spec, const View& view) {
  const std::vector<double> visible = visible_values(view);
  return is_float(spec.dtype) ? float_formatter(visible) : plain_formatter(spec.dtype, visible);
}

}  // namespace

std::string repr(const PrintSpec& spec) { return repr(spec, nullptr); }

std::string repr(const PrintSpec& spec, std::vector<ElementSpan>* spans) {
  if (static_cast<int64_t>(spec.values.size()) != numel(spec.shape))
    throw std::invalid_argument("attn::repr: values.size() does not match the shape");
  if (spans) spans->clear();
  const std::string prefix = spec.parameter ? "Parameter containing:\n" : "";
  std::string text = prefix + "tensor(";
  std::vector<std::string> suffixes;
  if (numel(spec.shape) == 0) {
    text += "[]";
    suffixes = empty_suffixes(spec);
  } else {
    const View view = make_view(spec);
    const Formatter f = formatter_for(spec, view);
    if (spec.shape.empty())
      append_cell(text, f.cell(spec.values.at(0)), 0, spans);
    else
      render_block(text, view, f, 0, 0, spans);
    suffixes = dtype_suffixes(spec);
  }
  if (spec.autograd) suffixes.push_back(*spec.autograd);
  // The suffixes' line-width rule counts from the last newline: the prefix ends with one.
  return join_suffixes(std::move(text), suffixes);
}

std::string element_text(const PrintSpec& spec, int64_t index) {
  if (static_cast<int64_t>(spec.values.size()) != numel(spec.shape))
    throw std::invalid_argument("attn::element_text: values.size() does not match the shape");
  if (index < 0 || index >= numel(spec.shape)) throw std::out_of_range("attn::element_text: index out of range");
  const View view = make_view(spec);
  return formatter_for(spec, view).text(spec.values[static_cast<size_t>(index)]);
}

std::string repr_size(const std::vector<int64_t>& shape) {
  std::string out = "torch.Size([";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "])";
}

}  // namespace attn
