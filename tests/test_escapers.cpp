// The one escaping function per format: py_str (Python's repr() of a str, surrogate escapes for bytes
// that are not UTF-8), py_comment (a comment line nothing can end), html_escape, and label_text (how
// pictures, headings and notes name a token). The hostile command lines: tests/test_py_export.cpp.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/py_repr.h"
#include "notebook/attention_matrix.h"
#include "notebook/html_escape.h"
#include "py_literal.h"
#include "run_cli.h"

using attn::py_str;

namespace {

std::vector<std::string> hostile_strings() {
  return {"",
          "journey",
          "it's",
          "say \"hi\"",
          "'\"",
          "a\\b",
          "\"\"\"",
          "'''",
          "x\"if(__import__(\"pathlib\").Path(\"PWNED\").touch())else\"x",
          "</script><script>alert(1)</script>",
          std::string("a\0b", 3),
          "\x01\x07\x1b[2J\x7f",
          "line\nbreak\r\ttab",
          "\xc2\x85\xc2\xa0\xc2\xad",                   // NEL, NBSP, soft hyphen
          "\xe2\x80\xae\xe2\x80\x8b\xef\xbb\xbf",       // RTL override, zero-width space, BOM
          "\xe2\x80\xa8\xe2\x80\xa9",                   // line and paragraph separators
          "\xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80",  // 你好 😀
          "\xff\xfe",                                   // not UTF-8
          "\xed\xa0\x80",                               // a surrogate's encoding
          "\xe2\x82",                                   // a cut sequence
          "\xc0\xaf",                                   // an overlong '/'
          "\xf4\x90\x80\x80",                           // past U+10FFFF
          std::string(10000, 'x')};
}

std::string hex(const std::string& s) {
  std::string out;
  char b[4];
  for (unsigned char c : s) {
    std::snprintf(b, sizeof b, "%02x", c);
    out += b;
  }
  return out;
}

void append_utf8(std::string& out, uint32_t c) { attn_test::append_utf8(out, c); }

}  // namespace

TEST_CASE("py_str: Python's repr() of the text, quotes chosen as repr chooses them") {
  CHECK(py_str("journey") == "'journey'");
  CHECK(py_str("") == "''");
  CHECK(py_str("it's") == "\"it's\"");
  CHECK(py_str("say \"hi\"") == "'say \"hi\"'");
  CHECK(py_str("'\"") == "'\\'\"'");
  CHECK(py_str("a\\b\n\r\t") == "'a\\\\b\\n\\r\\t'");
  CHECK(py_str(std::string("\0\x1b\x7f", 3)) == "'\\x00\\x1b\\x7f'");
  CHECK(py_str("\xc2\xa0\xc3\xa9") == "'\\xa0\xc3\xa9'");           // NBSP escaped, é kept
  CHECK(py_str("\xe2\x80\xae\xe2\x80\x8b") == "'\\u202e\\u200b'");  // bidi and zero-width escaped
  CHECK(py_str("\xf0\x9f\x98\x80\xe4\xbd\xa0") == "'\xf0\x9f\x98\x80\xe4\xbd\xa0'");
  CHECK(py_str("\xf3\xa0\x80\x81") == "'\\U000e0001'");  // a tag character (Cf)
  CHECK(py_str("a\xff") == "'a\\udcff'");                // surrogateescape
  CHECK(py_str("\xed\xa0\x80") == "'\\udced\\udca0\\udc80'");
}

TEST_CASE("py_str: every literal reads back to the bytes given (hostile strings and random bytes)") {
  std::vector<std::string> all = hostile_strings();
  std::mt19937 rng(20);
  for (int i = 0; i < 3000; ++i) {
    std::string s(rng() % 24, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 4 == 0 ? rng() % 0x20 : rng() % 256);
    all.push_back(s);
  }
  for (const std::string& s : all) {
    const std::string lit = py_str(s);
    CAPTURE(hex(s));
    CAPTURE(lit);
    const auto back = attn_test::read_py_literal(lit);
    REQUIRE(back.has_value());
    CHECK(*back == s);
    CHECK(lit.find('\n') == std::string::npos);
  }
  // The reader refuses what is not such a literal, so the round trip above can fail.
  CHECK(!attn_test::read_py_literal("'a'b'").has_value());
  CHECK(!attn_test::read_py_literal("'a\\q'").has_value());
  CHECK(!attn_test::read_py_literal("\"a\nb\"").has_value());
  CHECK(attn_test::read_py_literal("'\\udcff'") == std::string("\xff"));
}

TEST_CASE("py_str: the same text as python3's repr() for every code point and the hostile strings") {
  REQUIRE(std::system("command -v python3 >/dev/null 2>&1") == 0);
  std::vector<std::string> all = hostile_strings();
  for (uint32_t first = 0; first < 0x110000; first += 512) {  // every code point, 512 to a string
    std::string s;
    for (uint32_t c = first; c < first + 512; ++c)
      if (c < 0xD800 || c > 0xDFFF) append_utf8(s, c);
    all.push_back(s);
  }
  const std::string dir = temp_dir();
  std::string lines;
  for (const std::string& s : all) lines += hex(s) + "\n";
  const std::string in = write_file(dir, "strings.hex", lines), out = dir + "/repr.txt";
  const std::string script =
      "import sys\n"
      "with open(sys.argv[2], 'w', encoding='utf-8', errors='surrogatepass') as out:\n"
      "    for line in open(sys.argv[1]):\n"
      "        out.write(repr(bytes.fromhex(line.strip()).decode('utf-8', 'surrogateescape')) + '\\n')\n";
  const std::string py = write_file(dir, "repr.py", script);
  REQUIRE(std::system(("python3 " + py + " " + in + " " + out).c_str()) == 0);
  std::istringstream expected(read_text_file(out));
  std::string want;
  size_t n = 0, same = 0;
  for (const std::string& s : all) {
    REQUIRE(std::getline(expected, want));
    ++n;
    const std::string got = py_str(s);
    if (got == want) {
      ++same;
      continue;
    }
    CAPTURE(hex(s).substr(0, 200));
    CHECK(got.substr(0, 300) == want.substr(0, 300));
    CHECK(got == want);
  }
  CHECK(n > 2000);
  CHECK(same == n);
}

TEST_CASE("py_comment: nothing in a comment ends it or reorders the line, printable text stays") {
  CHECK(attn::py_comment("Your (x^1) \\ \"q\" 'x' \xe4\xbd\xa0\xe5\xa5\xbd\xe3\x80\x80") ==
        "Your (x^1) \\ \"q\" 'x' \xe4\xbd\xa0\xe5\xa5\xbd\xe3\x80\x80");  // U+3000 kept
  CHECK(attn::py_comment("a\nb\rc") == "a\\nb\\rc");
  CHECK(attn::py_comment("\xe2\x80\xa8\xe2\x80\xae\xe2\x80\x8b") == "\\u2028\\u202e\\u200b");
  CHECK(attn::py_comment(std::string("\0\xff", 2)) == "\\x00\\udcff");
  CHECK(attn::py_comment("\xc2\x85") == "\\x85");
}

TEST_CASE("py_splits_back: split() gives the tokens back unless one is empty or holds white space") {
  CHECK(attn::py_splits_back({"Your", "journey", "it's", "\xe2\x80\x8b"}));  // zero-width space is no space
  CHECK(!attn::py_splits_back({"a b", "c"}));
  CHECK(!attn::py_splits_back({"", "c"}));
  CHECK(
      !attn::py_splits_back({"a\xe3\x80\x80"
                             "b",
                             "c"}));  // U+3000
  CHECK(
      !attn::py_splits_back({"a\xc2\xa0"
                             "b",
                             "c"}));                 // NBSP
  CHECK(!attn::py_splits_back({"a\xc2\x85", "c"}));  // NEL
  CHECK(!attn::py_splits_back({"a\x1f", "c"}));      // unit separator: str.isspace() in Python
}

TEST_CASE("html_escape: markup, quotes, controls, bad bytes and bidi controls cannot act") {
  CHECK(attn::html_escape("</script><b a=\"x\" b='y'>&amp;") ==
        "&lt;/script&gt;&lt;b a=&quot;x&quot; b=&#39;y&#39;&gt;&amp;amp;");
  CHECK(attn::html_escape("a\nb\tc") == "a\nb\tc");
  CHECK(attn::html_escape(std::string("\0\x1b\x7f\xc2\x85", 5)) == "\ufffd\ufffd\ufffd\ufffd");
  CHECK(attn::html_escape("\xff"
                          "a\xed\xa0\x80") ==
        "\ufffd"
        "a\ufffd\ufffd\ufffd");
  CHECK(attn::html_escape("\xe2\x80\xae"
                          "abc\xe2\x81\xa7") ==
        "\ufffd"
        "abc\ufffd");
  CHECK(attn::html_escape("\xe4\xbd\xa0\xe2\x80\x8b") == "\xe4\xbd\xa0\xe2\x80\x8b");  // text and zero-width kept
}

TEST_CASE("label_text: tokens in pictures and headings are short and escaped, the full one is data") {
  CHECK(attn::label_text("journey") == "journey");
  const std::string long_token(64 * 1024, 'y');
  const std::string label = attn::label_text(long_token);
  CHECK(label.size() < 64);
  CHECK(label.find("\u2026") != std::string::npos);
  CHECK(attn::label_text("a\nb") == "a\\nb");
  CHECK(attn::label_text("\xe2\x80\xae"
                         "evil") == "\\u202eevil");
  CHECK(attn::label_text("\xe4\xbd\xa0\xe5\xa5\xbd") == "\xe4\xbd\xa0\xe5\xa5\xbd");
  const std::vector<std::string> labels = attn::axis_labels(2, {long_token, "b"});
  CHECK(labels[0] == label);
  CHECK(labels[1] == "b");
  CHECK(attn::axis_labels(2, {"only one"}) == std::vector<std::string>{"0", "1"});
}
