// The enum name tables (lib/core/named.h) and the three that use them: every value has its one name and
// every name its value, in both directions, and a word no row has is refused with the value left as it was.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "core/dtype.h"
#include "core/named.h"
#include "fast/cpu_features.h"
#include "lessons/options.h"

using namespace attn;

namespace {

enum class Colour { Red, Green, Blue };
constexpr EnumName<Colour> kColours[] = {{Colour::Red, "red"}, {Colour::Green, "green"}, {Colour::Blue, "blue"}};

}  // namespace

TEST_CASE("named: the name of a value, the value of a name, and a word no row has") {
  CHECK(std::string(enum_name(kColours, Colour::Green)) == "green");
  CHECK(std::string(enum_name(kColours, Colour::Blue)) == "blue");
  static_assert(enum_name(kColours, Colour::Red)[0] == 'r', "name_of is a constant expression");
  Colour c = Colour::Red;
  CHECK(enum_value(kColours, "blue", c));
  CHECK(c == Colour::Blue);
  for (const char* word : {"", "Blue", "blue ", "purple", "re"}) {
    CAPTURE(word);
    CHECK(!enum_value(kColours, word, c));
    CHECK(c == Colour::Blue);
  }
  CHECK(std::string(enum_name(kColours, static_cast<Colour>(7))) == "red");  // no row: the first row's
}

TEST_CASE("named: dtypes, option kinds and instruction sets each have distinct names, as printed before") {
  CHECK(std::string(dtype_name(DType::Float32)) == "float32");
  CHECK(std::string(dtype_name(DType::Float64)) == "float64");
  CHECK(std::string(dtype_name(DType::Int64)) == "int64");
  CHECK(std::string(dtype_name(DType::Int32)) == "int32");
  CHECK(std::string(dtype_name(DType::Bool)) == "bool");
  std::set<std::string> kinds;
  for (OptionKind k : {OptionKind::Flag, OptionKind::Integer, OptionKind::Number, OptionKind::Choice, OptionKind::Text})
    kinds.insert(kind_name(k));
  CHECK(kinds == std::set<std::string>{"flag", "integer", "number", "choice", "text"});
  const std::pair<const char*, Isa> words[] = {
      {"avx512", Isa::Avx512}, {"avx2", Isa::Avx2Fma}, {"neon", Isa::Neon}, {"portable", Isa::Portable}};
  const char* names[] = {"AVX-512", "AVX2+FMA", "NEON", "portable C++"};
  for (int i = 0; i < 4; ++i) {
    Isa isa = Isa::Portable;
    CHECK(isa_from_name(words[i].first, isa));
    CHECK(isa == words[i].second);
    CHECK(std::string(isa_name(isa)) == names[i]);
  }
  Isa isa = Isa::Neon;
  CHECK(!isa_from_name("AVX-512", isa));  // the report's name is not the option's word
  CHECK(isa == Isa::Neon);
  CHECK(supported_isas().back() == Isa::Portable);  // widest first, portable last
}
