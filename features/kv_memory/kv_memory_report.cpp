// The text of `attn-tutor kv-memory`: the estimators' printout, how they count, a table and a plot of the
// totals against the context length.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "features/kv_memory/kv_memory.h"
#include "features/kv_memory/kv_memory_parts.h"
#include "lessons/ui_text.h"
#include "notebook/text_width.h"

namespace attn {

namespace kv_text {

std::string str(int64_t v) { return std::to_string(v); }

std::string pad_right(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return s + std::string(width > w ? width - w : 0, ' ');
}
std::string pad_left(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return std::string(width > w ? width - w : 0, ' ') + s;
}

std::string bytes_text(int64_t bytes) {
  std::string s = str(bytes);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string short_length(int64_t n) { return n % 1024 == 0 ? str(n / 1024) + "K" : str(n); }

std::vector<Series> series_of(const KvMemoryEstimate& e) {
  std::vector<Series> s = {{'M', "MHA", nullptr, &KvMemoryTotals::mha}, {'G', "GQA", nullptr, &KvMemoryTotals::gqa}};
  if (e.config.window) {
    s.push_back({'S', "MHA+SWA", &KvMemoryTotals::swa, nullptr});
    s.push_back({'W', "GQA+SWA", &KvMemoryTotals::gqa_swa, nullptr});
  }
  if (e.config.latent_dim) s.push_back({'L', "MLA", &KvMemoryTotals::mla, nullptr});
  return s;
}

void config_block(std::string& out, const KvMemoryEstimate& e, Lang lang) {
  const KvMemoryConfig& c = e.config;
  auto line = [&](const std::string& key, const std::string& value) {
    out += pad_right(key, 17) + ": " + value + "\n";
  };
  out += ui("kvmem.config", lang) + "\n";
  line("context_length", str(c.context_length));
  line("emb_dim", str(c.emb_dim));
  line("n_heads", str(c.num_heads));
  line("n_layers", str(c.num_layers));
  line("n_kv_groups", str(c.num_kv_groups));
  if (c.latent_dim) line("latent_dim", str(*c.latent_dim));
  if (c.window) line("sliding_window", str(*c.window) + ui("kvmem.effective-window", lang, {str(e.effective_window)}));
  line("batch_size", str(c.batch_size));
  line("dtype", c.dtype + ui("kvmem.bytes-per-elem", lang, {str(e.bytes_per_elem)}));
  line("head_dim", str(e.head_dim));
  line("GQA n_kv_heads", str(e.gqa_kv_heads));
  if (c.window)
    line("swa_ratio", c.swa_ratio + " -> " + ui("kvmem.swa-layers", lang, {str(e.swa_layers), str(e.full_layers)}));
}

void totals_block(std::string& out, const KvMemoryEstimate& e, Lang lang) {
  const KvMemoryTotals& t = e.totals;
  const std::string ratio = e.config.swa_ratio;
  auto line = [&](const std::string& key, int64_t bytes) {
    out += pad_right(key, 22) + ": " + pad_left(gigabytes(bytes), 12) + "  " +
           ui("kvmem.bytes", lang, {bytes_text(bytes)}) + "\n";
  };
  auto share = [&](const std::string& name, int64_t other) {
    out += pad_right(ui("kvmem.ratio", lang, {name}), 22) + ": " +
           grouped_2f(static_cast<double>(t.mha) / static_cast<double>(other)) + "x\n";
    out += pad_right(ui("kvmem.savings", lang, {name}), 22) + ": " +
           grouped_2f((1.0 - static_cast<double>(other) / static_cast<double>(t.mha)) * 100.0) + "%\n";
  };
  out += "\n" + ui("kvmem.totals", lang) + "\n";
  line(ui("kvmem.total", lang, {"MHA"}), t.mha);
  line(ui("kvmem.total", lang, {"GQA"}), t.gqa);
  if (t.swa) line(ui("kvmem.swa-total", lang, {"MHA", ratio}), *t.swa);
  if (t.gqa_swa) line(ui("kvmem.swa-total", lang, {"GQA", ratio}), *t.gqa_swa);
  if (t.mla) line(ui("kvmem.total", lang, {"MLA"}), *t.mla);
  share("GQA", t.gqa);
  if (t.mla) share("MLA", *t.mla);
}

void formula_block(std::string& out, const KvMemoryEstimate& e, Lang lang) {
  const KvMemoryConfig& c = e.config;
  const std::string b = str(c.batch_size), n = str(c.context_length), hd = str(e.head_dim), by = str(e.bytes_per_elem);
  out += "\n" + ui("kvmem.how", lang) + "\n";
  out += "  head_dim = math.ceil(emb_dim / n_heads)  # math.ceil(" + str(c.emb_dim) + " / " + str(c.num_heads) +
         ") = " + hd + "\n";
  out +=
      "  per_layer = (batch * context_length * head_dim * n_kv_heads\n"
      "               * 2 * bytes_per_elem)  # 2: K and V\n";
  out += "  MHA: " + b + " * " + n + " * " + hd + " * " + str(c.num_heads) + " * 2 * " + by + " * " +
         str(c.num_layers) + ui("kvmem.layers-equal", lang, {bytes_text(e.totals.mha)}) + "\n";
  out += "  GQA: n_kv_heads = n_heads // n_kv_groups = " + str(c.num_heads) + " // " + str(c.num_kv_groups) + " = " +
         str(e.gqa_kv_heads) + " -> " + bytes_text(e.totals.gqa) + "\n";
  if (c.window)
    out += "  SWA: " +
           ui("kvmem.swa-formula", lang,
              {c.swa_ratio, str(c.num_layers), str(e.swa_a + e.swa_b), str(e.swa_layers), str(e.effective_window),
               str(e.full_layers), n}) +
           "\n";
  if (c.latent_dim)
    out += "  MLA: batch * context_length * n_layers * latent_dim * bytes_per_elem = " + b + " * " + n + " * " +
           str(c.num_layers) + " * " + str(*c.latent_dim) + " * " + by + " = " + bytes_text(*e.totals.mla) + "\n";
  out += "  " + ui("kvmem.gb", lang) + "\n";
  out += "# " + ui("kvmem.confusion", lang, {str(e.gqa_kv_heads)}) + "\n";
}

void table_block(std::string& out, const KvMemoryEstimate& e, const std::vector<Series>& series, Lang lang) {
  out += "\n" + ui("kvmem.by-context", lang) + "\n";
  out += pad_left(ui("kvmem.context", lang), 9);
  for (const Series& s : series) out += pad_left(s.label, 10);
  out += "\n";
  for (const KvMemoryTotals& t : e.by_context) {
    out += pad_left(str(t.context_length), 9);
    for (const Series& s : series) out += pad_left(grouped_2f(static_cast<double>(*s.value(t)) / 1e9), 10);
    out += t.context_length == e.config.context_length ? "  <-\n" : "\n";
  }
}

}  // namespace kv_text

std::string render_kv_memory(const KvMemoryEstimate& e, Lang lang, size_t columns) {
  using namespace kv_text;
  const size_t width = std::max<size_t>(columns, 40);
  std::string out = wrap_text(ui("kvmem.title", lang), "", width) + "\n";
  config_block(out, e, lang);
  totals_block(out, e, lang);
  std::string formulas;
  formula_block(formulas, e, lang);
  // Prose lines wrapped to the terminal (the confusion as "# " lines, the rest indented under itself);
  // the estimators' code lines as they are.
  size_t start = 0;
  while (start < formulas.size()) {
    const size_t end = formulas.find('\n', start);
    const std::string line = formulas.substr(start, end - start);
    start = end == std::string::npos ? formulas.size() : end + 1;
    if (display_width(line) <= width) {
      out += line + "\n";
      continue;
    }
    const size_t indent = line.find_first_not_of(' ');
    const bool comment = line.compare(0, 2, "# ") == 0;
    const std::string prefix = comment ? "# " : std::string(indent == std::string::npos ? 0 : indent, ' ');
    out += wrap_text(line.substr(comment ? 2 : prefix.size()), prefix, width);
  }
  const std::vector<Series> series = series_of(e);
  table_block(out, e, series, lang);
  plot_text(out, e, lang, width);
  return out;
}

}  // namespace attn
