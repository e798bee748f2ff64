// The "attn-tutor/1" JSON export.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "notebook/json_export.h"
#include "run_cli.h"

using nlohmann::json;

namespace {

json lesson_json(const std::string& args) {
  const CliResult r = run_cli(args + " --json -");
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::vector<json> tensors_named(const json& doc, const std::string& name) {
  std::vector<json> out;
  for (const json& t : doc["tensors"])
    if (t["name"] == name) out.push_back(t);
  return out;
}

}  // namespace

TEST_CASE("json: floats are the shortest text that reads back as the same float32") {
  CHECK(attn::json_float(0.1f) == "0.1");
  CHECK(attn::json_float(0.4306369f) == "0.4306369");
  CHECK(attn::json_float(1.0f) == "1.0");
  CHECK(attn::json_float(-0.0f) == "-0.0");
  CHECK(attn::json_float(1e-45f) == "1e-45");
  CHECK(attn::json_float(std::numeric_limits<float>::infinity()) == "\"inf\"");
  CHECK(attn::json_float(-std::numeric_limits<float>::infinity()) == "\"-inf\"");
  CHECK(attn::json_float(std::nanf("")) == "\"nan\"");
  CHECK(attn::json_float(-std::nanf("")) == "\"nan\"");
  for (float f : {0.30610f, 1.8523844f, 3.4028235e38f, 1.17549435e-38f, 0.2996f}) {
    const std::string text = attn::json_float(f);
    CHECK(static_cast<float>(std::stod(text)) == f);
  }
}

TEST_CASE("json: the document follows the schema") {
  const json doc = lesson_json("trainable");
  CHECK(doc["schema"] == "attn-tutor/1");
  CHECK(doc["lesson"] == "trainable");
  CHECK(doc["sections"] == json::array({"3.4.1", "3.4.2"}));
  CHECK(doc["tokens"] == json::array({"Your", "journey", "starts", "with", "one", "step"}));
  for (const char* key : {"seed", "d_in", "d_out", "init", "qkv_bias", "inputs"}) CHECK(doc["config"].contains(key));
  const auto query_2 = tensors_named(doc, "query_2");
  REQUIRE(query_2.size() == 1);
  CHECK(query_2[0]["code"] == "query_2 = x_2 @ W_query");
  CHECK(query_2[0]["shape"] == json::array({2}));
  CHECK(query_2[0]["dtype"] == "float32");
  CHECK(query_2[0]["data"][0].get<double>() == doctest::Approx(0.4306).epsilon(1e-4));
  const auto score = tensors_named(doc, "attn_score_22");
  REQUIRE(score.size() == 1);
  CHECK(score[0]["data"].is_number());  // 0-d: a bare number
  CHECK(score[0]["shape"] == json::array());
}

TEST_CASE("json: -inf as a string, bool masks as true/false, rebound names in order") {
  const json doc = lesson_json("causal-mask");
  const auto masked = tensors_named(doc, "masked");
  REQUIRE(masked.size() == 1);
  CHECK(masked[0]["data"][0][1] == "-inf");
  const auto weights = tensors_named(doc, "attn_weights");
  REQUIRE(weights.size() >= 2);  // rebound: unmasked first, causal later
  CHECK(weights.front()["data"][0][1].get<double>() > 0.1);
  CHECK(weights.back()["data"][0][1].get<double>() == 0.0);
  CHECK(weights.front()["cell"].get<int>() < weights.back()["cell"].get<int>());
  const json mha = lesson_json("mha");
  const auto mask_bool = tensors_named(mha, "mask_bool");
  REQUIRE(mask_bool.size() == 1);
  CHECK(mask_bool[0]["dtype"] == "bool");
  CHECK(mask_bool[0]["data"][0][1] == true);
  CHECK(mask_bool[0]["data"][1][0] == false);
}

TEST_CASE("json: the seed in force and other options reach config") {
  const json doc = lesson_json("trainable --seed -5 --d-out 3 --qkv-bias --init randn");
  CHECK(doc["config"]["seed"] == -5);
  CHECK(doc["config"]["d_out"] == 3);
  CHECK(doc["config"]["qkv_bias"] == true);
  CHECK(doc["config"]["init"] == "randn");
  CHECK(lesson_json("trainable")["config"]["seed"].is_null());
}

TEST_CASE("dropout: p = 0 is the identity and p = 1 gives zeros, as in PyTorch") {
  const json zero = lesson_json("dropout --dropout 0");
  const auto kept = tensors_named(zero, "dropout(example)");
  REQUIRE(kept.size() == 1);
  for (const json& row : kept[0]["data"])
    for (const json& v : row) CHECK(v.get<double>() == 1.0);
  const json one = lesson_json("dropout --dropout 1");
  const auto dropped = tensors_named(one, "dropout(attn_weights)");
  REQUIRE(dropped.size() == 1);
  for (const json& row : dropped[0]["data"])
    for (const json& v : row) CHECK(v.get<double>() == 0.0);
  // The module's dropout at p = 1: every weight is dropped, the context vectors are zero.
  const json wrapper = lesson_json("wrapper --dropout 1");
  const auto context = tensors_named(wrapper, "context_vecs");
  REQUIRE_FALSE(context.empty());
  for (const json& block : context.back()["data"])
    for (const json& row : block)
      for (const json& v : row) CHECK(v.get<double>() == 0.0);
}
