#include "lessons/lesson_text.h"

#include <charconv>
#include <cstdio>

#include "notebook/attention_matrix.h"

namespace attn {

std::string quoted_token(const LessonOptions& opt, int64_t i) {
  const auto& tokens = opt.inputs.tokens;
  if (i < 0 || i >= static_cast<int64_t>(tokens.size()))
    return "token " + std::to_string(i);  // counted from 0, as the code indexes
  return "\"" + label_text(tokens[static_cast<size_t>(i)]) + "\"";
}

void tensor_cell(Notebook& nb, const std::vector<std::string>& code, const std::string& name, const Tensor& t,
                 const std::string& note, const std::string& explain, const std::string& confusion) {
  nb.cell(code);
  nb.show(name, t);
  nb.note(note);
  nb.explain(explain);
  if (!confusion.empty()) nb.confusion(confusion);
}

void projection_cell(Notebook& nb, const std::vector<std::string>& code, const std::string& layer_name,
                     const Linear& layer, const std::string& out_name, const Tensor& out, const std::string& note,
                     const std::string& explain) {
  nb.cell(code);
  nb.show(layer_name + ".weight", layer.weight);
  nb.show(layer_name + ".bias", *layer.bias);
  nb.show(out_name, out);
  nb.note(note);
  nb.explain(explain);
}

void section_heading(Notebook& nb, const std::string& section) {
  nb.heading_case(section, "lesson.section_title", section);
}

std::string fmt_seed(const LessonOptions& opt, uint64_t book_seed) {
  if (!opt.seed) return std::to_string(book_seed);
  // The value torch.manual_seed gets, written canonically whatever the learner typed (0123, +5, -0):
  // a negative seed stays negative (torch takes -2^63 and up), as the learner meant it.
  const bool negative = !opt.seed_text.empty() && opt.seed_text[0] == '-' && *opt.seed != 0;
  return negative ? "-" + std::to_string(0 - *opt.seed) : std::to_string(*opt.seed);
}

std::string tokens_code(const std::vector<std::string>& tokens) {
  std::string sentence;
  for (const std::string& t : tokens) sentence += (sentence.empty() ? "" : " ") + t;
  if (py_splits_back(tokens)) return "tokens = " + py_str(sentence) + ".split()";
  std::string list;
  for (const std::string& t : tokens) list += (list.empty() ? "" : ", ") + py_str(t);
  return "tokens = [" + list + "]";
}

std::vector<std::string> inputs_code(const LessonOptions& opt) {
  if (opt.inputs_source == "tokens") {
    return {tokens_code(opt.inputs.tokens), "torch.manual_seed(" + fmt_seed(opt, 123) + ")",
            "inputs = torch.rand(len(tokens), " + std::to_string(opt.d_in()) + ")  # one random embedding per word"};
  }
  std::vector<std::string> code;
  if (opt.custom_inputs) code.push_back(tokens_code(opt.inputs.tokens));  // the learner's tokens, in full, once
  code.push_back("inputs = torch.tensor(");
  const std::vector<float> v = opt.inputs.embeddings.values();
  const int64_t rows = opt.inputs.embeddings.size(0), cols = opt.inputs.embeddings.size(1);
  for (int64_t i = 0; i < rows; ++i) {
    std::string line = i == 0 ? "  [[" : "   [";
    for (int64_t j = 0; j < cols; ++j) {
      // "1.0", not "1": a list of Python ints would make torch.tensor an int64 tensor, which nn.Linear refuses
      std::string x = float32_text(v[static_cast<size_t>(i * cols + j)]);
      if (x.find_first_not_of("-0123456789") == std::string::npos) x += ".0";
      line += (j ? ", " : "") + x;
    }
    line += i + 1 == rows ? "]] " : "], ";
    line += "# " + label_text(opt.inputs.tokens[static_cast<size_t>(i)]) + " (x^" + std::to_string(i + 1) + ")";
    code.push_back(line);
  }
  code.push_back(")");
  return code;
}

int64_t argmax(const std::vector<float>& v) {
  int64_t best = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[static_cast<size_t>(best)]) best = static_cast<int64_t>(i);
  return best;
}

int64_t argmin(const std::vector<float>& v) {
  int64_t worst = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[static_cast<size_t>(worst)]) worst = static_cast<int64_t>(i);
  return worst;
}

}  // namespace attn
