#include "kv_memory_command.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "output_file.h"
#include "core/usage_error.h"
#include "language.h"
#include "terminal.h"
#include "strict_integer.h"
#include "lessons/ui_text.h"

namespace attn {

void add_kv_memory_options(CLI::App* sub, KvMemoryCli& k) {
  KvMemoryConfig& c = k.config;
  // A whole number: its text key is app.kv-memory.NAME for --NAME.
  const auto count = [sub](const std::string& flag, int64_t& field, const char* value_name) {
    sub->add_option(flag, field, tr("app.kv-memory." + flag.substr(2)))
        ->type_name(value_name)
        ->transform(strict_integer_check());
  };
  count("--emb-dim", c.emb_dim, "N");
  count("--num-heads", c.num_heads, "N");
  count("--num-layers", c.num_layers, "N");
  count("--context-length", c.context_length, "N");
  count("--num-kv-groups", c.num_kv_groups, "G");
  count("--batch-size", c.batch_size, "N");
  sub->add_option("--dtype", c.dtype, tr("app.kv-memory.dtype"))
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8"}));
  count("--window", k.window, "W");
  sub->add_option("--swa-ratio", c.swa_ratio, tr("app.kv-memory.swa-ratio"))->type_name("A:B");
  count("--latent-dim", k.latent_dim, "D");
  sub->add_option("--plot", c.plot, tr("app.kv-memory.plot"))->check(CLI::IsMember({"methods", "gqa", "mla", "swa"}));
  sub->add_option("--json", k.json, tr("app.kv-memory.json"))->type_name("FILE|-");
  sub->add_option("--html", k.html, tr("app.kv-memory.html"))->type_name("FILE|-")->each([&k](const std::string&) {
    k.html_given = true;
  });
  sub->add_option("--lang", k.lang, tr("app.kv-memory.lang"))->check(CLI::IsMember({"en", "zh"}));
}

int run_kv_memory(KvMemoryCli& k, Lang env_lang) {
  if (k.html_given && k.html.empty()) throw UsageError(empty_path_message("--html", true));
  if (k.html_given && k.html == "-" && k.json == "-") throw UsageError(tr("err.two-stdout", {"--json", "--html"}));
  if (k.window != kNotGiven) k.config.window = k.window;
  if (k.latent_dim != kNotGiven) k.config.latent_dim = k.latent_dim;
  const KvMemoryEstimate e = estimate_kv_memory(k.config);
  const std::string json = kv_memory_json(e, ATTN_TUTOR_VERSION);
  OutputSet outputs;  // the table (or its JSON or HTML), --json FILE and --html FILE: all or none
  if (!k.json.empty() && k.json != "-") outputs.add_file("--json", k.json, json);
  const Lang lang = k.lang.empty() ? env_lang : (k.lang == "zh" ? Lang::Zh : Lang::En);
  if (k.html_given && k.html != "-") outputs.add_file("--html", k.html, kv_memory_html(e, lang));
  outputs.set_stdout(k.json == "-" ? json
                     : k.html_given && k.html == "-"
                         ? kv_memory_html(e, lang)
                         : render_kv_memory(e, lang, std::min<size_t>(output_columns(), 1000)));
  outputs.commit();
  return 0;
}

}  // namespace attn
