// The HTML report's settings table lists the options the lesson takes, each with the
// value it ran with (given, or the lesson's own default, or the value it resolved), never "default".
#include <doctest/doctest.h>

#include <string>

#include "lessons/lesson.h"
#include "run_cli.h"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string settings_of(const std::string& args) {
  const std::string html = run_cli(args + " --html -").out;
  const size_t a = html.find("<table class=\"settings\">"), b = html.find("</table>", a);
  REQUIRE(a != std::string::npos);
  return html.substr(a, b - a);
}

std::string row(const std::string& name, const std::string& value) {
  return "<tr><th>" + name + "</th><td>" + value + "</td></tr>";
}

}  // namespace

TEST_CASE("html settings: the options each lesson takes with the values it used, no 'default' and no others") {
  for (const attn::LessonInfo& l : attn::lessons()) {
    CAPTURE(l.name);
    const std::string t = settings_of(l.name);
    // "default" only as --bernoulli's own choice (default|mkl), never for a value left unsaid.
    std::string others = t;
    const size_t bern = others.find(row("bernoulli", "default"));
    if (bern != std::string::npos) others.erase(bern, row("bernoulli", "default").size());
    CHECK_FALSE(has(others, "<td>default</td>"));
    CHECK_FALSE(has(t, "<td>not set</td>"));
    CHECK_FALSE(has(t, "<th>lang</th>"));
    CHECK_FALSE(has(t, "<th>explain</th>"));
    CHECK(has(t, "<th>seed</th>"));
    CHECK(has(t, "<th>inputs</th>"));
    for (const attn::OptionRow& o : attn::option_table()) {
      if (o.display || o.flag == "--lang" || o.flag == "--explain" || o.flag == "--tokens" || o.flag == "--d-in")
        continue;
      CAPTURE(o.flag);
      CHECK(has(t, "<th>" + o.config_key() + "</th>") == l.takes(o));  // only what it takes
    }
  }
  const std::string softmax = settings_of("softmax");
  CHECK_FALSE(has(softmax, "<th>num_heads</th>"));
  CHECK_FALSE(has(softmax, "<th>dropout</th>"));
  CHECK(has(settings_of("mha"), row("num_heads", "2")));
  CHECK(has(settings_of("mha --num-heads 3 --d-out 6"), row("num_heads", "3")));
  CHECK(has(settings_of("dropout"), row("dropout", "0.5")));
  CHECK(has(settings_of("wrapper"), row("dropout", "0.0")));
  CHECK(has(settings_of("gqa"), row("num_kv_groups", "2")));
  CHECK(has(settings_of("course-mha"), row("num_heads", "3")));
  CHECK(has(settings_of("course-mha"), row("d_model", "3")));
  CHECK(has(settings_of("course-mha --preset post"), row("context_length", "128")));
  CHECK(has(settings_of("course-mha --preset post"), row("d_model", "512")));
  CHECK(has(settings_of("course-mha --preset post"), row("num_heads", "8")));
  CHECK(has(settings_of("d2l-mha"), row("valid_lens", "torch.tensor([3, 2])")));
  CHECK(has(settings_of("d2l-mha"), "torch.ones"));
  CHECK(has(settings_of("d2l-mha --seed 7"), row("seed", "7")));
  CHECK(has(settings_of("mha --tokens 'red green blue'"), row("inputs", "--tokens: red green blue")));
  CHECK(has(settings_of("mha --tokens 'red green blue' --d-in 4"), row("d_in", "4")));
  CHECK(has(settings_of("mha --lang zh"), "书中的"));
  // all: the options of the chapter's lessons, each unsaid one at the chapter's default or "each lesson's own".
  const std::string all = settings_of("all");
  CHECK(has(all, row("num_heads", "2")));
  CHECK(has(all, row("dropout", "each lesson&#39;s own (see its --help)")));
  CHECK_FALSE(has(all, "<th>valid_lens</th>"));  // d2l-mha is not in the chapter
  CHECK_FALSE(has(all, "<th>lang</th>"));
  CHECK(has(settings_of("all --dropout 0.2"), row("dropout", "0.2")));
}
