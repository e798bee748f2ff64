// attn-tutor bench: the fast GEMM against a plain triple loop, every bench form against the
// chapter's own MultiHeadAttention (lib/multihead_attention.h) on the same seeded weights, flash
// at awkward sizes, and the command's table, JSON and errors at a tiny size. No timing is asserted.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "features/bench/attention_bench.h"
#include "features/bench/bench_report.h"
#include "fast/bench_attention.h"
#include "fast/fast_gemm.h"
#include "fast/flash_attention.h"
#include "fast/fma_peak.h"
#include "nn/multihead_attention.h"
#include "run_cli.h"
#include "every_isa.h"

using namespace attn;

namespace {

using Forward = BenchForward;
const std::pair<const char*, Forward> kForms[] = {
    {"wrapper", wrapper_forward}, {"mha", mha_forward}, {"fused-qkv", fused_qkv_forward}, {"flash", flash_forward}};

}  // namespace

TEST_CASE("bench: the fast GEMM equals a plain triple loop, edges, layouts, bias and strides included") {
  // Edges of the 6x16 and 8x32 tiles, of the 120/128-row and 256/384-deep blocks, the in-place
  // narrow path, k = 0.
  const std::vector<GemmCase> cases = {{1, 1, 1},     {5, 15, 3},      {6, 16, 8},    {7, 17, 385},
                                       {121, 33, 70}, {250, 129, 400}, {13, 64, 768}, {300, 130, 5},
                                       {4, 20, 0},    {8, 32, 257},    {9, 33, 256},  {129, 96, 64}};
  GemmSweep sweep;
  sweep.layouts = {BLayout::KxN, BLayout::NxK}, sweep.biases = {false, true};
  sweep.pad_a = 3, sweep.pad_b = 2, sweep.pad_c = 5, sweep.tolerance = 1e-4;
  check_gemm_against_loop(cases, sweep, 7);
}

TEST_CASE("bench: every form computes the chapter's MultiHeadAttention with the same seeded weights") {
  AttentionShape s;
  s.batch = 2, s.tokens = 13, s.d_model = 12, s.heads = 3;
  std::vector<float> x;
  const MhaWeights w = seeded_weights(s, 123, x);
  // torch.manual_seed(123); MultiHeadAttention(12, 12, 13, 0.0, num_heads=3); torch.rand(2, 13, 12)
  Generator gen;
  gen.manual_seed(123);
  const MultiHeadAttention book = MultiHeadAttention::init(gen, 12, 12, 13, 0.0, 3, false);
  CHECK(book.W_query.weight.values() == w.w_query);
  CHECK(book.out_proj.bias->values() == w.b_out);
  CHECK(rand_values(gen, 2 * 13 * 12) == x);
  const std::vector<float> expected = book.forward(Tensor({2, 13, 12}, x), gen, BernoulliPath::Default).values();
  check_forms_against(kForms, w, s, x, expected);
}

TEST_CASE("bench: flash agrees with mha at sizes that are not whole tiles") {
  // One token; one key tile and a bit; head_dim 10 and 48 (not multiples of 16), 1 head, 7 heads.
  on_every_isa_and_case({{1, 1, 16, 2}, {2, 49, 30, 3}, {1, 100, 48, 1}, {3, 97, 70, 7}, {1, 144, 64, 4}},
                        [](const AttentionShape& s, const MhaWeights& w, const std::vector<float>& x) {
                          std::vector<float> ref(x.size()), out(x.size());
                          Workspace a, b;
                          mha_forward(w, s, x.data(), ref.data(), 2, a);
                          flash_forward(w, s, x.data(), out.data(), 2, b);
                          CHECK(max_diff(out, ref) < 1e-5);
                          flash_forward(w, s, x.data(), out.data(), 2, b);  // a reused workspace gives the same result
                          CHECK(max_diff(out, ref) < 1e-5);
                        });
}

TEST_CASE("bench: flash computes only the tiles on or below the diagonal") {
  const Isa native = active_isa();
  force_isa(Isa::Portable);  // tiles of 48 (as AVX2 and NEON)
  CHECK(flash_tiles(48).computed == 1);
  CHECK(flash_tiles(48).total == 1);
  CHECK(flash_tiles(96).computed == 3);
  CHECK(flash_tiles(1024).computed == 22 * 23 / 2);  // 22 tiles of 48 cover 1024
  CHECK(flash_tiles(1024).total == 22 * 22);
  CHECK(flash_tiles(1024).query_tile == 48);
  if (isa_supported(Isa::Avx512)) {
    force_isa(Isa::Avx512);  // tiles of 64
    CHECK(flash_tiles(1024).computed == 16 * 17 / 2);
    CHECK(flash_tiles(1024).total == 16 * 16);
    CHECK(flash_tiles(1024).key_tile == 64);
  }
  force_isa(native);
}

TEST_CASE("bench: the FMA loop measures a positive peak per thread, on every kernel set") {
  on_every_isa([] {
    FmaPeak peak(2);
    peak.measure(2, 2.0);
    CHECK(peak.trials() == 2);
    CHECK(peak.gflops() > 0);
    CHECK(peak.isa() == active_isa());
    CHECK(peak.loop_text().find(isa_name(active_isa())) != std::string::npos);
    // The report words the loop from its facts, in English as the JSON's peak_loop says it.
    const FmaPeak::Loop loop = peak.loop();
    CHECK(loop.isa == active_isa());
    CHECK(peak_loop_words(loop.chains, loop.lanes, isa_name(loop.isa), Lang::En) == peak.loop_text());
    const std::string zh = peak_loop_words(loop.chains, loop.lanes, isa_name(loop.isa), Lang::Zh);
    CHECK(zh != peak.loop_text());
    CHECK(zh.find(std::to_string(loop.chains)) != std::string::npos);
  });
}

TEST_CASE("bench: the kernels are the widest this CPU has, and portable C++ is always there") {
  const std::vector<Isa> isas = supported_isas();
  REQUIRE(!isas.empty());
  CHECK(isas.back() == Isa::Portable);
  CHECK(best_isa() == isas.front());
  CHECK(active_isa() == best_isa());
#if defined(__aarch64__)
  CHECK(best_isa() == Isa::Neon);
#endif
#if defined(__x86_64__)
  CHECK(isa_supported(Isa::Avx512) == (__builtin_cpu_supports("avx512f") != 0));
  CHECK(!isa_supported(Isa::Neon));
#endif
  Isa isa = Isa::Portable;
  CHECK(isa_from_name("avx512", isa));
  CHECK(isa == Isa::Avx512);
  CHECK(!isa_from_name("sse", isa));
  const std::string summary = kernel_summary();
  CHECK(summary.find(isa_name(best_isa())) != std::string::npos);
  CHECK(summary.find("threads: ") != std::string::npos);
}

TEST_CASE("bench: --version and the table say which kernels run") {
  const CliResult v = run_cli("--version");
  REQUIRE(v.exit_code == 0);
  CHECK(v.out.find(std::string("bench kernels: ") + isa_name(best_isa())) != std::string::npos);
  const CliResult r = run_cli("bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --threads 1");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(std::string("kernels: ") + isa_name(best_isa())) != std::string::npos);
  const CliResult p = run_cli("bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --kernels portable");
  REQUIRE(p.exit_code == 0);
  check_contains(p.out,
                 {"kernels: portable C++ (GEMM micro-kernel 6×16, flash tiles of 48 queries × 48 keys)",
                  "a multiply and an add on 96 independent floats (portable C++)", "peak is the portable loop's"});
  if (isa_supported(Isa::Avx512)) {
    const CliResult a = run_cli("bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --kernels avx512");
    REQUIRE(a.exit_code == 0);
    check_contains(a.out, {"16 independent 16-lane FMAs (AVX-512)",
                           "GEMM micro-kernel 6×64, flash tiles of 64 queries × 64 keys"});
  }
}

TEST_CASE("bench: the table at a tiny size") {
  const CliResult r = run_cli("bench --batch 2 --tokens 40 --d-model 48 --num-heads 4 --threads 2 --repeats 2");
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string& out = r.out;
  check_contains(out, {"batch 2, 40 tokens, d_model 48, 4 heads of 12; 2 threads", "8·b·T·d² + 4·b·T²·d",
                       "FP32 peak on 2 threads"});
  for (const char* column :
       {"form", "median ms", "min–max ms", "GFLOP/s", "of peak", "extra memory", "max|diff| vs mha"})
    CHECK(out.find(column) != std::string::npos);
  for (const char* form : {"\nwrapper ", "\nmha ", "\nfused-qkv ", "\nflash "}) {
    CAPTURE(form);
    const size_t row = out.find(form);
    REQUIRE(row != std::string::npos);
    CHECK(out.find(form, row + 1) != std::string::npos);  // its row and its bar
  }
  CHECK(out.find("\u2588") != std::string::npos);
  for (const char* step : {"# wrapper → mha.", "# mha is §3.6.2's", "# mha → fused-qkv.", "# fused-qkv → flash."})
    CHECK(out.find(step) != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("bench: --json parses, has every column, and every form agrees with mha within 1e-4") {
  const CliResult r = run_cli("bench --batch 2 --tokens 40 --d-model 48 --num-heads 4 --repeats 2 --json -");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["schema"] == "attn-tutor-bench/1");
  CHECK(j["config"]["batch"] == 2);
  CHECK(j["config"]["head_dim"] == 12);
  CHECK(j["flops"]["total"].get<double>() == doctest::Approx(8.0 * 2 * 40 * 48 * 48 + 4.0 * 2 * 40 * 40 * 48));
  CHECK(j["machine"]["peak_gflops"].get<double>() > 0);
  REQUIRE(j["forms"].size() == 8);  // the chapter's four first, then the bonus notebook's
  const char* names[] = {"wrapper", "mha", "fused-qkv", "flash"};
  for (size_t i = 0; i < 4; ++i) {
    const nlohmann::json& f = j["forms"][i];
    CAPTURE(names[i]);
    CHECK(f["name"] == names[i]);
    CHECK(f["times_ms"].size() >= 2);  // --repeats 2 is the fewest samples; each form also runs 0.2 s
    CHECK(f["runs"].get<int64_t>() >= static_cast<int64_t>(f["times_ms"].size()));
    CHECK(f["timed_ms"].get<double>() >= 200);
    CHECK(f["min_ms"].get<double>() <= f["median_ms"].get<double>());
    CHECK(f["median_ms"].get<double>() <= f["max_ms"].get<double>());
    CHECK(f["gflops"].get<double>() > 0);
    CHECK(f["peak_fraction"].get<double>() > 0);
    CHECK(f["extra_bytes"].get<double>() > 0);
    CHECK(f["max_abs_diff_vs_mha"].get<double>() <= 1e-4);
  }
  CHECK(j["forms"][1]["max_abs_diff_vs_mha"] == 0);
}

TEST_CASE("bench: --json FILE writes the file and still prints the table, also with --threads 1 and --lang zh") {
  const std::string dir = temp_dir();
  const CliResult r = run_cli("bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --threads 1 --json " +
                              dir + "/bench.json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("1 threads") != std::string::npos);
  CHECK(nlohmann::json::parse(read_text_file(dir + "/bench.json"))["config"]["threads"] == 1);
  const CliResult zh = run_cli("bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --lang zh");
  REQUIRE(zh.exit_code == 0);
  CHECK(zh.out.find("八种写法") != std::string::npos);
}

TEST_CASE("bench: bad sizes are one line on stderr and exit 2") {
  expect_usage_error("bench --d-model 50 --num-heads 4", "not divisible by --num-heads 4");
  expect_usage_error("bench --batch 0", "--batch 0");
  expect_usage_error("bench --tokens 0", "--tokens 0");
  expect_usage_error("bench --tokens -5", "--tokens -5");
  expect_usage_error("bench --d-model 0", "--d-model 0");
  expect_usage_error("bench --num-heads 0", "--num-heads 0");
  expect_usage_error("bench --threads 0", "--threads 0");
  expect_usage_error("bench --repeats 0", "--repeats 0");
  expect_usage_error("bench --tokens many", "--tokens");
  expect_usage_error("bench --seed x", "--seed x");
  expect_usage_error("bench --kernels sse", "--kernels sse: not a kernel set");
#if defined(__x86_64__)
  expect_usage_error("bench --kernels neon", "cannot run the NEON kernels");
#else
  expect_usage_error("bench --kernels avx2", "cannot run the AVX2+FMA kernels");
#endif
  expect_usage_error("bench --batch 4096 --tokens 65536", "more than half of this machine's");
  expect_usage_error("bench --json /nonexistent-dir/x.json --batch 1 --tokens 4 --d-model 8 --num-heads 2 --repeats 1",
                     "--json");
}
