#pragma once
// `attn-tutor bench` as text: the set-up, the table, a bar per form and the annotations that
// explain each step up, every number taken from the run.
#include <string>

#include "features/bench/attention_bench.h"
#include "notebook/notebook.h"

namespace attn {

// `columns`: the terminal's width; the tables leave out their least needed columns to fit it, the notes
// wrap at it (at most 80).
std::string render_bench(const BenchResult& r, Lang lang, size_t columns = 80);

// A time in ms as the table writes it: one decimal from 1 ms up, three significant digits below
// (0.0213), so a sub-millisecond time never reads 0.0.
std::string ms_text(double ms);
// FLOPs in the unit `total` reads best in (GFLOP from 1e9, MFLOP from 1e6, else kFLOP), four
// significant digits: never "0.00 + 0.00 = 0.01".
std::string flop_text(double flops, double total);
// Whether two forms' min–max ranges overlap (their difference is within the timings' spread).
bool ranges_overlap(const FormResult& a, const FormResult& b);

// The peak loop in words, from its facts (FmaPeak::Loop): "16 independent 16-lane FMAs (AVX-512)".
std::string peak_loop_words(int chains, int lanes, const std::string& isa, Lang lang);

}  // namespace attn
