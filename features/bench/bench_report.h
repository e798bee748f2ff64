#pragma once
// `attn-tutor bench` as text: the set-up, the table, a bar per form and the annotations that
// explain each step up, every number taken from the run.
#include <string>

#include "features/bench/attention_bench.h"
#include "notebook/notebook.h"

namespace attn {

std::string render_bench(const BenchResult& r, Lang lang);

}  // namespace attn
