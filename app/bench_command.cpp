#include "bench_command.h"

#include <unistd.h>

#include <iostream>
#include <optional>

#include "output_file.h"
#include "features/bench/bench_report.h"
#include "core/generator.h"
#include "language.h"
#include "strict_integer.h"
#include "core/usage_error.h"
#include "terminal.h"

namespace attn {

void add_bench_options(CLI::App* sub, BenchCli& b) {
  AttentionShape& s = b.options.shape;
  sub->add_option("--batch", s.batch, tr("app.bench.batch"))->type_name("N")->transform(strict_integer_check());
  sub->add_option("--tokens", s.tokens, tr("app.bench.tokens"))->type_name("N")->transform(strict_integer_check());
  sub->add_option("--d-model", s.d_model, tr("app.bench.d-model"))->type_name("N")->transform(strict_integer_check());
  sub->add_option("--num-heads", s.heads, tr("app.bench.num-heads"))->type_name("N")->transform(strict_integer_check());
  sub->add_option("--threads", b.threads, tr("app.bench.threads", {std::to_string(hardware_threads())}))
      ->type_name("N")
      ->transform(strict_integer_check());
  sub->add_option("--repeats", b.options.repeats, tr("app.bench.repeats"))
      ->type_name("N")
      ->transform(strict_integer_check());
  sub->add_option("--seed", b.seed, tr("app.bench.seed"))->type_name("N");
  sub->add_option("--json", b.json, tr("app.bench.json"))->type_name("FILE|-");
  sub->add_option("--kernels", b.kernels, tr("app.bench.kernels", {std::string(isa_name(best_isa()))}))
      ->type_name("ISA");
  b.forms_option = sub->add_option("--forms", b.forms, tr("app.bench.forms", {bench_forms_text()}))->type_name("LIST");
  sub->add_option("--lang", b.lang, tr("app.bench.lang"))->check(CLI::IsMember({"en", "zh"}));
}

int run_bench(BenchCli& b, Lang env_lang) {
  if (!b.seed.empty()) {
    const std::optional<uint64_t> seed = parse_torch_seed(b.seed);
    if (!seed) throw UsageError(tr("err.seed", {"--seed " + b.seed}));
    b.options.seed = *seed;
  }
  if (b.threads != kNotGiven && (b.threads < 1 || b.threads > hardware_threads()))
    throw UsageError(tr(b.threads < 1 ? "err.threads-none" : "err.threads-many",
                        {std::to_string(b.threads), std::to_string(hardware_threads())}));
  if (!b.kernels.empty()) {
    Isa isa;
    if (!isa_from_name(b.kernels, isa)) throw UsageError(tr("err.kernels", {b.kernels}));
    b.options.kernels = isa;
  }
  if (b.forms_option && b.forms_option->count() > 0) b.options.forms = parse_bench_forms(b.forms);
  b.options.threads = b.threads == kNotGiven ? hardware_threads() : static_cast<int>(b.threads);
  check_bench_options(b.options);
  if (!b.json.empty() && b.json != "-") check_output_path("--json", b.json);  // before minutes of timing
  const bool show_progress = is_terminal(STDERR_FILENO);
  const BenchResult result =
      run_attention_bench(b.options, [show_progress](const std::string& form, int run, int runs) {
        if (!show_progress) return;
        std::cerr << "\r\x1b[Kbench: " << form
                  << (run == 0 ? " warm-up" : " run " + std::to_string(run) + "/" + std::to_string(runs)) << std::flush;
      });
  if (show_progress) std::cerr << "\r\x1b[K" << std::flush;
  const std::string json = bench_json(result, ATTN_TUTOR_VERSION);
  OutputSet outputs;  // the table (or its JSON) and --json FILE: both or neither
  if (!b.json.empty() && b.json != "-") outputs.add_file("--json", b.json, json);
  const Lang lang = b.lang.empty() ? env_lang : (b.lang == "zh" ? Lang::Zh : Lang::En);
  outputs.set_stdout(b.json == "-" ? json : render_bench(result, lang, output_columns()));
  outputs.commit();
  return 0;
}

}  // namespace attn
