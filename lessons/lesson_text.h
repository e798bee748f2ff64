#pragma once
// Small helpers the lessons share for their code lines and annotations.
#include <string>
#include <vector>

#include "core/py_repr.h"
#include "lessons/lesson.h"
#include "nn/linear.h"

namespace attn {

// A whole number as notes and code write it: "12".
inline std::string str(int64_t v) { return std::to_string(v); }
// "journey": token i as notes and comments name it (label_text: shortened, escaped).
std::string quoted_token(const LessonOptions& opt, int64_t i);
// The seed as written in code, canonical (123 for --seed 0123 or +123).
std::string fmt_seed(const LessonOptions& opt, uint64_t book_seed);
// `tokens = 'Your journey starts with one step'.split()`, or `tokens = ['a b', '']` when split() would
// not give the tokens back: every token through py_str, the only way tokens reach code.
std::string tokens_code(const std::vector<std::string>& tokens);
// `inputs = torch.tensor([...])` as code lines, one row per token with its label as a comment.
std::vector<std::string> inputs_code(const LessonOptions& opt);
// A cell that prints one tensor: `code`, `t` shown as `name`, then the prose keys `note` and `explain`
// (and `confusion` unless empty), none of them quoting values.
void tensor_cell(Notebook& nb, const std::vector<std::string>& code, const std::string& name, const Tensor& t,
                 const std::string& note, const std::string& explain, const std::string& confusion = "");
// A cell that applies a Linear with a bias (out_proj, the course's projection_layer): `code`, then
// print(LAYER.weight), print(LAYER.bias) and print(OUT), with the prose keys `note` and `explain`.
void projection_cell(Notebook& nb, const std::vector<std::string>& code, const std::string& layer_name,
                     const Linear& layer, const std::string& out_name, const Tensor& out, const std::string& note,
                     const std::string& explain);
// The heading that opens book section `section` ("3.3.1"): its title is the case `section` of the
// lesson's [lesson.section_title] (the titles `lessons --json` lists too).
void section_heading(Notebook& nb, const std::string& section);
// The index of the largest (smallest) value, the first on a tie: the token a note names.
int64_t argmax(const std::vector<float>& v);
int64_t argmin(const std::vector<float>& v);

}  // namespace attn
