#include "kv_memory_command.h"

#include <iostream>

#include "core/atomic_file.h"
#include "core/usage_error.h"
#include "language.h"

namespace attn {

void add_kv_memory_options(CLI::App* sub, KvMemoryCli& k) {
  KvMemoryConfig& c = k.config;
  sub->add_option("--emb-dim", c.emb_dim, tr("Embedding size emb_dim (default 4096)", "嵌入维度 emb_dim（默认 4096）"))
      ->type_name("N");
  sub->add_option("--num-heads", c.num_heads, tr("Attention heads n_heads (default 32)", "注意力头数 n_heads（默认 32）"))
      ->type_name("N");
  sub->add_option("--num-layers", c.num_layers, tr("Transformer layers n_layers (default 32)", "Transformer 层数 n_layers（默认 32）"))
      ->type_name("N");
  sub->add_option("--context-length", c.context_length,
                  tr("Tokens in the cache, context_length (default 32768; the scripts' default is 1024)",
                     "缓存中的词元数 context_length（默认 32768；脚本的默认值为 1024）"))
      ->type_name("N");
  sub->add_option("--num-kv-groups", c.num_kv_groups,
                  tr("n_kv_groups as the estimators read it: query heads per key/value head, n_kv_heads = n_heads // "
                     "n_kv_groups (default 4)",
                     "估算脚本理解的 n_kv_groups：每个键/值头对应的查询头数，n_kv_heads = n_heads // n_kv_groups（默认 4）"))
      ->type_name("G");
  sub->add_option("--batch-size", c.batch_size, tr("Sequences per batch (default 1)", "每批的序列数（默认 1）"))->type_name("N");
  sub->add_option("--dtype", c.dtype, tr("fp32, bf16, fp16, fp8 or int8 (default bf16, 2 bytes like the scripts' fp16)",
                                         "fp32、bf16、fp16、fp8 或 int8（默认 bf16，与脚本默认的 fp16 一样为 2 字节）"))
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8"}));
  sub->add_option("--window", k.window, tr("Sliding window W: adds MHA + SWA and GQA + SWA", "滑动窗口 W：加上 MHA + SWA 与 GQA + SWA"))
      ->type_name("W");
  sub->add_option("--swa-ratio", c.swa_ratio,
                  tr("A:B, A sliding-window layers for every B full layers (default 1:0, every layer; Gemma 3: 5:1)",
                     "A:B，每 B 个完整注意力层对应 A 个滑动窗口层（默认 1:0，全部层；Gemma 3 为 5:1）"))
      ->type_name("A:B");
  sub->add_option("--latent-dim", k.latent_dim, tr("MLA latent size per token: adds MLA", "MLA 每个词元的潜在维度：加上 MLA"))
      ->type_name("D");
  sub->add_option("--json", k.json, tr("Write the figures as JSON to FILE (atomically); '-' writes it to stdout instead "
                                       "of the text",
                                       "把数字以 JSON 写入 FILE（原子写入）；'-' 表示写到标准输出，代替文本"))
      ->type_name("FILE|-");
  sub->add_option("--lang", k.lang, tr("Language of the notes: en or zh", "注释的语言：en 或 zh"))
      ->check(CLI::IsMember({"en", "zh"}));
}

int run_kv_memory(KvMemoryCli& k, Lang env_lang) {
  if (k.window != kNotGiven) k.config.window = k.window;
  if (k.latent_dim != kNotGiven) k.config.latent_dim = k.latent_dim;
  const KvMemoryEstimate e = estimate_kv_memory(k.config);
  const std::string json = kv_memory_json(e, ATTN_TUTOR_VERSION);
  if (k.json == "-") {
    std::cout << json;
    return 0;
  }
  if (!k.json.empty()) {
    const std::string error = write_file_atomically(k.json, json);
    if (!error.empty()) throw UsageError("--json " + error + "; choose a path in a writable directory");
  }
  const Lang lang = k.lang.empty() ? env_lang : (k.lang == "zh" ? Lang::Zh : Lang::En);
  std::cout << render_kv_memory(e, lang);
  return 0;
}

}  // namespace attn
