#include "features/verify/verify.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "notebook/notebook_text.h"
#include "core/tensor_print.h"

namespace attn {

namespace {

std::vector<double> printed_numbers(const std::string& text) {
  std::vector<double> out;
  // Skip the suffixes: only the body between "tensor(" and the first "grad_fn"/"requires_grad".
  std::string body = text;
  for (const char* cut : {"grad_fn=", "requires_grad=", "dtype="}) {
    const auto at = body.find(cut);
    if (at != std::string::npos) body = body.substr(0, at);
  }
  size_t i = 0;
  while (i < body.size()) {
    const char c = body[i];
    if (body.compare(i, 4, "-inf") == 0) {
      out.push_back(-std::numeric_limits<double>::infinity());
      i += 4;
      continue;
    }
    if (body.compare(i, 3, "inf") == 0) {
      out.push_back(std::numeric_limits<double>::infinity());
      i += 3;
      continue;
    }
    if (body.compare(i, 3, "nan") == 0) {
      out.push_back(std::nan(""));
      i += 3;
      continue;
    }
    const bool starts = std::isdigit(static_cast<unsigned char>(c)) ||
                        (c == '-' && i + 1 < body.size() && std::isdigit(static_cast<unsigned char>(body[i + 1])));
    // Digits that are part of a name (e.g. "Size" dims are numbers too; they compare equal anyway).
    if (starts && (i == 0 || !std::isalpha(static_cast<unsigned char>(body[i - 1])))) {
      char* end = nullptr;
      out.push_back(std::strtod(body.c_str() + i, &end));
      i = static_cast<size_t>(end - body.c_str());
      continue;
    }
    ++i;
  }
  return out;
}

}  // namespace

double max_printed_diff(const std::string& a, const std::string& b) {
  const std::vector<double> x = printed_numbers(a), y = printed_numbers(b);
  if (x.size() != y.size()) return -1;
  double m = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (x[i] == y[i]) continue;  // equal infinities too
    const double d = std::fabs(x[i] - y[i]);
    m = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(m, d);
  }
  return m;
}

std::vector<VerifyResult> verify_reference(const std::vector<ReferenceEntry>& reference, const std::string& only_lesson,
                                           const LessonRunner& run) {
  std::map<std::pair<std::string, std::string>, Notebook> notebooks;
  std::vector<VerifyResult> results;
  for (const ReferenceEntry& e : reference) {
    if (!only_lesson.empty() && e.lesson != only_lesson) continue;
    const auto key = std::make_pair(e.lesson, e.options);
    auto it = notebooks.find(key);
    if (it == notebooks.end()) it = notebooks.emplace(key, run(e.lesson, e.options)).first;
    const Notebook& nb = it->second;
    VerifyResult r;
    r.entry = &e;
    r.shape = "-";
    bool found = false;
    double best = std::numeric_limits<double>::infinity();
    for (const NamedTensor& t : nb.tensors()) {
      if (t.name != e.name) continue;
      const std::string text = repr(t.tensor);
      const double diff = max_printed_diff(text, e.text);
      if (!found || text == e.text || (diff >= 0 && diff < best)) {
        r.shape = shape_text(t.tensor.shape());
        r.actual = text;
        if (diff >= 0) best = diff;
      }
      found = true;
      if (text == e.text) {
        r.ok = true;
        break;
      }
    }
    if (found) {
      r.max_diff = r.ok ? max_printed_diff(r.actual, e.text) : (std::isinf(best) ? -1 : best);
    } else {
      const std::string text = render_text(nb, TextOptions{});
      r.ok = text.find(e.text) != std::string::npos;
      r.max_diff = r.ok ? 0 : -1;
      r.missing = !r.ok;
    }
    results.push_back(r);
  }
  return results;
}

}  // namespace attn
