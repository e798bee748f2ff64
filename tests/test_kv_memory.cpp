// `attn-tutor kv-memory`: the bonus material's KV-cache estimators. The figures the bonus READMEs print
// for their example configurations (ch04/04_gqa, 05_mla, 06_swa), and the byte counts behind them worked
// out by hand from the estimators' formulas (head_dim = ceil(emb_dim / n_heads), per layer batch x tokens
// x head_dim x n_kv_heads x 2 x bytes, GQA n_kv_heads = n_heads // n_kv_groups, SWA layers by blocks).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/usage_error.h"
#include "features/kv_memory/kv_memory.h"
#include "run_cli.h"

using namespace attn;

TEST_CASE("kv-memory: the GQA README's Llama-2-7B-like example, 17.18 GB against 4.29 GB") {
  KvMemoryConfig c;  // emb_dim 4096, 32 heads, 32 layers, context 32768, batch 1, bf16, n_kv_groups 4
  const KvMemoryEstimate e = estimate_kv_memory(c);
  CHECK(e.head_dim == 128);
  CHECK(e.gqa_kv_heads == 8);
  CHECK(e.totals.mha == int64_t{2} * 32768 * 32 * 128 * 2 * 32);  // K and V, 2 bytes, 32 layers
  CHECK(e.totals.mha == 17179869184);
  CHECK(e.totals.gqa == 4294967296);
  CHECK_FALSE(e.totals.swa.has_value());
  CHECK_FALSE(e.totals.mla.has_value());
  CHECK(gigabytes(e.totals.mha) == "17.18 GB");
  CHECK(gigabytes(e.totals.gqa) == "4.29 GB");
}

TEST_CASE("kv-memory: the SWA README's example, 5:1 over 32 layers is 27 SWA and 5 full") {
  KvMemoryConfig c;
  c.window = 1024;
  c.swa_ratio = "5:1";
  const KvMemoryEstimate e = estimate_kv_memory(c);
  CHECK(e.swa_layers == 27);
  CHECK(e.full_layers == 5);
  CHECK(e.effective_window == 1024);
  // 27 layers of 1024 tokens and 5 of 32768, 16384 bytes per token and layer (MHA), a quarter of it (GQA).
  CHECK(*e.totals.swa == 27 * int64_t{1024} * 16384 + 5 * int64_t{32768} * 16384);
  CHECK(*e.totals.swa == 3137339392);
  CHECK(*e.totals.gqa_swa == 784334848);
  CHECK(gigabytes(*e.totals.swa) == "3.14 GB");
  CHECK(gigabytes(*e.totals.gqa_swa) == "0.78 GB");
}

TEST_CASE("kv-memory: the MLA README's example, head_dim ceil(2048 / 24) = 86") {
  KvMemoryConfig c;
  c.emb_dim = 2048;
  c.num_heads = 24;
  c.num_layers = 48;
  c.context_length = 8192;
  c.latent_dim = 1024;
  const KvMemoryEstimate e = estimate_kv_memory(c);
  CHECK(e.head_dim == 86);
  CHECK(e.gqa_kv_heads == 6);
  CHECK(e.totals.mha == int64_t{8192} * 86 * 24 * 2 * 2 * 48);
  CHECK(e.totals.mha == 3246391296);
  CHECK(e.totals.gqa == 811597824);
  CHECK(*e.totals.mla == int64_t{8192} * 48 * 1024 * 2);
  CHECK(*e.totals.mla == 805306368);
  CHECK(gigabytes(e.totals.mha) == "3.25 GB");
  CHECK(gigabytes(e.totals.gqa) == "0.81 GB");
  CHECK(gigabytes(*e.totals.mla) == "0.81 GB");
  CHECK(grouped_2f(static_cast<double>(e.totals.mha) / static_cast<double>(*e.totals.mla)) == "4.03");
  CHECK(grouped_2f((1.0 - static_cast<double>(*e.totals.mla) / static_cast<double>(e.totals.mha)) * 100.0) == "75.19");
}

TEST_CASE("kv-memory: layers split by the ratio in blocks, sliding-window layers first in the rest") {
  auto split = [](int64_t layers, const std::string& ratio) {
    KvMemoryConfig c;
    c.num_layers = layers;
    c.window = 16;
    c.swa_ratio = ratio;
    const KvMemoryEstimate e = estimate_kv_memory(c);
    return std::make_pair(e.swa_layers, e.full_layers);
  };
  CHECK(split(12, "5:1") == std::make_pair<int64_t, int64_t>(10, 2));
  CHECK(split(7, "5:1") == std::make_pair<int64_t, int64_t>(6, 1));
  CHECK(split(12, "1:5") == std::make_pair<int64_t, int64_t>(2, 10));
  CHECK(split(13, "1:1") == std::make_pair<int64_t, int64_t>(7, 6));
  CHECK(split(32, "1:0") == std::make_pair<int64_t, int64_t>(32, 0));
  CHECK(split(32, "0:1") == std::make_pair<int64_t, int64_t>(0, 32));
  // A window longer than the context caches the context, as min(window, context_length).
  KvMemoryConfig c;
  c.context_length = 100;
  c.window = 4096;
  const KvMemoryEstimate e = estimate_kv_memory(c);
  CHECK(*e.totals.swa == e.totals.mha);
}

TEST_CASE("kv-memory: bad settings are one usage error each") {
  KvMemoryConfig c;
  c.num_kv_groups = 5;
  CHECK_THROWS_AS(estimate_kv_memory(c), UsageError);
  c = KvMemoryConfig();
  c.window = 8;
  for (const char* ratio : {"5", "0:0", "a:1", "5:-1", ":1"}) {
    c.swa_ratio = ratio;
    CHECK_THROWS_AS(estimate_kv_memory(c), UsageError);
  }
  c = KvMemoryConfig();
  c.dtype = "fp64";
  CHECK_THROWS_AS(estimate_kv_memory(c), UsageError);
  CHECK(grouped_2f(1234567.891) == "1,234,567.89");
  CHECK(grouped_2f(999.995) == "1,000.00");
}

TEST_CASE("kv-memory: the command prints the READMEs' lines and --json - the byte counts") {
  const CliResult gqa = run_cli("kv-memory --lang en");
  CHECK(gqa.exit_code == 0);
  check_contains(gqa.out, {"MHA total KV cache    :     17.18 GB", "GQA total KV cache    :      4.29 GB",
                           "Ratio (MHA / GQA)     : 4.00x", "Savings (GQA vs MHA)  : 75.00%", "GQA n_kv_heads   : 8"});
  const CliResult swa = run_cli("kv-memory --window 1024 --swa-ratio 5:1");
  check_contains(swa.out, {"swa_ratio        : 5:1 -> 27 SWA, 5 Full layers", "MHA + SWA (ratio 5:1) :      3.14 GB",
                           "GQA + SWA (ratio 5:1) :      0.78 GB"});
  const CliResult mla = run_cli(
      "kv-memory --context-length 8192 --emb-dim 2048 --num-heads 24 --num-layers 48 "
      "--num-kv-groups 4 --batch-size 1 --dtype bf16 --latent-dim 1024");
  check_contains(
      mla.out, {"head_dim         : 86", "MHA total KV cache    :      3.25 GB", "MLA total KV cache    :      0.81 GB",
                "Ratio (MHA / MLA)     : 4.03x", "Savings (MLA vs MHA)  : 75.19%"});

  const CliResult json = run_cli("kv-memory --window 1024 --swa-ratio 5:1 --latent-dim 512 --dtype fp32 --json -");
  REQUIRE(json.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc.at("schema") == "attn-tutor-kv-memory/1");
  CHECK(doc.at("mha_bytes").get<int64_t>() == int64_t{32768} * 128 * 32 * 2 * 4 * 32);
  CHECK(doc.at("gqa_bytes").get<int64_t>() == int64_t{32768} * 128 * 8 * 2 * 4 * 32);
  CHECK(doc.at("swa_bytes").get<int64_t>() == (27 * int64_t{1024} + 5 * int64_t{32768}) * 128 * 32 * 2 * 4);
  CHECK(doc.at("gqa_swa_bytes").get<int64_t>() == (27 * int64_t{1024} + 5 * int64_t{32768}) * 128 * 8 * 2 * 4);
  CHECK(doc.at("mla_bytes").get<int64_t>() == int64_t{32768} * 32 * 512 * 4);
  CHECK(doc.at("by_context_length").size() == 10);
  const nlohmann::json plain = nlohmann::json::parse(run_cli("kv-memory --json -").out);
  CHECK(plain.at("swa_bytes").is_null());
  CHECK(plain.at("mla_bytes").is_null());
  CHECK(plain.at("gqa_bytes").is_number_integer());
}

TEST_CASE("kv-memory: errors are one line on stderr and exit 2") {
  for (const char* args :
       {"--num-kv-groups 5", "--swa-ratio 5 --window 8", "--dtype fp64", "--window 0", "--context-length 0",
        "--batch-size 1000000 --context-length 1000000000 --num-layers 60000"}) {
    CAPTURE(args);
    const CliResult r = run_cli(std::string("kv-memory ") + args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("attn-tutor: error: ", 0) == 0);
    CHECK(r.err.find('\n') == r.err.size() - 1);
    CHECK(r.err.find("; ") != std::string::npos);
  }
  CHECK(run_cli("kv-memory --lang zh").out.find("估算") != std::string::npos);
}
