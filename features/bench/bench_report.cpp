#include "features/bench/bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "features/bench/bonus_report.h"
#include "fast/flash_attention.h"
#include "lessons/ui_text.h"
#include "notebook/text_width.h"

namespace attn {

namespace {

std::string fmt(const char* format, ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string s(n > 0 ? n : 0, '\0');
  std::vsnprintf(s.data(), s.size() + 1, format, again);
  va_end(again);
  return s;
}

std::string memory(double bytes) {
  if (bytes < 1e6) return fmt("%.0f kB", bytes / 1e3);
  return fmt("%.1f MB", bytes / 1e6);
}

std::string diff_text(double d) { return d == 0 ? "0" : fmt("%.1e", d); }

// Pads to `width` terminal columns (Chinese characters take two), on the right.
std::string pad(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return s + std::string(w < width ? width - w : 0, ' ');
}

std::string bar(double fraction, int width) {
  const int full = std::clamp(static_cast<int>(std::lround(fraction * width)), 0, width);
  std::string s;
  for (int i = 0; i < width; ++i) s += i < full ? "\u2588" : "\u2591";
  return s;
}

}  // namespace

std::string ms_text(double ms) { return ms >= 1 || ms == 0 ? fmt("%.1f", ms) : fmt("%.3g", ms); }

std::string flop_text(double flops, double total) {
  if (total >= 1e9) return fmt("%.4g GFLOP", flops / 1e9);
  if (total >= 1e6) return fmt("%.4g MFLOP", flops / 1e6);
  return fmt("%.4g kFLOP", flops / 1e3);
}

bool ranges_overlap(const FormResult& a, const FormResult& b) { return a.min_ms <= b.max_ms && b.min_ms <= a.max_ms; }

std::string peak_loop_words(int chains, int lanes, const std::string& isa, Lang lang) {
  if (lanes > 1) return ui("bench.loop.simd", lang, {std::to_string(chains), std::to_string(lanes), isa});
  return ui("bench.loop.portable", lang, {std::to_string(chains), isa});
}

std::string render_bench(const BenchResult& r, Lang lang, size_t columns) {
  // Notes wrap at the terminal's width, at most 80 columns (at least 40: narrower, lines run over).
  const size_t width = std::clamp<size_t>(columns, 40, 80);
  auto note = [width](const std::string& text) { return wrap_text(text, "# ", width) + "\n"; };
  const AttentionShape& s = r.options.shape;
  const int64_t b = s.batch, T = s.tokens, d = s.d_model, h = s.heads, hd = s.head_dim();
  const int threads = r.options.threads;
  // mha is always timed; the others only as --forms asks, and each note needs its forms.
  const FormResult* W = r.form("wrapper");
  const FormResult& M = *r.form("mha");
  const FormResult* F = r.form("fused-qkv");
  const FormResult* X = r.form("flash");
  enum { P = Workspace::kProjections, A = Workspace::kAttention };
  std::string out;

  out += ui("bench.title", lang);
  out += ui("bench.shape", lang,
            {fmt("%lld", (long long)b), fmt("%lld", (long long)T), fmt("%lld", (long long)d), fmt("%lld", (long long)h),
             fmt("%lld", (long long)hd), fmt("%d", threads), fmt("%d", (int)r.options.repeats),
             fmt("%llu", (unsigned long long)r.options.seed), fmt("%g", kMinTimedMs / 1000)});
  out += ui(
      "bench.machine", lang,
      {fmt("%s", r.cpu.c_str()), fmt("%d", r.hardware_threads), fmt("%s", r.kernels.c_str()),
       fmt("%lld", (long long)r.gemm_mr), fmt("%lld", (long long)r.gemm_nr), fmt("%lld", (long long)r.flash_query_tile),
       fmt("%lld", (long long)r.flash_key_tile), fmt("%s", r.threading.c_str())});
  const std::string loop = peak_loop_words(r.peak_chains, r.peak_lanes, r.peak_isa, lang);
  out += ui("bench.peak", lang, {fmt("%d", threads), fmt("%.1f", r.peak_gflops), loop, fmt("%d", r.peak_trials)});
  out += ui("bench.flops", lang,
            {flop_text(r.projection_flops, r.flops()), flop_text(r.attention_flops, r.flops()),
             flop_text(r.flops(), r.flops())});
  out += "\n";

  // max|diff| vs mha is a column of the comparison with the bonus notebook below; the share of the
  // peak, also drawn as bars, is the first column left out on a narrow terminal.
  const std::vector<TableColumn> head = {
      {ui("bench.col.form", lang), true, 9},   {ui("bench.col.median", lang), false, 8},
      {ui("bench.col.range", lang), false, 5}, {"GFLOP/s", false, 4},
      {ui("bench.col.peak", lang), false, 2},  {ui("bench.col.memory", lang), false, 3}};
  std::vector<std::vector<std::string>> rows;
  for (const FormResult& f : r.forms)
    rows.push_back({f.name, ms_text(f.median_ms), ms_text(f.min_ms) + " – " + ms_text(f.max_ms), fmt("%.1f", f.gflops),
                    fmt("%.1f%%", 100 * f.peak_fraction), memory(static_cast<double>(f.extra_bytes))});
  out += fit_table(head, rows, columns);
  // how the forms were timed, and what a sub-millisecond timing is worth
  std::string runs;
  bool sub_ms = false;
  for (const FormResult& f : r.forms) {
    runs += (runs.empty() ? "" : ", ") + f.name + " " + fmt("%lld", (long long)f.runs);
    sub_ms = sub_ms || f.median_ms < 1;
  }
  out +=
      "\n" + note(ui("bench.timing", lang, {fmt("%d", (int)r.options.repeats), fmt("%g", kMinTimedMs / 1000), runs}) +
                  (sub_ms ? ui("bench.noise", lang) : ""));
  size_t name_width = 0;
  for (const FormResult& f : r.forms) name_width = std::max(name_width, display_width(f.name));
  const int bar_width =
      static_cast<int>(std::clamp<size_t>(columns > name_width + 6 ? columns - name_width - 6 : 0, 10, 40));
  out += ui("bench.share", lang, {fmt("%.3g", 100.0 / bar_width)});
  for (const FormResult& f : r.forms)
    out += pad(f.name, name_width) + " " + bar(f.peak_fraction, bar_width) + fmt(" %3.0f%%\n", 100 * f.peak_fraction);
  out += "\n";

  const double per_head_bytes = 2.0 * b * T * T * 4, mha_bytes = 2.0 * b * h * T * T * 4;
  // wrapper -> mha
  if (W) {
    const double ratio = W->median_ms / M.median_ms;
    const double proj_ratio = W->phase_median_ms[P] / M.phase_median_ms[P];
    const double att_ratio = W->phase_median_ms[A] / M.phase_median_ms[A];
    std::string n1 = ui("bench.wrapper.intro", lang,
                        {fmt("%lld", (long long)(3 * h)), fmt("%lld", (long long)hd), ms_text(W->phase_median_ms[P]),
                         ms_text(M.phase_median_ms[P]), fmt("%lld", (long long)d), ms_text(W->phase_median_ms[A]),
                         ms_text(M.phase_median_ms[A]), fmt("%.2f", ratio)});
    const bool within_spread =
        ranges_overlap(*W, M);  // the two timings' min–max ranges overlap: no difference measured
    if (ratio > 1.05 && !within_spread) {
      n1 += ui("bench.wrapper.slower", lang);
      if (proj_ratio > 1.05)
        n1 += ui("bench.wrapper.streamed", lang,
                 {fmt("%lld", (long long)hd), fmt("%lld", (long long)hd), fmt("%lld", (long long)(3 * h))});
      if (att_ratio > 1.05) n1 += ui("bench.wrapper.rounds", lang, {fmt("%lld", (long long)h)});
    } else {
      n1 += (ratio >= 0.95 && ratio <= 1.05) ? ui("bench.wrapper.close", lang)
            : within_spread                  ? ui("bench.wrapper.within-spread", lang)
                                             : ui("bench.wrapper.faster", lang);
      n1 += ui("bench.wrapper.argument", lang,
               {fmt("%lld", (long long)hd), fmt("%lld", (long long)r.gemm_mr), fmt("%lld", (long long)r.gemm_nr)});
      if (att_ratio < 0.95)
        n1 += ui("bench.wrapper.attention-faster", lang,
                 {fmt("%.2f", att_ratio), fmt("%s", memory(per_head_bytes).c_str()), fmt("%lld", (long long)h),
                  fmt("%s", memory(mha_bytes).c_str())});
    }
    n1 += ui(
        "bench.wrapper.memory", lang,
        {fmt("%s", memory(W->extra_bytes).c_str()), fmt("%s", memory(M.extra_bytes).c_str()),
         fmt("%s", memory(per_head_bytes).c_str()), fmt("%lld", (long long)h), fmt("%s", memory(mha_bytes).c_str())});
    out += note(n1);
  }

  // mha
  const double masked = T > 1 ? (T - 1) / (2.0 * T) : 0.0;
  out += note(
      ui("bench.mha", lang,
         {fmt("%lld", (long long)b), fmt("%lld", (long long)h), fmt("%lld", (long long)T), fmt("%lld", (long long)T),
          fmt("%s", memory(mha_bytes / 2).c_str()), fmt("%.0f", 100 * mha_bytes / std::max<double>(1, M.extra_bytes)),
          fmt("%s", memory(M.extra_bytes).c_str()), fmt("%.1f", 100 * masked)}));

  // fused-qkv
  if (F) {
    const double proj_change = 100 * (F->phase_median_ms[P] / M.phase_median_ms[P] - 1);
    out += note(ui("bench.fused-qkv", lang,
                   {ms_text(F->phase_median_ms[P]), ms_text(M.phase_median_ms[P]), fmt("%+.0f", proj_change),
                    fmt("%.2f", M.median_ms / F->median_ms)}));
  }

  // flash
  if (X) {
    const double done_rate = r.flash_flops_done / (X->median_ms * 1e6);
    out += note(ui("bench.flash", lang,
                   {fmt("%lld", (long long)r.flash_query_tile), fmt("%lld", (long long)r.flash_key_tile),
                    fmt("%lld", (long long)r.flash_tiles_computed), fmt("%lld", (long long)r.flash_tiles_total),
                    fmt("%.3g", r.flash_flops_done / 1e9), fmt("%.3g", r.flops() / 1e9), fmt("%.1f", X->gflops),
                    fmt("%.1f", done_rate), fmt("%.0f", 100 * done_rate / r.peak_gflops),
                    fmt("%s", memory(X->extra_bytes).c_str()),
                    fmt("%.2f", 100.0 * X->extra_bytes / std::max<double>(1, M.extra_bytes)),
                    fmt("%.2f", M.median_ms / X->median_ms)}) +
                (W ? ui("bench.flash.wrapper", lang, {fmt("%.2f", W->median_ms / X->median_ms)}) : std::string()));
  }

  out += render_bonus_section(r, lang, width);

  // peak and agreement
  double worst = 0;
  for (const FormResult& f : r.forms) worst = std::max(worst, f.max_abs_diff);
  out += note(ui("bench.peak-share", lang, {fmt("%d", threads)}) + (r.portable ? ui("bench.peak-portable", lang) : ""));
  out += note(ui("bench.agreement", lang, {fmt("%s", diff_text(worst).c_str())}));
  return out;
}

}  // namespace attn
