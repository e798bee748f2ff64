#include "features/bench/bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "fast/flash_attention.h"
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

// Pads to `width` terminal columns (Chinese characters take two), on the left or the right.
std::string pad(const std::string& s, size_t width, bool left = false) {
  const size_t w = display_width(s);
  const std::string fill(w < width ? width - w : 0, ' ');
  return left ? fill + s : s + fill;
}

std::string bar(double fraction, int width) {
  const int full = std::clamp(static_cast<int>(std::lround(fraction * width)), 0, width);
  std::string s;
  for (int i = 0; i < width; ++i) s += i < full ? "\u2588" : "\u2591";
  return s;
}

std::string note(const std::string& text) { return wrap_text(text, "# ", 80) + "\n"; }

}  // namespace

std::string render_bench(const BenchResult& r, Lang lang) {
  const bool zh = lang == Lang::Zh;
  auto tr = [zh](const std::string& en, const std::string& cn) { return zh ? cn : en; };
  const AttentionShape& s = r.options.shape;
  const int64_t b = s.batch, T = s.tokens, d = s.d_model, h = s.heads, hd = s.head_dim();
  const int threads = r.options.threads;
  const FormResult& W = *r.form("wrapper");
  const FormResult& M = *r.form("mha");
  const FormResult& F = *r.form("fused-qkv");
  const FormResult& X = *r.form("flash");
  enum { P = Workspace::kProjections, A = Workspace::kAttention };
  std::string out;

  out += tr("== attn-tutor bench: causal self-attention, forward pass, four ways\n",
            "== attn-tutor bench：因果自注意力的前向计算，四种写法\n");
  out += tr(fmt("batch %lld, %lld tokens, d_model %lld, %lld heads of %lld; %d threads; each form %d timed runs after "
                "a warm-up; seed %llu\n",
                (long long)b, (long long)T, (long long)d, (long long)h, (long long)hd, threads, (int)r.options.repeats,
                (unsigned long long)r.options.seed),
            fmt("批大小 %lld，%lld 个词元，d_model %lld，%lld 个头、每头 %lld 维；%d 个线程；每种写法预热一次后计时 %d "
                "次；种子 %llu\n",
                (long long)b, (long long)T, (long long)d, (long long)h, (long long)hd, threads, (int)r.options.repeats,
                (unsigned long long)r.options.seed));
  out += tr(fmt("machine: %s, %d hardware threads; kernels: %s (GEMM micro-kernel %lld×%lld, flash tiles of %lld "
                "queries × %lld keys), threads: %s\n",
                r.cpu.c_str(), r.hardware_threads, r.kernels.c_str(), (long long)r.gemm_mr, (long long)r.gemm_nr,
                (long long)r.flash_query_tile, (long long)r.flash_key_tile, r.threading.c_str()),
            fmt("机器：%s，%d 个硬件线程；内核：%s（矩阵乘法微内核 %lld×%lld，flash 块为 %lld 个查询 × %lld 个键），"
                "线程：%s\n",
                r.cpu.c_str(), r.hardware_threads, r.kernels.c_str(), (long long)r.gemm_mr, (long long)r.gemm_nr,
                (long long)r.flash_query_tile, (long long)r.flash_key_tile, r.threading.c_str()));
  out += tr(fmt("FP32 peak on %d threads: %.1f GFLOP/s (every thread a loop of %s, all at once; the best of %d "
                "trials spread over the run)\n",
                threads, r.peak_gflops, r.peak_loop.c_str(), r.peak_trials),
            fmt("%d 个线程的 FP32 峰值：%.1f GFLOP/s（所有线程同时运行一个循环：%s；"
                "取分布在整个运行过程中的 %d 次试验里最好的一次）\n",
                threads, r.peak_gflops, r.peak_loop.c_str(), r.peak_trials));
  out += tr(fmt("FLOPs per forward, counted in full for every form: 8·b·T·d² + 4·b·T²·d = %.2f + %.2f = %.2f GFLOP\n",
                r.projection_flops / 1e9, r.attention_flops / 1e9, r.flops() / 1e9),
            fmt("每次前向计算的浮点运算数（每种写法都按全量计）：8·b·T·d² + 4·b·T²·d = %.2f + %.2f = %.2f GFLOP\n",
                r.projection_flops / 1e9, r.attention_flops / 1e9, r.flops() / 1e9));
  out += "\n";

  const std::vector<std::string> head = {tr("form", "写法"),          tr("median ms", "中位数 ms"),
                                         tr("min–max ms", "最小–最大 ms"), "GFLOP/s",
                                         tr("of peak", "占峰值"),        tr("extra memory", "额外内存"),
                                         tr("max|diff| vs mha", "与 mha 的最大|差|")};
  const size_t widths[] = {10, 10, 18, 8, 8, 13, 18};
  for (size_t c = 0; c < head.size(); ++c) out += pad(head[c], widths[c], c > 0) + (c + 1 < head.size() ? " " : "\n");
  for (const FormResult& f : r.forms) {
    const std::vector<std::string> cells = {
        f.name,
        fmt("%.1f", f.median_ms),
        fmt("%.1f – %.1f", f.min_ms, f.max_ms),
        fmt("%.1f", f.gflops),
        fmt("%.1f%%", 100 * f.peak_fraction),
        memory(static_cast<double>(f.extra_bytes)),
        &f == &M ? tr("(reference)", "（基准）") : diff_text(f.max_abs_diff)};
    for (size_t c = 0; c < cells.size(); ++c) out += pad(cells[c], widths[c], c > 0) + (c + 1 < cells.size() ? " " : "\n");
  }
  out += "\n" + tr("Share of the FP32 peak (each \u2588 is 2.5%):\n", "占 FP32 峰值的比例（每个 \u2588 为 2.5%）：\n");
  for (const FormResult& f : r.forms)
    out += pad(f.name, 10) + " " + bar(f.peak_fraction, 40) + fmt(" %3.0f%%\n", 100 * f.peak_fraction);
  out += "\n";

  // wrapper -> mha
  const double per_head_bytes = 2.0 * b * T * T * 4, mha_bytes = 2.0 * b * h * T * T * 4;
  const double ratio = W.median_ms / M.median_ms;
  const double proj_ratio = W.phase_median_ms[P] / M.phase_median_ms[P];
  const double att_ratio = W.phase_median_ms[A] / M.phase_median_ms[A];
  std::string n1 = tr(
      fmt("wrapper → mha. The wrapper runs CausalAttention once per head, one head after another: %lld projections "
          "of x, each only %lld columns wide, then that head's scores, mask and softmax; the FLOPs are the same as "
          "mha's. Projections: %.1f ms against mha's %.1f ms for three %lld-wide ones; attention: %.1f ms against "
          "%.1f ms. In all the wrapper takes %.2f× mha's time: ",
          (long long)(3 * h), (long long)hd, W.phase_median_ms[P], M.phase_median_ms[P], (long long)d,
          W.phase_median_ms[A], M.phase_median_ms[A], ratio),
      fmt("wrapper → mha。封装类对每个头各调用一次 CausalAttention，一个头接一个头：%lld 次对 x 的投影，每次只有 %lld "
          "列宽，然后是这个头自己的注意力分数、掩码和 softmax；浮点运算量与 mha 相同。投影：%.1f ms，而 mha 的三次 %lld "
          "列宽投影用了 %.1f ms；注意力部分：%.1f ms 对 %.1f ms。总的来说，封装类用了 mha 的 %.2f 倍时间：",
          (long long)(3 * h), (long long)hd, W.phase_median_ms[P], (long long)d, M.phase_median_ms[P],
          W.phase_median_ms[A], M.phase_median_ms[A], ratio));
  if (ratio > 1.05) {
    n1 += tr("slower, as §3.6.2 says.", "正如 3.6.2 节所说，它更慢。");
    if (proj_ratio > 1.05)
      n1 += tr(fmt(" A %lld-wide product uses each row of x for only %lld outputs, so x is streamed %lld times "
                   "instead of 3.",
                   (long long)hd, (long long)hd, (long long)(3 * h)),
               fmt("%lld 列宽的乘法让 x 的每一行只产生 %lld 个输出，于是 x 要读 %lld 遍而不是 3 遍。", (long long)hd,
                   (long long)hd, (long long)(3 * h)));
    if (att_ratio > 1.05)
      n1 += tr(fmt(" Its attention runs as %lld rounds of smaller steps, one after another, each paying its own "
                   "start-up (threads woken, panels packed).",
                   (long long)h),
               fmt("它的注意力部分分成 %lld 轮更小的步骤依次执行，每轮都要付出自己的启动开销（唤醒线程、打包面板）。",
                   (long long)h));
  } else {
    n1 += ratio >= 0.95 ? tr("within 5% of it, so not clearly slower here, unlike what §3.6.2 suggests.",
                             "两者相差不到 5%，所以这里它并不明显更慢，与 3.6.2 节的说法不同。")
                        : tr("faster here, unlike what §3.6.2 says.", "这里它反而更快，与 3.6.2 节的说法不同。");
    n1 += tr(fmt(" The book's argument is the Python loop over heads and PyTorch's cost per call and per small "
                 "kernel; compiled, a call costs microseconds, and a %lld-wide product still fills the %lld×%lld "
                 "micro-kernel, so the gap mostly disappears.",
                 (long long)hd, (long long)r.gemm_mr, (long long)r.gemm_nr),
             fmt("书中的理由是 Python 中对各个头的循环，以及 PyTorch 每次调用、每个小内核的开销；编译后的代码每次调用只需几微秒，"
                 "%lld 列宽的乘法也能填满 %lld×%lld 的微内核，所以这个差距基本消失了。",
                 (long long)hd, (long long)r.gemm_mr, (long long)r.gemm_nr));
    if (att_ratio < 0.95)
      n1 += tr(fmt(" Its attention is even faster (%.2f× mha's time): each round's (b, T, T) scores and weights, %s, "
                   "are %lld times smaller than mha's %s, the likely reason (less memory touched per pass).",
                   att_ratio, memory(per_head_bytes).c_str(), (long long)h, memory(mha_bytes).c_str()),
               fmt("它的注意力部分甚至更快（mha 的 %.2f 倍时间）：每一轮的 (b, T, T) 注意力分数和注意力权重共 %s，比 mha 的 "
                   "%s 小 %lld 倍，这很可能就是原因（每遍处理的内存更少）。",
                   att_ratio, memory(per_head_bytes).c_str(), memory(mha_bytes).c_str(), (long long)h));
  }
  n1 += tr(fmt(" The wrapper does need less memory (%s against %s): one head's (b, T, T) scores and weights, %s, exist "
               "at a time instead of all %lld heads' %s.",
               memory(W.extra_bytes).c_str(), memory(M.extra_bytes).c_str(), memory(per_head_bytes).c_str(),
               (long long)h, memory(mha_bytes).c_str()),
           fmt("封装类需要的内存确实更少（%s 对 %s）：同一时刻只存在一个头的 (b, T, T) 注意力分数和注意力权重，共 %s，"
               "而不是全部 %lld 个头的 %s。",
               memory(W.extra_bytes).c_str(), memory(M.extra_bytes).c_str(), memory(per_head_bytes).c_str(),
               (long long)h, memory(mha_bytes).c_str()));
  out += note(n1);

  // mha
  const double masked = T > 1 ? (T - 1) / (2.0 * T) : 0.0;
  out += note(tr(
      fmt("mha is §3.6.2's MultiHeadAttention as written: three projections for all heads at once, one batched "
          "matmul for every head's scores, masked_fill_ with -inf, softmax. attn_scores and attn_weights are each "
          "(b, heads, T, T) = (%lld, %lld, %lld, %lld): %s apiece, %.0f%% of its %s of extra memory. %.1f%% of the "
          "scores lie above the diagonal: computed, set to -inf, exponentiated to 0 and multiplied by the values all "
          "the same.",
          (long long)b, (long long)h, (long long)T, (long long)T, memory(mha_bytes / 2).c_str(),
          100 * mha_bytes / std::max<double>(1, M.extra_bytes), memory(M.extra_bytes).c_str(), 100 * masked),
      fmt("mha 就是 3.6.2 节原样的 MultiHeadAttention：一次为所有头做三个投影，一次批处理矩阵乘法算出所有头的注意力分数，"
          "用 -inf 做 masked_fill_，再 softmax。attn_scores 和 attn_weights 的形状都是 (b, heads, T, T) = (%lld, %lld, "
          "%lld, %lld)：各 %s，占它 %s 额外内存的 %.0f%%。有 %.1f%% 的注意力分数在对角线以上：照样被计算、设为 -inf、"
          "取指数变成 0，再与值向量相乘。",
          (long long)b, (long long)h, (long long)T, (long long)T, memory(mha_bytes / 2).c_str(),
          memory(M.extra_bytes).c_str(), 100 * mha_bytes / std::max<double>(1, M.extra_bytes), 100 * masked)));

  // fused-qkv
  const double proj_change = 100 * (F.phase_median_ms[P] / M.phase_median_ms[P] - 1);
  out += note(tr(
      fmt("mha → fused-qkv. W_query, W_key and W_value stacked into one (d_in, 3·d_out) weight: x is read once, by "
          "one product three times as wide. Projections %.1f ms against %.1f ms (%+.0f%%); overall %.2f× mha's "
          "speed. The attention part is unchanged, so the step is small: the three products were already "
          "compute-bound.",
          F.phase_median_ms[P], M.phase_median_ms[P], proj_change, M.median_ms / F.median_ms),
      fmt("mha → fused-qkv。把 W_query、W_key、W_value 叠成一个 (d_in, 3·d_out) 的权重：x 只读一遍，做一次三倍宽的乘法。"
          "投影 %.1f ms 对 %.1f ms（%+.0f%%）；整体速度是 mha 的 %.2f 倍。注意力部分没有变化，所以这一步提升不大："
          "原来的三次乘法本来就受计算量限制。",
          F.phase_median_ms[P], M.phase_median_ms[P], proj_change, M.median_ms / F.median_ms)));

  // flash
  const double done_rate = r.flash_flops_done / (X.median_ms * 1e6);
  out += note(tr(
      fmt("fused-qkv → flash. No T×T matrix: each block of %lld queries walks the keys in blocks of %lld, keeping a "
          "running maximum m and sum l per query; when a block raises m, what was summed so far is rescaled by "
          "exp(m_old − m_new), so the end result is the softmax over all keys. Blocks wholly above the diagonal are "
          "skipped: %lld of %lld per head are computed, so flash performs %.3g of the %.3g GFLOP the formula counts. "
          "Its %.1f GFLOP/s is %.1f GFLOP/s (%.0f%% of peak) on the work it really does. Extra memory %s (one "
          "batch's qkv, the GEMM's panels, per-thread tiles): %.2f%% of mha's. Speed: %.2f× mha's, %.2f× the "
          "wrapper's.",
          (long long)r.flash_query_tile, (long long)r.flash_key_tile, (long long)r.flash_tiles_computed,
          (long long)r.flash_tiles_total, r.flash_flops_done / 1e9, r.flops() / 1e9, X.gflops, done_rate,
          100 * done_rate / r.peak_gflops, memory(X.extra_bytes).c_str(),
          100.0 * X.extra_bytes / std::max<double>(1, M.extra_bytes), M.median_ms / X.median_ms,
          W.median_ms / X.median_ms),
      fmt("fused-qkv → flash。没有 T×T 矩阵：每块 %lld 个查询按每块 %lld 个键依次走过所有键，为每个查询维护一个滑动最大值 m "
          "和总和 l；某块让 m 变大时，之前累加的结果乘以 exp(m_old − m_new) 重新缩放，所以最终结果就是对所有键的 softmax。"
          "完全位于对角线以上的块被跳过：每个头 %lld 块中只算 %lld 块，所以 flash 只做了公式所计 %.3g GFLOP 中的 %.3g。"
          "它的 %.1f GFLOP/s 折合到真正做的运算上是 %.1f GFLOP/s（峰值的 %.0f%%）。额外内存 %s（一个批次的 qkv、"
          "矩阵乘法的打包缓冲区、每个线程的块）：是 mha 的 %.2f%%。速度是 mha 的 %.2f 倍、封装类的 %.2f 倍。",
          (long long)r.flash_query_tile, (long long)r.flash_key_tile, (long long)r.flash_tiles_total,
          (long long)r.flash_tiles_computed, r.flops() / 1e9, r.flash_flops_done / 1e9, X.gflops, done_rate,
          100 * done_rate / r.peak_gflops, memory(X.extra_bytes).c_str(),
          100.0 * X.extra_bytes / std::max<double>(1, M.extra_bytes), M.median_ms / X.median_ms,
          W.median_ms / X.median_ms)));

  // peak and agreement
  double worst = 0;
  for (const FormResult& f : r.forms) worst = std::max(worst, f.max_abs_diff);
  out += note(tr(
      fmt("Share of peak divides GFLOP/s by what the FMA loop reaches on the same %d threads. Nothing that multiplies "
          "and adds goes faster than that loop, so the materialising forms show how close to the hardware they come; "
          "only flash, credited with the FLOPs it skips, can come near 100%% or pass it.%s",
          threads,
          r.portable ? " The portable C++ kernels ran (no SIMD kernels for this CPU, or --kernels portable), and the "
                       "peak is the portable loop's."
                     : ""),
      fmt("占峰值的比例是 GFLOP/s 除以同样 %d 个线程上 FMA 循环达到的速度。任何乘加运算都不会比这个循环更快，"
          "所以显式构造矩阵的几种写法显示它们离硬件极限有多近；只有 flash 因为跳过的运算也计在内，才可能接近甚至超过 100%%。%s",
          threads,
          r.portable ? "运行的是可移植的 C++ 内核（这台 CPU 没有可用的 SIMD 内核，或指定了 --kernels portable），"
                       "峰值也是可移植循环的。"
                     : "")));
  out += note(tr(
      fmt("max|diff| vs mha: every form's output agrees with mha's to %s (float32 rounding: additions in another "
          "order, and flash's rescaled partial sums).",
          diff_text(worst).c_str()),
      fmt("与 mha 的最大|差|：每种写法的输出与 mha 的相差不超过 %s（float32 舍入：加法顺序不同，以及 flash 重新缩放的部分和）。",
          diff_text(worst).c_str())));
  return out;
}

}  // namespace attn
