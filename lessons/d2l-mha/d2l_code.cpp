// d2l-mha's helpers: valid_lens parsing, Python texts and the code listings the cells show.
#include "lessons/d2l-mha/d2l_code.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include "nn/d2l_attention.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/random_ops.h"
#include "core/tensor_print.h"
#include "core/usage_error.h"

namespace attn::d2l_lesson {

std::string bool_text(bool b) { return b ? "True" : "False"; }

// Python's list text of an int64 tensor: tensor.tolist().
std::string tolist_text(const Tensor& t) {
  const std::vector<float> v = t.values();
  std::string out;
  size_t k = 0;
  std::vector<int64_t> index(t.shape().size(), 0);
  const std::function<void(size_t)> walk = [&](size_t d) {
    if (d == t.shape().size()) {
      out += std::to_string(static_cast<int64_t>(v[k++]));
      return;
    }
    out += "[";
    for (int64_t i = 0; i < t.shape()[d]; ++i) {
      if (i) out += ", ";
      walk(d + 1);
    }
    out += "]";
  };
  walk(0);
  return out;
}

bool equal(const Tensor& a, const Tensor& b) { return a.shape() == b.shape() && a.values() == b.values(); }

// torch.tensor([...]) code text of int64 valid_lens.
std::string lens_code(const Tensor& lens) {
  std::string text = tolist_text(lens);
  return "torch.tensor(" + text + ")";
}

// --valid-lens: "3,2" / "[3, 2]" (one per sequence) or "[[1,2,3,4],[1,2,2,2]]" (one per query).
Tensor parse_valid_lens(const std::string& text, int64_t num_queries, int64_t num_keys) {
  const std::string quoted = "--valid-lens '" + text + "'";
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  const ErrorText malformed = error_text("d2l.err.lens-malformed", {quoted});
  auto numbers = [&](const std::string& list) {
    std::vector<int64_t> out;
    size_t i = 0;
    while (true) {
      size_t j = i;
      if (j < list.size() && (list[j] == '-' || list[j] == '+')) ++j;
      const size_t digits = j;
      while (j < list.size() && std::isdigit(static_cast<unsigned char>(list[j]))) ++j;
      if (j == digits || j - digits > 9) throw UsageError(malformed);
      out.push_back(std::strtoll(list.substr(i, j - i).c_str(), nullptr, 10));
      if (j == list.size()) return out;
      if (list[j] != ',') throw UsageError(malformed);
      i = j + 1;
    }
  };
  auto strip = [&](const std::string& x, const char* open, const char* close) {
    const size_t n = std::char_traits<char>::length(open);
    if (x.size() < 2 * n || x.compare(0, n, open) != 0 || x.compare(x.size() - n, n, close) != 0)
      throw UsageError(malformed);
    return x.substr(n, x.size() - 2 * n);
  };
  std::vector<int64_t> values;
  Shape shape;
  if (s.rfind("[[", 0) == 0) {  // 2-D: one length per query
    const std::string inner = strip(s, "[[", "]]");
    size_t start = 0;
    int64_t rows = 0, cols = -1;
    while (true) {
      const size_t end = inner.find("],[", start);
      const std::vector<int64_t> row = numbers(inner.substr(start, end == std::string::npos ? end : end - start));
      if (cols >= 0 && static_cast<int64_t>(row.size()) != cols)
        throw UsageError(error_text("d2l.err.lens-ragged", {quoted, std::to_string(num_queries)}));
      cols = static_cast<int64_t>(row.size());
      values.insert(values.end(), row.begin(), row.end());
      ++rows;
      if (end == std::string::npos) break;
      start = end + 3;
    }
    if (rows != kBatchSize || cols != num_queries)
      throw UsageError(error_text("d2l.err.lens-rows", {quoted, std::to_string(rows), std::to_string(cols),
                                                        std::to_string(kBatchSize), std::to_string(num_queries)}));
    shape = {rows, cols};
  } else {  // 1-D: one length per sequence
    values = numbers(s.rfind('[', 0) == 0 ? strip(s, "[", "]") : s);
    if (static_cast<int64_t>(values.size()) != kBatchSize)
      throw UsageError(
          error_text("d2l.err.lens-count", {quoted, std::to_string(values.size()), std::to_string(kBatchSize)}));
    shape = {kBatchSize};
  }
  for (int64_t v : values)
    if (v < 0 || v > num_keys)
      throw UsageError(error_text("d2l.err.lens-range", {quoted, std::to_string(v), std::to_string(num_keys)}));
  return d2l::int64_tensor(shape, values);
}

std::string divisors_text(int64_t n) {
  std::string out;
  for (int64_t d = 1; d <= std::min<int64_t>(n, 64); ++d)
    if (n % d == 0) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

extern const std::vector<std::string> kMaskedSoftmaxCode = listing("d2l-mha", "masked_softmax");

extern const std::vector<std::string> kTransposeCode = listing("d2l-mha", "transpose_qkv");

extern const std::vector<std::string> kClassCode = listing("d2l-mha", "MultiHeadAttention");

}  // namespace attn::d2l_lesson
