#pragma once
// The pieces of `attn-tutor kv-memory`'s text (kv_memory_report.cpp) that its HTML (kv_memory_html.cpp)
// shows too: the same blocks, the same series.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "features/kv_memory/kv_memory.h"

namespace attn {
namespace kv_text {

// One estimator shown in the table and the plot: its plot mark, its label, where its total is.
struct Series {
  char mark;
  std::string label;
  std::optional<int64_t> KvMemoryTotals::*field = nullptr;
  int64_t KvMemoryTotals::*plain = nullptr;
  std::optional<int64_t> value(const KvMemoryTotals& t) const {
    return plain ? std::optional<int64_t>(t.*plain) : t.*field;
  }
};

// One curve of the plot: its mark (its points; the lines between them in the lower case), its label, and
// its bytes at each of the estimate's context lengths (by_context).
struct PlotCurve {
  char mark;
  std::string label;
  std::vector<int64_t> bytes;
};
struct PlotCurves {
  std::vector<PlotCurve> curves;
  std::string note;  // values of the bonus plot's list left out, and why ("" for none)
};
// The curves --plot chooses (KvMemoryConfig::plot), largest first after MHA.
PlotCurves plot_curves(const KvMemoryEstimate& e, Lang lang);
// The text chart of them, `columns` wide, appended to `out`.
void plot_text(std::string& out, const KvMemoryEstimate& e, Lang lang, size_t columns);
std::string pad_left(const std::string& s, size_t width);

// MHA and GQA, then MHA+SWA and GQA+SWA with --window, then MLA with --latent-dim.
std::vector<Series> series_of(const KvMemoryEstimate& e);
// "1K", "128K", "5000": a context length as the plot's axis writes it.
std::string short_length(int64_t n);
// The text's blocks, appended to `out`: the config, the totals, how the estimators count.
void config_block(std::string& out, const KvMemoryEstimate& e, Lang lang);
void totals_block(std::string& out, const KvMemoryEstimate& e, Lang lang);
void formula_block(std::string& out, const KvMemoryEstimate& e, Lang lang);

}  // namespace kv_text
}  // namespace attn
