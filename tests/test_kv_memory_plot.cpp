// kv-memory's text fits the terminal ($COLUMNS,
// default 80) with its notes wrapped; the plot uses the full width with axes, units and a legend, and
// --plot draws the bonus plot scripts' curves (GQA groups, MLA latent sizes, SWA ratios); --swa-ratio
// takes spaces around its numbers as the script's int() does.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "notebook/text_width.h"
#include "run_cli.h"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t widest(const std::string& text) {
  size_t w = 0;
  for (const std::string& line : lines_of(text)) w = std::max(w, attn::visible_width(line));
  return w;
}

// The plot's x axis line ("   +-+----...") .
std::string axis_line(const std::string& text) {
  for (const std::string& line : lines_of(text))
    if (line.find("+-") != std::string::npos && line.find_first_not_of(" +-^") == std::string::npos) return line;
  return "";
}

}  // namespace

TEST_CASE("kv-memory text: every line fits $COLUMNS (default 80), the notes wrapped, in both languages") {
  for (const char* extra : {"", " --window 1024 --swa-ratio 5:1 --latent-dim 512", " --plot gqa", " --plot mla",
                            " --plot swa --window 4096"}) {
    for (const char* lang : {"en", "zh"}) {
      CAPTURE(extra);
      CAPTURE(lang);
      const CliResult r = run_cli(std::string("kv-memory --lang ") + lang + extra);
      REQUIRE(r.exit_code == 0);
      CHECK(widest(r.out) <= 80);
      CHECK(widest(r.out) >= 78);  // the plot takes the whole width
    }
  }
  // The confusion note: several "# " lines, not one of 345 columns.
  const std::string text = run_cli("kv-memory --lang en").out;
  CHECK(has(text, "# ⚠ Common confusion: the estimator scripts read n_kv_groups as query heads per\n# key/value head"));
  // $COLUMNS: wider and narrower terminals.
  const std::string wide = run_cli_env("COLUMNS=120", "kv-memory").out;
  const std::string narrow = run_cli_env("COLUMNS=60", "kv-memory").out;
  const std::string tiny = run_cli_env("COLUMNS=30", "kv-memory").out;
  const std::string bad = run_cli_env("COLUMNS=not-a-number", "kv-memory").out;
  CHECK(widest(wide) <= 120);
  CHECK(widest(wide) >= 118);
  CHECK(widest(narrow) <= 60);
  CHECK(axis_line(wide).size() == 120);
  CHECK(axis_line(narrow).size() == 60);
  CHECK(axis_line(tiny).size() == 40);  // the plot's least width
  CHECK(bad == text);                   // an unusable $COLUMNS: the default 80
}

TEST_CASE("kv-memory plot: axes with units, context lengths under the x axis, a legend, the current length marked") {
  const std::string text = run_cli("kv-memory --lang en").out;
  CHECK(has(text, "Total KV cache against the context length (y: GB, linear from 0; x: tokens, log\nscale):\nGB\n"));
  CHECK(has(text, "\n80 +\n"));  // y ticks: 0, 20, 40, 60, 80 GB (the largest total is 68.72 GB)
  CHECK(has(text, "\n20 +"));
  CHECK(has(text, "\n 0 +"));
  CHECK(has(text, "    256     512     1K       2K      4K      8K      16K      32K     64K   128K\n"));
  CHECK(has(text, "context length (tokens, log scale: each step doubles it)"));
  CHECK(has(text, "  M MHA   G GQA   * several at one point   ^ your context length, 32768\n"));
  const std::string axis = axis_line(text);
  CHECK(axis.size() == 80);
  CHECK(std::count(axis.begin(), axis.end(), '^') == 1);
  // MHA at 128K (68.72 GB) is the top point at the right end; GQA at 128K (17.18 GB) lower.
  const std::vector<std::string> lines = lines_of(text);
  bool mha_top = false;
  for (const std::string& line : lines)
    if (line.size() == 80 && line.back() == 'M' && line.find_first_of("Gg") == std::string::npos) mha_top = true;
  CHECK(mha_top);
  // A context length off the doubling grid gets its own point and label.
  CHECK(has(run_cli("kv-memory --context-length 5000").out, "5000"));
}

TEST_CASE("kv-memory --plot: the bonus plot scripts' curves") {
  // GQA: MHA and n_kv_groups 4, 8, 12, 24 where they divide n_heads (the script's 24 heads: all four).
  const std::string gqa = run_cli("kv-memory --plot gqa --num-heads 24 --emb-dim 2048 --num-layers 48").out;
  for (const char* label : {"M MHA", "GQA n_kv_groups=4 (4.0x)", "GQA n_kv_groups=8 (8.0x)",
                            "GQA n_kv_groups=12 (12.0x)", "GQA n_kv_groups=24 (24.0x)"})
    CHECK(has(gqa, label));
  CHECK_FALSE(has(gqa, "left out"));
  const std::string gqa32 = run_cli("kv-memory --plot gqa").out;
  CHECK(has(gqa32, "# n_kv_groups 12, 24 left out: the estimator needs n_kv_groups to divide n_heads\n# = 32.\n"));
  CHECK(has(run_cli("kv-memory --plot gqa --num-kv-groups 2").out, "GQA n_kv_groups=2 (2.0x)"));
  // MLA: latent sizes 1024, 512, 256, 64 and --latent-dim, compression against MHA (the script's setting: 24 heads).
  const std::string mla =
      run_cli("kv-memory --plot mla --num-heads 24 --emb-dim 2048 --num-layers 48 --latent-dim 300").out;
  for (const char* label : {"MLA latent_dim=1024", "MLA latent_dim=512", "MLA latent_dim=300", "MLA latent_dim=256",
                            "MLA latent_dim=64 (64.5x)"})
    CHECK(has(mla, label));
  // SWA: several ratios on MHA, and GQA + SWA at --swa-ratio.
  const std::string swa = run_cli("kv-memory --plot swa --window 1024 --swa-ratio 2:1").out;
  for (const char* label : {"G GQA", "MHA+SWA 2:1 W=1024", "MHA+SWA 1:0 W=1024", "MHA+SWA 5:1 W=1024",
                            "MHA+SWA 1:1 W=1024", "GQA+SWA 2:1 W=1024"})
    CHECK(has(swa, label));
  // The default draws what it drew: one curve per estimator shown.
  const std::string methods = run_cli("kv-memory --window 1024 --latent-dim 512").out;
  CHECK(has(methods, "  M MHA   G GQA   S MHA+SWA   W GQA+SWA   L MLA"));
  CHECK(run_cli("kv-memory --plot methods --window 1024 --latent-dim 512").out == methods);
  // The HTML chart draws the same curves.
  const std::string html = run_cli("kv-memory --plot mla --html -").out;
  CHECK(has(html, "data-series=\"MLA latent_dim=64 (128.0x)\""));
  CHECK(has(html, "data-series=\"MHA\""));
  // Errors: one line, exit 2.
  const CliResult no_window = run_cli("kv-memory --plot swa");
  CHECK(no_window.exit_code == 2);
  CHECK(no_window.err ==
        "attn-tutor: error: --plot swa: needs a sliding window; add --window W (e.g. --window 1024, Gemma 3's)\n");
  const CliResult bad = run_cli("kv-memory --plot heads");
  CHECK(bad.exit_code == 2);
  CHECK(has(bad.err, "--plot heads"));
}

TEST_CASE("kv-memory --swa-ratio takes spaces around its numbers, as the estimator's int() does") {
  const std::string plain = run_cli("kv-memory --window 1024 --swa-ratio 5:1 --json -").out;
  for (const char* ratio : {"' 5:1'", "'5:1 '", "' 5 : 1 '"}) {
    CAPTURE(ratio);
    const CliResult r = run_cli(std::string("kv-memory --window 1024 --swa-ratio ") + ratio + " --json -");
    CHECK(r.exit_code == 0);
    CHECK(r.out == plain);  // the same figures, the ratio written "5:1"
  }
  CHECK(has(run_cli("kv-memory --window 1024 --swa-ratio ' 5:1'").out, "MHA + SWA (ratio 5:1) :      3.14 GB"));
  for (const char* ratio : {"'5 1:1'", "' :1'", "'5:'", "'-5:1'", "' '", "'0 : 0'"}) {
    CAPTURE(ratio);
    const CliResult r = run_cli(std::string("kv-memory --window 1024 --swa-ratio ") + ratio);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "not a ratio"));
  }
}

TEST_CASE("kv-memory --html without a file: the message names a file to write, not --help") {
  expect_error_text("kv-memory --html",
                    "attn-tutor: error: --html: needs where to write; --html kv-memory.html writes the file "
                    "kv-memory.html, --html - writes to standard output\n");
  expect_usage_error("kv-memory --lang zh --html", "写入文件 kv-memory.html");
  CHECK(has(run_cli("softmax --json").err, "--json softmax.json writes the file softmax.json"));
}

TEST_CASE("kv-memory --plot is listed by lessons --json from the parser, with its choices and default") {
  const nlohmann::json doc = nlohmann::json::parse(run_cli("lessons --json --lang en").out);
  bool found = false;
  for (const nlohmann::json& c : doc.at("commands"))
    if (c.at("name") == "kv-memory")
      for (const nlohmann::json& o : c.at("options"))
        if (o.at("flag") == "--plot") {
          found = true;
          CHECK(o.at("kind") == "choice");
          CHECK(o.at("choices").get<std::vector<std::string>>() ==
                std::vector<std::string>{"methods", "gqa", "mla", "swa"});
          CHECK(o.at("default") == "methods");
        }
  CHECK(found);
}
