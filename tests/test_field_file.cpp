// The "field = value" files compiled in (lessons/options.txt, lessons/NAME/docs.txt), read by one reader.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "lessons/field_file.h"

TEST_CASE("field file: sections, fields and comments, each line numbered") {
  const auto lines = attn::field_lines("# a comment\nsection = 3.5.1\n\n[--seed]\nkind = text\nen = a = b\n", "f.txt");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].number == 2);
  CHECK(lines[0].section.empty());
  CHECK(lines[0].field == "section");
  CHECK(lines[0].value == "3.5.1");
  CHECK(lines[1].section == "--seed");
  CHECK(lines[2].field == "en");
  CHECK(lines[2].value == "a = b");  // split at the first " = " only
  CHECK(lines[2].number == 6);
}

TEST_CASE("field file: a line that is neither a field nor a section, or a file not compiled in, is refused") {
  CHECK_THROWS_WITH_AS(attn::field_lines("kind = text\nno equals sign\n", "f.txt"),
                       "f.txt:2: expected [section] or 'field = value'", std::logic_error);
  CHECK_THROWS_WITH_AS(attn::embedded_text("nowhere/docs.txt"), "lessons/nowhere/docs.txt is not compiled in",
                       std::logic_error);
  CHECK(attn::embedded_text("mha/docs.txt").find("readme = ") != std::string::npos);
}
