// Tensor printing against the 113 torch 1.13 vectors of docs/spec/torch-print.md.
#include <doctest/doctest.h>

#include "core/py_repr.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/print.h"

namespace {

using nlohmann::json;

json load_vectors() {
  std::ifstream in(std::string(ATTN_TEST_DATA_DIR) + "/print_vectors.json");
  REQUIRE_MESSAGE(in.good(), "cannot open print_vectors.json");
  return json::parse(in);
}

const json& find_vector(const json& all, const std::string& name) {
  for (const json& v : all)
    if (v.at("name") == name) return v;
  throw std::runtime_error("no vector named " + name);
}

attn::DType parse_dtype(const std::string& s) {
  if (s == "float32") return attn::DType::Float32;
  if (s == "float64") return attn::DType::Float64;
  if (s == "int64") return attn::DType::Int64;
  if (s == "int32") return attn::DType::Int32;
  if (s == "bool") return attn::DType::Bool;
  throw std::runtime_error("unknown dtype " + s);
}

// The file writes non-finite values as the strings "nan", "inf", "-inf" and bools as true/false.
double parse_value(const json& x) {
  if (x.is_boolean()) return x.get<bool>() ? 1.0 : 0.0;
  if (x.is_number()) return x.get<double>();
  const std::string s = x.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::runtime_error("unexpected value string " + s);
}

attn::PrintSpec spec_from_vector(const json& v) {
  attn::PrintSpec spec;
  spec.dtype = parse_dtype(v.at("dtype").get<std::string>());
  spec.shape = v.at("shape").get<std::vector<int64_t>>();
  for (const json& x : v.at("data")) {
    const double d = parse_value(x);
    // float32 data is written with 9 significant digits: round back to the stored float32.
    spec.values.push_back(spec.dtype == attn::DType::Float32 ? static_cast<double>(static_cast<float>(d)) : d);
  }
  if (!v.at("suffix").is_null()) spec.autograd = v.at("suffix").get<std::string>();
  spec.parameter = v.at("parameter").get<bool>();
  return spec;
}

// A deliberately wrong formatter: round half up in decimal, then "%.4f".
std::string round_half_up_1d(const std::vector<double>& values) {
  std::string out = "tensor([";
  for (size_t i = 0; i < values.size(); ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", std::round(values[i] * 1e4) / 1e4);
    out += (i ? ", " : "") + std::string(buf);
  }
  return out + "])";
}

}  // namespace

TEST_CASE("print vectors from torch 1.13 all match") {
  const json all = load_vectors();
  REQUIRE(all.is_array());
  size_t run = 0;
  for (const json& v : all) {
    const std::string name = v.at("name").get<std::string>();
    const std::string expected = v.at("expected").get<std::string>();
    CAPTURE(name);
    if (v.at("kind") == "size") {
      CHECK(attn::repr_size(v.at("shape").get<std::vector<int64_t>>()) == expected);
    } else {
      CHECK(attn::repr(spec_from_vector(v)) == expected);
    }
    ++run;
  }
  CHECK(run == 113);
}

TEST_CASE("round half up instead of correct rounding breaks a vector") {
  const json all = load_vectors();
  int wrong = 0;
  for (const char* name : {"half_even_ties", "float32_below_decimal_tie"}) {
    CAPTURE(name);
    const json& v = find_vector(all, name);
    const attn::PrintSpec spec = spec_from_vector(v);
    const std::string expected = v.at("expected").get<std::string>();
    CHECK(attn::repr(spec) == expected);
    if (round_half_up_1d(spec.values) != expected) ++wrong;
  }
  CHECK(wrong >= 1);
  // The exact tie 0.03125 shows the difference directly.
  CHECK(round_half_up_1d({0.03125}) == "tensor([0.0313])");
  CHECK(attn::repr({attn::DType::Float32, {1}, {0.03125}, std::nullopt, false}) == "tensor([0.0312])");
}

TEST_CASE("a NaN with the sign bit set prints nan") {
  const double neg_nan = -std::numeric_limits<double>::quiet_NaN();
  REQUIRE(std::signbit(neg_nan));
  CHECK(attn::repr({attn::DType::Float32, {}, {neg_nan}, std::nullopt, false}) == "tensor(nan)");
  CHECK(attn::repr({attn::DType::Float32, {3}, {0.5, neg_nan, -1.25}, std::nullopt, false}) ==
        "tensor([ 0.5000,     nan, -1.2500])");
  CHECK(attn::repr({attn::DType::Float32, {2}, {1e-5, neg_nan}, std::nullopt, false}) ==
        "tensor([1.0000e-05,        nan])");
}

TEST_CASE("repr rejects values that do not match the shape") {
  CHECK_THROWS_AS(attn::repr({attn::DType::Float32, {2, 2}, {1.0}, std::nullopt, false}), std::invalid_argument);
}

TEST_CASE("print: py_float is Python's repr of a float") {
  CHECK(attn::py_float(0.5) == "0.5");
  CHECK(attn::py_float(1.0) == "1.0");
  CHECK(attn::py_float(0.0001) == "0.0001");
  CHECK(attn::py_float(1e-9) == "1e-09");
  CHECK(attn::py_float(0.123) == "0.123");
  CHECK(attn::py_float(1.0 / 0.7) == "1.4285714285714286");
  CHECK(attn::py_float(1e16) == "1e+16");
  CHECK(attn::py_float(123456789012345680.0) == "1.2345678901234568e+17");
  CHECK(attn::py_float(9999999999999998.0) == "9999999999999998.0");
  CHECK(attn::py_float(-0.0) == "-0.0");
  CHECK(attn::py_float(-2.5e-7) == "-2.5e-07");
  CHECK(attn::py_float(1e300 * 1e300) == "inf");
  CHECK(attn::float32_text(0.43f) == "0.43");
  CHECK(attn::float32_text(1.0f) == "1");
}

// The spans: the same text as repr(), and each printed element's span holds exactly its element_text,
// with only the print's own separators (spaces, commas, brackets, newlines, "...") between spans.
TEST_CASE("print spans: every printed element's text where the print has it") {
  const json all = load_vectors();
  size_t tensors = 0, summarized = 0;
  for (const json& v : all) {
    if (v.at("kind") == "size") continue;
    const std::string name = v.at("name").get<std::string>();
    CAPTURE(name);
    const attn::PrintSpec spec = spec_from_vector(v);
    std::vector<attn::ElementSpan> spans;
    const std::string text = attn::repr(spec, &spans);
    REQUIRE(text == attn::repr(spec));
    ++tensors;
    int64_t n = 1;
    for (int64_t d : spec.shape) n *= d;
    if (n == 0) {
      CHECK(spans.empty());
      continue;
    }
    if (static_cast<int64_t>(spans.size()) < n)
      ++summarized;
    else
      CHECK(static_cast<int64_t>(spans.size()) == n);
    size_t last_end = 0;
    int64_t last_index = -1;
    for (const attn::ElementSpan& s : spans) {
      REQUIRE(s.end <= text.size());
      CHECK(s.begin >= last_end);
      CHECK(s.index > last_index);  // row-major order, each element once
      CHECK(text.substr(s.begin, s.end - s.begin) == attn::element_text(spec, s.index));
      const std::string between = text.substr(last_end, s.begin - last_end);
      if (last_index >= 0) CHECK(between.find_first_not_of(" ,[]\n.") == std::string::npos);
      last_end = s.end;
      last_index = s.index;
    }
  }
  CHECK(tensors > 100);
  CHECK(summarized > 0);  // the "..." prints are among them
}

TEST_CASE("print spans: a Parameter's spans count its prefix") {
  attn::PrintSpec spec;
  spec.shape = {2};
  spec.values = {0.5, -1.25};
  spec.parameter = true;
  spec.autograd = "requires_grad=True";
  std::vector<attn::ElementSpan> spans;
  const std::string text = attn::repr(spec, &spans);
  CHECK(text == "Parameter containing:\ntensor([ 0.5000, -1.2500], requires_grad=True)");
  REQUIRE(spans.size() == 2);
  CHECK(text.substr(spans[0].begin, spans[0].end - spans[0].begin) == "0.5000");
  CHECK(text.substr(spans[1].begin, spans[1].end - spans[1].begin) == "-1.2500");
}
