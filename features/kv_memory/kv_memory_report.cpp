// The text of `attn-tutor kv-memory`: the estimators' printout, how they count, a table and a plot of the
// totals against the context length.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "features/kv_memory/kv_memory.h"

namespace attn {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string pad_right(const std::string& s, size_t width) { return s + std::string(width > s.size() ? width - s.size() : 0, ' '); }
std::string pad_left(const std::string& s, size_t width) { return std::string(width > s.size() ? width - s.size() : 0, ' ') + s; }

std::string bytes_text(int64_t bytes) {
  std::string s = str(bytes);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string short_length(int64_t n) { return n % 1024 == 0 ? str(n / 1024) + "K" : str(n); }

struct Series {
  char mark;
  std::string label;
  std::optional<int64_t> KvMemoryTotals::*field = nullptr;
  int64_t KvMemoryTotals::*plain = nullptr;
  std::optional<int64_t> value(const KvMemoryTotals& t) const {
    return plain ? std::optional<int64_t>(t.*plain) : t.*field;
  }
};

std::vector<Series> series_of(const KvMemoryEstimate& e) {
  std::vector<Series> s = {{'M', "MHA", nullptr, &KvMemoryTotals::mha}, {'G', "GQA", nullptr, &KvMemoryTotals::gqa}};
  if (e.config.window) {
    s.push_back({'S', "MHA+SWA", &KvMemoryTotals::swa, nullptr});
    s.push_back({'W', "GQA+SWA", &KvMemoryTotals::gqa_swa, nullptr});
  }
  if (e.config.latent_dim) s.push_back({'L', "MLA", &KvMemoryTotals::mla, nullptr});
  return s;
}

void config_block(std::string& out, const KvMemoryEstimate& e) {
  const KvMemoryConfig& c = e.config;
  auto line = [&](const std::string& key, const std::string& value) { out += pad_right(key, 17) + ": " + value + "\n"; };
  out += "==== Config ====\n";
  line("context_length", str(c.context_length));
  line("emb_dim", str(c.emb_dim));
  line("n_heads", str(c.num_heads));
  line("n_layers", str(c.num_layers));
  line("n_kv_groups", str(c.num_kv_groups));
  if (c.latent_dim) line("latent_dim", str(*c.latent_dim));
  if (c.window) line("sliding_window", str(*c.window) + " (effective W " + str(e.effective_window) + ")");
  line("batch_size", str(c.batch_size));
  line("dtype", c.dtype + " (" + str(e.bytes_per_elem) + " Bytes/elem)");
  line("head_dim", str(e.head_dim));
  line("GQA n_kv_heads", str(e.gqa_kv_heads));
  if (c.window)
    line("swa_ratio", c.swa_ratio + " -> " + str(e.swa_layers) + " SWA, " + str(e.full_layers) + " Full layers");
}

void totals_block(std::string& out, const KvMemoryEstimate& e) {
  const KvMemoryTotals& t = e.totals;
  const std::string ratio = e.config.swa_ratio;
  auto line = [&](const std::string& key, int64_t bytes) {
    out += pad_right(key, 22) + ": " + pad_left(gigabytes(bytes), 12) + "  (" + bytes_text(bytes) + " bytes)\n";
  };
  auto share = [&](const std::string& name, int64_t other) {
    out += pad_right("Ratio (MHA / " + name + ")", 22) + ": " +
           grouped_2f(static_cast<double>(t.mha) / static_cast<double>(other)) + "x\n";
    out += pad_right("Savings (" + name + " vs MHA)", 22) + ": " +
           grouped_2f((1.0 - static_cast<double>(other) / static_cast<double>(t.mha)) * 100.0) + "%\n";
  };
  out += "\n==== KV-cache totals across all layers ====\n";
  line("MHA total KV cache", t.mha);
  line("GQA total KV cache", t.gqa);
  if (t.swa) line("MHA + SWA (ratio " + ratio + ")", *t.swa);
  if (t.gqa_swa) line("GQA + SWA (ratio " + ratio + ")", *t.gqa_swa);
  if (t.mla) line("MLA total KV cache", *t.mla);
  share("GQA", t.gqa);
  if (t.mla) share("MLA", *t.mla);
}

void formula_block(std::string& out, const KvMemoryEstimate& e, Lang lang) {
  const KvMemoryConfig& c = e.config;
  const bool zh = lang == Lang::Zh;
  const std::string b = str(c.batch_size), n = str(c.context_length), hd = str(e.head_dim), by = str(e.bytes_per_elem);
  out += zh ? "\n估算脚本的算法（Python，与 memory_estimator_*.py 相同）：\n" : "\nHow the estimators count (Python, as memory_estimator_*.py):\n";
  out += "  head_dim = math.ceil(emb_dim / n_heads)  # math.ceil(" + str(c.emb_dim) + " / " + str(c.num_heads) + ") = " + hd + "\n";
  out += "  per_layer = batch * context_length * head_dim * n_kv_heads * 2 * bytes_per_elem  # 2: K and V\n";
  out += "  MHA: " + b + " * " + n + " * " + hd + " * " + str(c.num_heads) + " * 2 * " + by + " * " + str(c.num_layers) +
         " layers = " + bytes_text(e.totals.mha) + "\n";
  out += "  GQA: n_kv_heads = n_heads // n_kv_groups = " + str(c.num_heads) + " // " + str(c.num_kv_groups) + " = " +
         str(e.gqa_kv_heads) + " -> " + bytes_text(e.totals.gqa) + "\n";
  if (c.window)
    out += "  SWA: " + c.swa_ratio + " over " + str(c.num_layers) + " layers: blocks of " + str(e.swa_a + e.swa_b) +
           ", the rest SWA first -> " + str(e.swa_layers) + " SWA layers of min(W, context_length) = " +
           str(e.effective_window) + " tokens, " + str(e.full_layers) + " full layers of " + n + "\n";
  if (c.latent_dim)
    out += "  MLA: batch * context_length * n_layers * latent_dim * bytes_per_elem = " + b + " * " + n + " * " +
           str(c.num_layers) + " * " + str(*c.latent_dim) + " * " + by + " = " + bytes_text(*e.totals.mla) + "\n";
  out += zh ? "  GB = 字节数 / 10^9（不是 2^30），保留两位小数。\n" : "  GB = bytes / 10^9 (not 2^30), two decimals.\n";
  out += zh ? "# ⚠ 常见误区：估算脚本把 n_kv_groups 读作每个键/值头服务的查询头数（n_kv_heads = n_heads // n_kv_groups = " +
                  str(e.gqa_kv_heads) + "），而 GroupedQueryAttention 类中的 num_kv_groups 是键/值头的数量：同样的 GQA 在类中写作 num_kv_groups=" +
                  str(e.gqa_kv_heads) + "（`attn-tutor gqa`）。这里沿用脚本的读法，以便重现其 README 中的数字。\n"
            : "# \u26a0 Common confusion: the estimator scripts read n_kv_groups as query heads per key/value head (n_kv_heads = "
              "n_heads // n_kv_groups = " + str(e.gqa_kv_heads) + "), while GroupedQueryAttention's num_kv_groups IS the "
              "number of key/value heads: the same GQA is num_kv_groups=" + str(e.gqa_kv_heads) +
              " in the class (`attn-tutor gqa`). This follows the scripts, so that their README figures come out.\n";
}

void table_block(std::string& out, const KvMemoryEstimate& e, const std::vector<Series>& series, Lang lang) {
  out += lang == Lang::Zh ? "\n按上下文长度（GB）：\n" : "\nBy context length (GB):\n";
  out += pad_left("context", 9);
  for (const Series& s : series) out += pad_left(s.label, 10);
  out += "\n";
  for (const KvMemoryTotals& t : e.by_context) {
    out += pad_left(str(t.context_length), 9);
    for (const Series& s : series) out += pad_left(grouped_2f(static_cast<double>(*s.value(t)) / 1e9), 10);
    out += t.context_length == e.config.context_length ? "  <-\n" : "\n";
  }
}

void plot_block(std::string& out, const KvMemoryEstimate& e, const std::vector<Series>& series, Lang lang) {
  const int rows = 12, step = 6;
  const int cols = static_cast<int>(e.by_context.size()) * step;
  double top = 0;
  for (const KvMemoryTotals& t : e.by_context)
    for (const Series& s : series) top = std::max(top, static_cast<double>(*s.value(t)) / 1e9);
  std::vector<std::string> grid(rows, std::string(static_cast<size_t>(cols), ' '));
  for (size_t i = 0; i < e.by_context.size(); ++i)
    for (const Series& s : series) {
      const double gb = static_cast<double>(*s.value(e.by_context[i])) / 1e9;
      const int r = top > 0 ? static_cast<int>(std::lround(gb / top * (rows - 1))) : 0;
      char& cell = grid[static_cast<size_t>(rows - 1 - r)][i * step + 1];
      cell = cell == ' ' ? s.mark : '*';
    }
  out += lang == Lang::Zh ? "\nKV 缓存总量与上下文长度（纵轴 GB，线性；横轴每格翻倍）：\n"
                          : "\nTotal KV cache against the context length (GB, linear; each column doubles it):\n";
  const std::string top_label = grouped_2f(top);
  for (int r = 0; r < rows; ++r) {
    std::string label = r == 0 ? top_label : r == rows - 1 ? "0.00" : r == rows / 2 ? grouped_2f(top * (rows - 1 - r) / (rows - 1)) : "";
    std::string line = pad_left(label, top_label.size()) + " |" + grid[static_cast<size_t>(r)];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += std::string(top_label.size() + 1, ' ') + "+" + std::string(static_cast<size_t>(cols), '-') + "\n";
  std::string axis(top_label.size() + 2, ' ');
  for (const KvMemoryTotals& t : e.by_context) axis += pad_right(short_length(t.context_length), step);
  while (axis.back() == ' ') axis.pop_back();
  out += axis + "\n";
  std::string legend = " ";
  for (const Series& s : series) legend += " " + std::string(1, s.mark) + " " + s.label;
  out += legend + (lang == Lang::Zh ? "  * 多个重合\n" : "  * several at one point\n");
}

}  // namespace

std::string render_kv_memory(const KvMemoryEstimate& e, Lang lang) {
  std::string out = lang == Lang::Zh
                        ? "attn-tutor kv-memory：本书附加材料中的 KV 缓存估算（ch04/04_gqa、05_mla、06_swa 的 memory_estimator 脚本）\n\n"
                        : "attn-tutor kv-memory: the KV-cache estimators of the book's bonus material (memory_estimator "
                          "scripts of ch04/04_gqa, 05_mla, 06_swa)\n\n";
  config_block(out, e);
  totals_block(out, e);
  formula_block(out, e, lang);
  const std::vector<Series> series = series_of(e);
  table_block(out, e, series, lang);
  plot_block(out, e, series, lang);
  return out;
}

}  // namespace attn
