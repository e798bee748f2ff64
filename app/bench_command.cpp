#include "bench_command.h"

#include <unistd.h>

#include <iostream>
#include <optional>

#include "core/output_file.h"
#include "features/bench/bench_report.h"
#include "core/generator.h"
#include "language.h"
#include "core/usage_error.h"

namespace attn {

void add_bench_options(CLI::App* sub, BenchCli& b) {
  AttentionShape& s = b.options.shape;
  sub->add_option("--batch", s.batch, tr("Sequences per batch (default 8)", "每批的序列数（默认 8）"))->type_name("N");
  sub->add_option("--tokens", s.tokens, tr("Tokens per sequence, T (default 1024)", "每个序列的词元数 T（默认 1024）"))
      ->type_name("N");
  sub->add_option("--d-model", s.d_model, tr("Embedding size, d_in = d_out (default 768)", "嵌入维度，d_in = d_out（默认 768）"))
      ->type_name("N");
  sub->add_option("--num-heads", s.heads, tr("Attention heads; must divide --d-model (default 12)",
                                             "注意力头数；必须整除 --d-model（默认 12）"))
      ->type_name("N");
  sub->add_option("--threads", b.threads,
                  tr("Threads (default: every hardware thread, " + std::to_string(hardware_threads()) + " here)",
                     "线程数（默认：全部硬件线程，这里是 " + std::to_string(hardware_threads()) + "）"))
      ->type_name("N");
  sub->add_option("--repeats", b.options.repeats, tr("Timed runs of each form after its warm-up (default 5)",
                                                     "每种写法预热后的计时次数（默认 5）"))
      ->type_name("N");
  sub->add_option("--seed", b.seed, tr("torch.manual_seed for the weights and the input (default 123)",
                                       "权重和输入所用的 torch.manual_seed（默认 123）"))
      ->type_name("N");
  sub->add_option("--json", b.json, tr("Write the table as JSON to FILE (atomically); '-' writes it to stdout instead "
                                       "of the text",
                                       "把表格以 JSON 写入 FILE（原子写入）；'-' 表示写到标准输出，代替文本"))
      ->type_name("FILE|-");
  sub->add_option("--kernels", b.kernels,
                  tr("Kernels to run: avx512, avx2, neon or portable (default: the widest this CPU has, " +
                         std::string(isa_name(best_isa())) + " here)",
                     "要运行的内核：avx512、avx2、neon 或 portable（默认：这台 CPU 支持的最宽的一种，这里是 " +
                         std::string(isa_name(best_isa())) + "）"))
      ->type_name("ISA");
  sub->add_option("--lang", b.lang, tr("Language of the annotations: en or zh", "注释的语言：en 或 zh"))
      ->check(CLI::IsMember({"en", "zh"}));
}

int run_bench(BenchCli& b, Lang env_lang) {
  if (!b.seed.empty()) {
    const std::optional<uint64_t> seed = parse_torch_seed(b.seed);
    if (!seed)
      throw UsageError("--seed " + b.seed + ": not an integer torch.manual_seed accepts; use a whole number "
                                            "from -9223372036854775808 to 18446744073709551615");
    b.options.seed = *seed;
  }
  if (b.threads != kNotGiven && (b.threads < 1 || b.threads > hardware_threads()))
    throw UsageError("--threads " + std::to_string(b.threads) + ": " +
                     (b.threads < 1 ? std::string("the bench runs on at least one thread")
                                    : "more threads than this machine's " + std::to_string(hardware_threads()) +
                                          " hardware threads only take turns") +
                     "; use 1 to " + std::to_string(hardware_threads()));
  if (!b.kernels.empty()) {
    Isa isa;
    if (!isa_from_name(b.kernels, isa))
      throw UsageError("--kernels " + b.kernels + ": not a kernel set; use avx512, avx2, neon or portable");
    b.options.kernels = isa;
  }
  b.options.threads = b.threads == kNotGiven ? hardware_threads() : static_cast<int>(b.threads);
  check_bench_options(b.options);
  if (!b.json.empty() && b.json != "-") check_output_path("--json", b.json);  // before minutes of timing
  const bool show_progress = isatty(STDERR_FILENO) == 1;
  const BenchResult result = run_attention_bench(b.options, [show_progress](const std::string& form, int run, int runs) {
    if (!show_progress) return;
    std::cerr << "\r\x1b[Kbench: " << form << (run == 0 ? " warm-up" : " run " + std::to_string(run) + "/" +
                                                     std::to_string(runs)) << std::flush;
  });
  if (show_progress) std::cerr << "\r\x1b[K" << std::flush;
  const std::string json = bench_json(result, ATTN_TUTOR_VERSION);
  OutputSet outputs;  // the table (or its JSON) and --json FILE: both or neither
  if (!b.json.empty() && b.json != "-") outputs.add_file("--json", b.json, json);
  const Lang lang = b.lang.empty() ? env_lang : (b.lang == "zh" ? Lang::Zh : Lang::En);
  outputs.set_stdout(b.json == "-" ? json : render_bench(result, lang));
  outputs.commit();
  return 0;
}

}  // namespace attn
