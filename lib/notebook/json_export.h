#pragma once
// The "attn-tutor/1" JSON document of a notebook (schema in README.md).
#include <string>

#include "notebook/notebook.h"

namespace attn {

// Shortest decimal text that reads back as the same float32; "inf", "-inf", "nan" as JSON strings.
std::string json_float(float v);
std::string export_json(const Notebook& nb, const std::string& version);

}  // namespace attn
