// bench's forms from the book's bonus notebook (lib/fast/bench_forms.h): each the chapter's
// MultiHeadAttention on every kernel set, at sizes that are not whole tiles; the head-averaged weights
// of need_weights=True against a plain loop; and the report's comparison with the notebook's M3 CPU
// figures, read from their one table (features/bench/bonus_timings.cpp). No timing is asserted.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "features/bench/attention_bench.h"
#include "features/bench/bench_report.h"
#include "features/bench/bonus_report.h"
#include "features/bench/bonus_timings.h"
#include "fast/bench_forms.h"
#include "fast/flash_attention.h"
#include "nn/multihead_attention.h"
#include "run_cli.h"
#include "every_isa.h"

using namespace attn;

namespace {

using Forward = BenchForward;
const std::pair<const char*, Forward> kNewForms[] = {{"einsum", einsum_forward},
                                                     {"sdpa-mask", sdpa_mask_forward},
                                                     {"torch-mha", torch_mha_forward},
                                                     {"torch-mha-weights", torch_mha_weights_forward}};

AttentionShape shape(int64_t batch, int64_t tokens, int64_t d_model, int64_t heads) {
  AttentionShape s;
  s.batch = batch, s.tokens = tokens, s.d_model = d_model, s.heads = heads;
  return s;
}

}  // namespace

TEST_CASE("bench forms: einsum's weights are the transposes of nn.Linear's, as the bonus test copies them") {
  const AttentionShape s = shape(1, 3, 6, 2);
  std::vector<float> x;
  const MhaWeights w = seeded_weights(s, 123, x);
  REQUIRE(w.w_query_t.size() == 36);
  for (int64_t o = 0; o < 6; ++o)
    for (int64_t i = 0; i < 6; ++i) {
      CHECK(w.w_query_t[i * 6 + o] == w.w_query[o * 6 + i]);
      CHECK(w.w_key_t[i * 6 + o] == w.w_key[o * 6 + i]);
      CHECK(w.w_value_t[i * 6 + o] == w.w_value[o * 6 + i]);
    }
}

TEST_CASE("bench forms: each bonus form computes the chapter's MultiHeadAttention, on every kernel set") {
  const AttentionShape s = shape(2, 13, 12, 3);
  std::vector<float> x;
  const MhaWeights w = seeded_weights(s, 123, x);
  Generator gen;
  gen.manual_seed(123);
  const MultiHeadAttention book = MultiHeadAttention::init(gen, 12, 12, 13, 0.0, 3, false);
  const std::vector<float> expected = book.forward(Tensor({2, 13, 12}, x), gen, BernoulliPath::Default).values();
  check_forms_against(kNewForms, w, s, x, expected);
}

TEST_CASE(
    "bench forms: the bonus forms agree with mha at sizes that are not whole tiles, workspaces reused and shared") {
  on_every_isa_and_case(
      {{1, 1, 16, 2}, {2, 49, 30, 3}, {3, 97, 70, 7}, {1, 130, 64, 1}},
      [](const AttentionShape& s, const MhaWeights& w, const std::vector<float>& x) {
        std::vector<float> ref(x.size()), out(x.size());
        auto pool = std::make_shared<std::vector<AlignedFloats>>();
        Workspace m;
        m.share(pool);
        mha_forward(w, s, x.data(), ref.data(), 2, m);
        for (const auto& form : kNewForms) {
          const char* name = form.first;
          CAPTURE(name);
          Workspace ws;
          ws.share(pool);  // the (b, heads, T, T) buffers mha just used
          form.second(w, s, x.data(), out.data(), 2, ws);
          CHECK(max_diff(out, ref) < 1e-5);
          std::fill(out.begin(), out.end(), 0.0f);
          form.second(w, s, x.data(), out.data(), 1, ws);  // reused, on one thread
          CHECK(max_diff(out, ref) < 1e-5);
          // A form's extra memory counts its share of the pool, and the pool holds the scores once.
          CHECK(ws.bytes() >= 2 * sizeof(float) * static_cast<size_t>(s.batch * s.heads * s.tokens * s.tokens));
        }
        CHECK(pool->size() == 2);
      });
}

TEST_CASE("bench forms: need_weights=True's weights are the heads' softmax weights averaged, rows summing to 1") {
  const AttentionShape s = shape(2, 11, 12, 3);
  const int64_t b = 2, T = 11, d = 12, h = 3, hd = 4;
  std::vector<float> x;
  const MhaWeights w = seeded_weights(s, 7, x);
  // The plain computation in double: q = x W_query^T, scores / sqrt(hd), causal softmax, mean over heads.
  auto proj = [&](const std::vector<float>& W, int64_t bi, int64_t t, int64_t o) {
    double acc = 0;
    for (int64_t i = 0; i < d; ++i) acc += double(x[(bi * T + t) * d + i]) * W[o * d + i];
    return acc;
  };
  std::vector<double> expected(b * T * T, 0.0);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi)
      for (int64_t i = 0; i < T; ++i) {
        std::vector<double> e(T, 0.0);
        double sum = 0;
        for (int64_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < hd; ++c)
            dot += proj(w.w_query, bi, i, hi * hd + c) * proj(w.w_key, bi, j, hi * hd + c);
          e[j] = dot / std::sqrt(double(hd));
        }
        double top = e[0];
        for (int64_t j = 0; j <= i; ++j) top = std::max(top, e[j]);
        for (int64_t j = 0; j <= i; ++j) sum += (e[j] = std::exp(e[j] - top));
        for (int64_t j = 0; j <= i; ++j) expected[(bi * T + i) * T + j] += e[j] / sum / h;
      }
  on_every_isa([&] {
    Workspace ws;
    std::vector<float> out(x.size());
    torch_mha_weights_forward(w, s, x.data(), out.data(), 2, ws);
    const float* got = averaged_weights(ws, s);
    for (int64_t row = 0; row < b * T; ++row) {
      double sum = 0;
      for (int64_t j = 0; j < T; ++j) {
        CHECK(std::fabs(got[row * T + j] - expected[row * T + j]) < 1e-6);
        if (j > row % T) CHECK(got[row * T + j] == 0.0f);
        sum += got[row * T + j];
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  });
}

TEST_CASE("bench forms: the notebook's table has its nine rows, the eight CPU figures it printed, row 9 none") {
  const std::vector<BonusRow>& rows = bonus_rows();
  REQUIRE(rows.size() == 9);
  const double m3[] = {179, 166, 190, 196, 110, 99.5, 198, 168};
  for (int i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(rows[i].row == i + 1);
    REQUIRE(rows[i].m3_ms.has_value());
    CHECK(*rows[i].m3_ms == m3[i]);
    CHECK(bonus_row_of(rows[i].form) == &rows[i]);
  }
  CHECK(rows[8].label == "9 FlexAttention");
  CHECK(!rows[8].m3_ms);
  CHECK(bonus_row_of("") == nullptr);
  // Every bench form is a row of the notebook, and every row but FlexAttention is a bench form.
  for (const std::string& name : bench_form_names()) CHECK(bonus_row_of(name) != nullptr);
  CHECK(bench_form_names().size() == 8);
}

TEST_CASE("bench forms: a table leaves out its least kept columns to fit, never the first") {
  const std::vector<TableColumn> cols = {{"form", true, 9}, {"wide column", false, 1}, {"ratio", false, 5}};
  const std::vector<std::vector<std::string>> rows = {{"torch-mha-weights", "123456789012", "1.00"}};
  const std::string all = fit_table(cols, rows, 80);
  CHECK(all.find("wide column") != std::string::npos);
  const std::string narrow = fit_table(cols, rows, 30);
  CHECK(narrow.find("wide column") == std::string::npos);
  CHECK(narrow.find("ratio") != std::string::npos);
  for (const std::string& line : lines_of(narrow)) CHECK(line.size() <= 30);
  const std::string tiny = fit_table(cols, rows, 5);  // cannot fit: the first column stays
  CHECK(tiny.find("torch-mha-weights") != std::string::npos);
  CHECK(tiny.find("ratio") == std::string::npos);
}

TEST_CASE("bench forms: the report names each form's bonus row, the M3 figure and both ratios, from the one table") {
  const CliResult r = run_cli("bench --batch 2 --tokens 19 --d-model 24 --num-heads 3 --repeats 1 --threads 1");
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  const double m3_mha = *bonus_row_of("mha")->m3_ms;
  for (const BonusRow& row : bonus_rows()) {
    CAPTURE(row.label);
    if (!row.m3_ms) continue;
    // The comparison row: form, its bonus row, the M3 time and M3's ratio to the chapter's MHA.
    const size_t at = r.out.find("\n" + row.form + " ");
    REQUIRE(at != std::string::npos);
    const size_t line = r.out.find("\n" + row.form + " ", r.out.find("Against the book's bonus notebook"));
    REQUIRE(line != std::string::npos);
    const std::string text = r.out.substr(line + 1, r.out.find('\n', line + 1) - line - 1);
    CAPTURE(text);
    char m3[32];
    std::snprintf(m3, sizeof m3, " %g ", *row.m3_ms);
    CHECK(text.find(row.label) != std::string::npos);
    CHECK(text.find(m3) != std::string::npos);
    CHECK(text.find(ratio_text(*row.m3_ms / m3_mha)) != std::string::npos);
  }
  check_contains(r.out, {"ours/mha", "M3/mha", "ours ms", "max|diff|", "Row 9, FlexAttention", "mha → einsum (row 4",
                         "fused-qkv → sdpa-mask (row 6", "fused-qkv → torch-mha (row 8", "Ordering", "eight ways",
                         "Apple M3 CPU with PyTorch 2.4.0"});
  // Fits the classic 80 columns: the tables, the bars and the notes.
  for (const std::string& line : lines_of(r.out.substr(r.out.find("\nform"))))
    if (line.rfind("#", 0) == 0 || line.rfind("form", 0) == 0 || line.find("█") != std::string::npos) {
      CAPTURE(line);
      CHECK(line.size() <= 80 + 2 * 40);  // bytes: a █ or ░ is three bytes, one column
    }
  const CliResult narrow =
      run_cli_env("COLUMNS=60", "bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --threads 1");
  REQUIRE(narrow.exit_code == 0);
  CHECK(narrow.out.find("torch-mha-weights") != std::string::npos);
  CHECK(narrow.out.find("M3/mha") != std::string::npos);
  const CliResult zh =
      run_cli("bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --threads 1 --lang zh");
  REQUIRE(zh.exit_code == 0);
  check_contains(zh.out, {"八种写法", "附加材料的行", "本机/mha", "第 9 行 FlexAttention", "2 Ch03_MHA"});
}

TEST_CASE("bench forms: --json has every form with its bonus row, and the notebook's figures") {
  const CliResult r = run_cli("bench --batch 1 --tokens 9 --d-model 16 --num-heads 2 --repeats 1 --json -");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["schema"] == "attn-tutor-bench/1");
  const std::vector<std::string> names = bench_form_names();
  REQUIRE(j["forms"].size() == names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    CAPTURE(names[i]);
    CHECK(j["forms"][i]["name"] == names[i]);
    CHECK(j["forms"][i]["bonus_row"] == bonus_row_of(names[i])->row);
    CHECK(j["forms"][i]["max_abs_diff_vs_mha"].get<double>() <= 1e-5);
  }
  const nlohmann::json& rows = j["bonus_notebook"]["rows"];
  REQUIRE(rows.size() == 9);
  for (size_t i = 0; i < 8; ++i) CHECK(rows[i]["m3_cpu_ms"].get<double>() == *bonus_rows()[i].m3_ms);
  CHECK(rows[8]["m3_cpu_ms"].is_null());
  CHECK(rows[8]["form"].is_null());
  CHECK(j["bonus_notebook"]["source"].get<std::string>().find("Apple M3") != std::string::npos);
}

TEST_CASE("bench forms: the memory check counts the forms' T x T matrices and refuses in one line first") {
  BenchOptions o;
  const double at_1024 = bench_bytes_estimate(o);
  // The materialising forms' (b, heads, T, T) scores and weights are held once, torch-mha-weights' (b, T, T)
  // averages and two (T, T) masks on top.
  const double b = 8, h = 12, T = 1024;
  CHECK(at_1024 >= 4 * (2 * b * h * T * T + b * T * T + 2 * T * T));
  o.shape.tokens = 2048;
  CHECK(bench_bytes_estimate(o) - at_1024 >= 4 * (2 * b * h + b) * (2048.0 * 2048 - T * T));
  expect_usage_error("bench --batch 512 --tokens 8192", "more than half of this machine's");
  expect_usage_error("bench --repeats 40", "8 forms x 41 runs");
}

TEST_CASE("bench forms: --forms times a subset, mha always, in the table's order, and a wrong name is one line") {
  const CliResult r = run_cli(
      "bench --forms torch-mha,einsum,einsum --batch 1 --tokens 10 --d-model 16 --num-heads 2 --repeats 1 --json -");
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j["forms"].size() == 3);
  CHECK(j["forms"][0]["name"] == "mha");
  CHECK(j["forms"][1]["name"] == "einsum");
  CHECK(j["forms"][2]["name"] == "torch-mha");
  CHECK(j["config"]["forms"] == nlohmann::json::array({"mha", "einsum", "torch-mha"}));
  const CliResult t = run_cli("bench --forms flash --batch 1 --tokens 10 --d-model 16 --num-heads 2 --repeats 1");
  REQUIRE(t.exit_code == 0);
  check_contains(t.out, {"\nflash ", "\nmha ", "# fused-qkv → flash.", "5 SDPA is_causal"});
  CHECK(t.out.find("\nwrapper ") == std::string::npos);
  CHECK(t.out.find("Against the wrapper") == std::string::npos);
  CHECK(t.out.find("mha → einsum") == std::string::npos);
  expect_usage_error("bench --forms mha,nope",
                     "--forms mha,nope: \"nope\" is not a form of bench; list some of wrapper, mha");
  expect_usage_error("bench --forms mha,,flash", "an empty name");
  expect_usage_error("bench --forms ''", "--forms");
  CHECK(parse_bench_forms("flash,mha,flash") == std::vector<std::string>{"flash", "mha"});
  // The work checks count only the forms timed: five repeats of mha alone are far inside the limit.
  BenchOptions o;
  o.repeats = 40;
  CHECK(bench_flops_estimate(o) > kMaxBenchFlops);
  o.forms = {"mha"};
  CHECK(bench_flops_estimate(o) < kMaxBenchFlops);
  BenchOptions all;
  CHECK(bench_bytes_estimate(o) < bench_bytes_estimate(all));
}

TEST_CASE("bench forms: the ordering note compares each form's side of mha with the M3's, spread counted as level") {
  BenchResult r;
  // ours/mha: wrapper 1.10 (M3 1.08: slower both), fused-qkv 0.80 (M3 1.14: differs), einsum 1.30 but its
  // range overlaps mha's (level; M3 1.18: differs), flash 0.50 (M3 0.66: faster both).
  auto form = [](const std::string& name, double median, double lo, double hi) {
    FormResult f;
    f.name = name, f.median_ms = median, f.min_ms = lo, f.max_ms = hi;
    return f;
  };
  r.forms = {form("wrapper", 110, 108, 112), form("mha", 100, 99, 101), form("fused-qkv", 80, 79, 81),
             form("flash", 50, 49, 51), form("einsum", 130, 100.5, 140)};
  const std::string text = render_bonus_section(r, Lang::En, 1000);
  CAPTURE(text);
  CHECK(text.find("the same here as on the M3 for wrapper, flash; different for fused-qkv, einsum.") !=
        std::string::npos);
  CHECK(text.find("sdpa-mask (row 6") == std::string::npos);  // not timed: no note
  CHECK(text.find("mha → einsum (row 4") != std::string::npos);
  r.forms = {form("mha", 100, 99, 101), form("flash", 50, 49, 51)};
  CHECK(render_bonus_section(r, Lang::En, 1000).find("every form is on the same side of mha") != std::string::npos);
  CHECK(render_bonus_section(r, Lang::Zh, 1000).find("每种写法相对 mha 的位置") != std::string::npos);
}
