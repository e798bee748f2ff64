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
