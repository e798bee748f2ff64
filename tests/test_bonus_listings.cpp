// The classes kv-cache, gqa, mla and swa show are the bonus material's as it writes them (no torch needed:
// tools/check_bonus_listings.py runs them in PyTorch): every torch.arange with device=, masked_fill_ where
// the bonus has it, gqa's assert, mla's _reshape_to_heads, and the lines the lesson adds marked "# added".
// And swa's cached multi-token prefill: the forward before the fix gives NaN rows, the shown class the
// uncached output.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/generator.h"
#include "core/ops_shape.h"
#include "lessons/lesson.h"
#include "nn/bonus_attention.h"
#include "run_cli.h"

namespace {

using nlohmann::json;

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// Every `torch.arange(...)` call in `code` (its arguments up to the matching parenthesis, across lines).
std::vector<std::string> arange_calls(const std::string& code) {
  std::vector<std::string> calls;
  const std::string head = "torch.arange(";
  for (size_t at = code.find(head); at != std::string::npos; at = code.find(head, at + 1)) {
    int depth = 0;
    size_t end = at + head.size() - 1;
    for (; end < code.size(); ++end) {
      if (code[end] == '(') ++depth;
      if (code[end] == ')' && --depth == 0) break;
    }
    calls.push_back(code.substr(at, end - at + 1));
  }
  return calls;
}

struct Shown {
  const char* lesson;
  const char* folder;
  const char* cls;
};
const std::vector<Shown> kShown = {{"kv-cache", "kv-cache", "MultiHeadAttention"},
                                   {"gqa", "gqa", "GroupedQueryAttention"},
                                   {"mla", "mla", "MultiHeadLatentAttention"},
                                   {"swa", "swa", "MultiHeadAttentionWithSWA"}};

json lesson_json(const std::string& args) {
  const CliResult r = run_cli(args + " --json -");
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::vector<const json*> named(const json& doc, const std::string& name) {
  std::vector<const json*> out;
  for (const auto& t : doc.at("tensors"))
    if (t.at("name") == name) out.push_back(&t);
  return out;
}

int nan_rows(const json& data) {
  int rows = 0;
  for (const auto& row : data.at(0)) {
    bool any = false;
    for (const auto& v : row) any = any || (v.is_string() && v.get<std::string>() == "nan");
    rows += any;
  }
  return rows;
}

}  // namespace

TEST_CASE("bonus listings: every torch.arange the classes and the step cells call says device=, as the bonus does") {
  for (const Shown& s : kShown) {
    CAPTURE(s.lesson);
    const std::string listing = joined(attn::listing(s.folder, s.cls));
    for (const std::string& call : arange_calls(listing)) {
      CAPTURE(call);
      CHECK(call.find("device=device") != std::string::npos);
    }
    if (std::string(s.lesson) != "kv-cache") {  // kv-cache slices its mask buffer: no arange
      CHECK(arange_calls(listing).size() >= 2);
      CHECK(listing.find("        device = queries.device\n") != std::string::npos);
    }
    for (const char* more : {"", " --seed 7", " --qkv-bias"}) {
      const CliResult r = run_cli(std::string(s.lesson) + more + " --py -");
      REQUIRE(r.exit_code == 0);
      CHECK(r.out.find(listing) != std::string::npos);  // the class as the listing holds it, whole
      for (const std::string& call : arange_calls(r.out)) {
        CAPTURE(call);
        CHECK(call.find("device=device") != std::string::npos);
      }
    }
  }
}

TEST_CASE(
    "bonus listings: masked_fill_ where the bonus has it, gqa's assert and masked_fill, mla's _reshape_to_heads") {
  const std::string kv = joined(attn::listing("kv-cache", "MultiHeadAttention"));
  const std::string gqa = joined(attn::listing("gqa", "GroupedQueryAttention"));
  const std::string mla = joined(attn::listing("mla", "MultiHeadLatentAttention"));
  const std::string swa = joined(attn::listing("swa", "MultiHeadAttentionWithSWA"));
  const std::string before = joined(attn::listing("swa", "MultiHeadAttentionWithSWABeforeFix"));
  for (const std::string* in_place : {&kv, &mla, &swa, &before}) {
    CHECK(in_place->find("        attn_scores.masked_fill_(mask_bool, -torch.inf)\n") != std::string::npos);
    CHECK(in_place->find(".masked_fill(") == std::string::npos);
  }
  CHECK(gqa.find("        attn_scores = attn_scores.masked_fill(mask, -torch.inf)\n") != std::string::npos);
  CHECK(gqa.find("masked_fill_") == std::string::npos);
  CHECK(gqa.find("        assert keys.shape[-1] == self.head_dim\n") != std::string::npos);
  CHECK(gqa.find("            keys_base, values_base = keys_new, values_new\n") != std::string::npos);
  CHECK(mla.find("    @staticmethod\n    def _reshape_to_heads(x, num_heads, head_dim):\n") != std::string::npos);
  for (const char* use : {"queries_all", "keys_all", "values_all"})
    CHECK(mla.find(std::string("self._reshape_to_heads(") + use + ", num_heads, head_dim)") != std::string::npos);
  CHECK(mla.find("        attn_scores = torch.matmul(queries, keys.transpose(-2, -1))\n") != std::string::npos);
  CHECK(swa.find(
            "        W = num_tokens_K + 1 if self.sliding_window_size is None else int(self.sliding_window_size)\n") !=
        std::string::npos);
  CHECK(swa.find("attn_keep = min(keys.size(1), self.sliding_window_size + num_tokens - 1)") != std::string::npos);
  CHECK(before.find("attn_keep") == std::string::npos);  // the forward before the fix
  CHECK(before.find("                if self.cache_k.size(1) > self.sliding_window_size:\n") != std::string::npos);
  // The methods the bonus classes define, each once.
  for (const std::string* cls : {&kv, &gqa, &mla, &swa}) {
    CHECK(cls->find("    def __init__(") != std::string::npos);
    CHECK(cls->find("    def forward(self, x, use_cache=False):\n") != std::string::npos);
    CHECK(cls->find("    def reset_cache(self):\n") != std::string::npos);
  }
}

TEST_CASE("bonus listings: only the lines the lesson adds are marked # added, and each is marked") {
  const std::string kv = joined(attn::listing("kv-cache", "MultiHeadAttention"));
  const size_t kept = kv.find("        self.mask_bool, self.attn_weights = mask_bool, attn_weights  # added: ");
  CHECK(kept != std::string::npos);
  CHECK(kv.find("# added", kv.find('\n', kept)) == std::string::npos);  // one added line
  for (const char* folder_cls : {"gqa", "mla"}) {
    const std::string cls = joined(attn::listing(
        folder_cls, std::string(folder_cls) == "gqa" ? "GroupedQueryAttention" : "MultiHeadLatentAttention"));
    CHECK(cls.find("# added") == std::string::npos);
  }
  CHECK(joined(attn::listing("swa", "MultiHeadAttentionWithSWA")).find("# added") == std::string::npos);
  const std::string before = joined(attn::listing("swa", "MultiHeadAttentionWithSWABeforeFix"));
  CHECK(before.rfind("class MultiHeadAttentionWithSWABeforeFix(MultiHeadAttentionWithSWA):  # added: ", 0) == 0);
  // The kv-cache step cells read what the added line keeps.
  const CliResult r = run_cli("kv-cache --py -");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("mask_bool, attn_weights = mha.mask_bool, mha.attn_weights") != std::string::npos);
}

TEST_CASE("bonus step cells: mla's forward steps keep the class's names, latent_new and latent_total") {
  const CliResult r = run_cli("mla --py -");
  REQUIRE(r.exit_code == 0);
  // The class's names; the exports keep `latent` (a learner's export of it still checks), bound by a line marked
  // as added.
  check_contains(r.out,
                 {"\nlatent_new = mla.W_DKV(x)", "\nlatent_total = latent_new", "\nkeys_all = mla.W_UK(latent_total)",
                  "\nvalues_all = mla.W_UV(latent_total)", "\nlatent = latent_total  # added"});
  CHECK(r.out.find("\nlatent = mla.W_DKV(x)") == std::string::npos);
  check_contains(run_cli("mla --json -").out, {"\"latent_new\"", "\"latent_total\"", "\"latent\""});
}

TEST_CASE("swa: a cached multi-token prefill, NaN rows before the fix, the uncached output after") {
  struct Case {
    std::string args;
    int tokens, window;
  };
  for (const Case& c : std::vector<Case>{{"swa", 6, 3},
                                         {"swa --window 1", 6, 1},
                                         {"swa --window 2 --seed 9", 6, 2},
                                         {"swa --window 6", 6, 6},
                                         {"swa --window 9 --qkv-bias", 6, 9},
                                         {"swa --tokens 'a b c d e f g h i' --window 4", 9, 4}}) {
    CAPTURE(c.args);
    const json doc = lesson_json(c.args);
    const auto before = named(doc, "before"), rows = named(doc, "torch.isnan(before).any(dim=-1)"),
               prefill = named(doc, "prefill"), full = named(doc, "full"),
               diff = named(doc, "(prefill - full).abs().max()");
    REQUIRE(before.size() == 1);
    REQUIRE(rows.size() == 1);
    REQUIRE(prefill.size() == 1);
    REQUIRE(diff.size() == 1);
    REQUIRE(full.size() == 1);
    // queries 0 .. T-W-1 see no key once the cache is trimmed to the last W first
    const int want_nan = std::max(0, c.tokens - c.window);
    CHECK(nan_rows(before[0]->at("data")) == want_nan);
    for (int i = 0; i < c.tokens; ++i) CHECK(rows[0]->at("data").at(0).at(i).get<bool>() == (i < want_nan));
    CHECK(nan_rows(prefill[0]->at("data")) == 0);
    CHECK(prefill[0]->at("data") == full[0]->at("data"));  // the shown class: the uncached forward, exactly
    CHECK(diff[0]->at("data").get<double>() == 0.0);
    // the last query sees the same W keys in both (its softmax sums over fewer -inf: equal within 1e-6)
    for (int j = 0; j < 4; ++j)
      CHECK(std::fabs(before[0]->at("data").at(0).at(c.tokens - 1).at(j).get<double>() -
                      full[0]->at("data").at(0).at(c.tokens - 1).at(j).get<double>()) < 1e-6);
  }
  const CliResult wide = run_cli("swa --window 9");
  CHECK(wide.out.find("so the old code gives no NaN") != std::string::npos);
  const CliResult zh = run_cli("swa --lang zh");
  CHECK(zh.out.find("softmax 得到 NaN") != std::string::npos);
}

TEST_CASE("swa module: the forward before the fix differs only for a multi-token chunk longer than the window") {
  using namespace attn;
  Generator gen;
  gen.manual_seed(123);
  std::vector<float> xs;
  for (int i = 0; i < 6 * 8; ++i) xs.push_back(std::sin(0.7f * static_cast<float>(i)));
  const Tensor x({1, 6, 8}, xs);
  auto make = [&](bool before) {
    Generator g;
    g.manual_seed(123);
    SlidingWindowAttention m = SlidingWindowAttention::init(g, 8, 8, 0.0, 2, false, 4);
    m.variant.swa_trim_before_attend = before;
    return m;
  };
  Generator none;
  SlidingWindowAttention fixed = make(false), old = make(true);
  const Tensor full = fixed.forward(x, false, none, BernoulliPath::Default);
  const Tensor a = fixed.forward(x, true, none, BernoulliPath::Default),
               b = old.forward(x, true, none, BernoulliPath::Default);
  CHECK(a.values() == full.values());
  CHECK(fixed.cache_k->size(1) == 4);
  CHECK(old.cache_k->size(1) == 4);
  const std::vector<float> bv = b.values();
  int nans = 0;
  for (float v : bv) nans += std::isnan(v);
  CHECK(nans == 2 * 8);  // queries 0 and 1: no key among the last 4
  // one token at a time, the old forward is right: a single query needs only the last W keys
  fixed.reset_cache();
  old.reset_cache();
  for (int i = 0; i < 6; ++i) {
    const Tensor t = narrow(x, 1, i, 1);
    CHECK(fixed.forward(t, true, none, BernoulliPath::Default).values() ==
          old.forward(t, true, none, BernoulliPath::Default).values());
  }
}
