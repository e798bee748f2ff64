#pragma once
// Small helpers the lessons share for their code lines and annotations.
#include <string>
#include <vector>

#include "core/py_repr.h"
#include "lessons/lesson.h"

namespace attn {

std::string quoted_token(const LessonOptions& opt, int64_t i);  // "journey"
std::string fmt_seed(const LessonOptions& opt, uint64_t book_seed);  // the seed as written in code
// `inputs = torch.tensor([...])` as code lines, one row per token with its label as a comment.
std::vector<std::string> inputs_code(const LessonOptions& opt);
// A cell that prints one tensor: `code`, `t` shown as `name`, then the prose keys `note` and `explain`
// (and `confusion` unless empty), none of them quoting values.
void tensor_cell(Notebook& nb, const std::vector<std::string>& code, const std::string& name, const Tensor& t,
                 const std::string& note, const std::string& explain, const std::string& confusion = "");
// The index of the largest (smallest) value, the first on a tie: the token a note names.
int64_t argmax(const std::vector<float>& v);
int64_t argmin(const std::vector<float>& v);

}  // namespace attn
