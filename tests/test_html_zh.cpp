// --html under --lang zh: the page says lang="zh", its captions and headings are Chinese, and its
// Chinese renders in headless Chromium with real glyphs, not tofu boxes (the CJK font installed by
// tools/install-deps.sh). The tofu check is shown to catch tofu: with fonts limited to DejaVu (no CJK
// font), the same probe renders every character as the same hollow box, and the check says so.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "chromium_render.h"
#include "run_cli.h"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The first `n` distinct CJK ideographs (U+4E00..U+9FFF) of `text`, each as UTF-8.
std::vector<std::string> cjk_characters(const std::string& text, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i + 2 < text.size() && out.size() < n; ++i) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    if ((b0 & 0xF0) != 0xE0) continue;
    const unsigned cp = (b0 & 0x0Fu) << 12 | (static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6 |
                        (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
    const std::string ch = text.substr(i, 3);
    if (cp >= 0x4E00 && cp <= 0x9FFF && std::find(out.begin(), out.end(), ch) == out.end()) out.push_back(ch);
    i += 2;
  }
  return out;
}

constexpr int kCell = 80;

// The page's own head (its style, its lang) with `chars` in a row of 80-pixel cells at 64px.
std::string probe_page(const std::string& html, const std::vector<std::string>& chars) {
  std::string out = html.substr(0, html.find("<body>")) +
                    "<body><style>body{margin:0} div.g{position:absolute;top:8px;width:80px;height:80px;"
                    "font-size:64px;line-height:80px;text-align:center;color:#000}</style>\n";
  for (size_t i = 0; i < chars.size(); ++i)
    out += "<div class=\"g\" style=\"left:" + std::to_string(i * kCell) + "px\">" + chars[i] + "</div>\n";
  return out + "</body></html>\n";
}

// Each cell's ink (dark pixels) as a bitmap.
std::vector<std::vector<bool>> glyphs(const RgbImage& shot, size_t count) {
  std::vector<std::vector<bool>> out;
  for (size_t c = 0; c < count; ++c) {
    std::vector<bool> bits;
    for (int y = 0; y < 96 && y < shot.height; ++y)
      for (int x = static_cast<int>(c) * kCell; x < static_cast<int>(c + 1) * kCell && x < shot.width; ++x) {
        const uint8_t* p = shot.rgb.data() + (static_cast<size_t>(y) * shot.width + x) * 3;
        bits.push_back(p[0] + p[1] + p[2] < 3 * 128);
      }
    out.push_back(bits);
  }
  return out;
}

size_t ink(const std::vector<bool>& g) { return static_cast<size_t>(std::count(g.begin(), g.end(), true)); }

// How many different glyphs: two bitmaps differing in fewer than 1% of their pixels are the same.
size_t distinct_glyphs(const std::vector<std::vector<bool>>& gs) {
  std::vector<const std::vector<bool>*> kinds;
  for (const auto& g : gs) {
    bool seen = false;
    for (const auto* k : kinds) {
      size_t diff = 0;
      for (size_t i = 0; i < g.size() && i < k->size(); ++i) diff += g[i] != (*k)[i];
      seen = seen || diff * 100 < g.size();
    }
    if (!seen) kinds.push_back(&g);
  }
  return kinds.size();
}

}  // namespace

TEST_CASE("html report in Chinese: lang zh, Chinese captions and settings, no English prose") {
  const std::string path = temp_dir() + "/mha-zh.html";
  const CliResult r = run_cli("mha --lang zh --color never --html " + path);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_text_file(path);
  CHECK(has(html, "<html lang=\"zh\">"));
  CHECK(has(html, "a @ a.transpose(2, 3) 的热力图"));
  CHECK(has(html, "<strong>目录</strong>"));
  CHECK(has(html, "<th>设置项</th><th>值</th>"));
  CHECK(has(html, "attn-tutor mha --lang zh --html "));
  for (const char* english : {"Heatmap of", "heatmap of", "rows are queries", "Options:", "Sections", "masked (never",
                              "min\u2013max", "fixed 0"}) {
    CAPTURE(english);
    CHECK_FALSE(has(html, english));
  }
  const std::string en_path = temp_dir() + "/mha-en.html";
  REQUIRE(run_cli("mha --color never --html " + en_path).exit_code == 0);
  const std::string en = read_text_file(en_path);
  CHECK(has(en, "<html lang=\"en\">"));
  CHECK(has(en, "heatmap of a @ a.transpose(2, 3): rows are queries, columns keys"));
}

TEST_CASE("html report in Chinese renders its Chinese in chromium: real glyphs, not tofu") {
  REQUIRE_MESSAGE(chromium_installed(), "chromium is not installed: run sh tools/install-deps.sh (make test does)");
  const std::string dir = temp_dir();
  const std::string path = dir + "/mha-zh.html";
  REQUIRE(run_cli("mha --lang zh --color never --html " + path).exit_code == 0);
  const std::string html = read_text_file(path);

  const Render page = render_in_chromium(path, 1200, 3000);
  REQUIRE(page.status == 0);
  CHECK(has(page.dom, "lang=\"zh\""));
  CHECK(has(page.dom, "目录"));

  const std::vector<std::string> chars = cjk_characters(html.substr(html.find("<body>")), 8);
  REQUIRE(chars.size() == 8);
  const std::string probe = dir + "/probe.html";
  std::ofstream(probe) << probe_page(html, chars);

  const Render real = render_in_chromium(probe, 800, 600);
  REQUIRE(real.status == 0);
  REQUIRE_MESSAGE(real.shot.error.empty(), real.shot.error);
  const auto real_glyphs = glyphs(real.shot, chars.size());
  for (const auto& g : real_glyphs) CHECK(ink(g) > 100);
  CHECK_MESSAGE(distinct_glyphs(real_glyphs) >= 7,
                "Chinese renders as tofu: install fonts-noto-cjk (sh tools/install-deps.sh)");

  // The check catches tofu: with DejaVu only (no CJK font), all eight are the same hollow box.
  const std::string conf = dir + "/fonts.conf";
  std::ofstream(conf) << "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n<fontconfig><dir>"
                         "/usr/share/fonts/truetype/dejavu</dir><cachedir>" +
                             dir + "/fc-cache</cachedir></fontconfig>\n";
  const Render tofu = render_in_chromium(probe, 800, 600, "FONTCONFIG_FILE='" + conf + "' ");
  REQUIRE(tofu.status == 0);
  REQUIRE_MESSAGE(tofu.shot.error.empty(), tofu.shot.error);
  const auto tofu_glyphs = glyphs(tofu.shot, chars.size());
  CHECK(ink(tofu_glyphs.front()) > 50);
  CHECK(distinct_glyphs(tofu_glyphs) <= 2);
}
