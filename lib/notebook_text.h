#pragma once
// The notebook as terminal text: code as a Python session (>>>), PyTorch's output verbatim,
// then the shape and the annotation as comments.
#include <string>

#include "notebook.h"

namespace attn {

std::string render_text(const Notebook& nb, bool color);

}  // namespace attn
