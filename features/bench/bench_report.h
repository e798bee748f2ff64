#pragma once
// `attn-tutor bench` as text: the set-up, the table, a bar per form and the annotations that
// explain each step up, every number taken from the run.
#include <string>

#include "features/bench/attention_bench.h"
#include "notebook/notebook.h"

namespace attn {

std::string render_bench(const BenchResult& r, Lang lang);

// The peak loop in words, from its facts (FmaPeak::Loop): "16 independent 16-lane FMAs (AVX-512)".
std::string peak_loop_words(int chains, int lanes, const std::string& isa, Lang lang);

}  // namespace attn
