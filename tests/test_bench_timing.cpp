// bench's timing: every form timed for at least --repeats samples and 0.2 s, a fast form several runs per
// sample; sub-millisecond times and small FLOP counts written with enough digits, the spread and the
// noise said. No speed is asserted: the decisions and the formatting are.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "features/bench/attention_bench.h"
#include "features/bench/bench_report.h"
#include "run_cli.h"

TEST_CASE("bench timing: runs per sample from a measured run time") {
  CHECK(attn::calls_per_sample(attn::kSampleMs) == 1);
  CHECK(attn::calls_per_sample(30.0) == 1);  // a slow run is a sample alone
  CHECK(attn::calls_per_sample(1000.0) == 1);
  CHECK(attn::calls_per_sample(1.0) == 10);  // 10 ms samples
  CHECK(attn::calls_per_sample(0.02) == 500);
  CHECK(attn::calls_per_sample(0.3) == 33);
  CHECK(attn::calls_per_sample(1e-9) == attn::kMaxCallsPerSample);  // capped
  CHECK(attn::calls_per_sample(0.0) == attn::kMaxCallsPerSample);
  CHECK(attn::calls_per_sample(-1.0) == attn::kMaxCallsPerSample);
}

TEST_CASE("bench timing: a form is timed until it has --repeats samples and 0.2 s, whichever comes later") {
  CHECK_FALSE(attn::timing_done(0, 0, 1));
  CHECK_FALSE(attn::timing_done(1, 0.05, 1));  // the issue's --repeats 1 at a sub-millisecond size: go on
  CHECK_FALSE(attn::timing_done(19, 199.9, 1));
  CHECK(attn::timing_done(20, 200.0, 1));
  CHECK(attn::timing_done(1, 350.0, 1));         // one slow run is enough time
  CHECK_FALSE(attn::timing_done(4, 5000.0, 5));  // --repeats stays the fewest samples
  CHECK(attn::timing_done(5, 5000.0, 5));
  CHECK(attn::timing_done(attn::kMaxSamples, 1.0, 1000000));  // never endless
}

TEST_CASE("bench timing: milliseconds and FLOPs are never written as zeros") {
  CHECK(attn::ms_text(27.345) == "27.3");
  CHECK(attn::ms_text(1.0) == "1.0");
  CHECK(attn::ms_text(0.0213) == "0.0213");
  CHECK(attn::ms_text(0.00419) == "0.00419");
  CHECK(attn::ms_text(0.5) == "0.5");
  CHECK(attn::ms_text(0) == "0.0");
  // the "0.00 + 0.00 = 0.01 GFLOP": 8·1·8·16² + 4·1·8²·16
  const double p = 8.0 * 8 * 16 * 16, a = 4.0 * 8 * 8 * 16;
  CHECK(attn::flop_text(p, p + a) == "16.38 kFLOP");
  CHECK(attn::flop_text(a, p + a) == "4.096 kFLOP");
  CHECK(attn::flop_text(6.04e8, 6.54e8) == "604 MFLOP");
  CHECK(attn::flop_text(5.03e7, 6.54e8) == "50.3 MFLOP");
  CHECK(attn::flop_text(3.865e10, 6.442e10) == "38.65 GFLOP");
  CHECK(attn::flop_text(1e3, 6.442e10) == "1e-06 GFLOP");  // a small part of a large total still shows
}

TEST_CASE("bench timing: two forms differ only when their min-max ranges do not overlap") {
  attn::FormResult a, b;
  a.min_ms = 1, a.max_ms = 2;
  b.min_ms = 1.5, b.max_ms = 3;
  CHECK(attn::ranges_overlap(a, b));
  CHECK(attn::ranges_overlap(b, a));
  b.min_ms = 2.5;
  CHECK_FALSE(attn::ranges_overlap(a, b));
  CHECK_FALSE(attn::ranges_overlap(b, a));
}

TEST_CASE("bench timing: the issue's tiny run repeats to 0.2 s, says how, and writes its FLOPs and times with digits") {
  const std::string dir = temp_dir();
  const CliResult r = run_cli("bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --threads 1 --json " +
                              dir + "/bench.json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(read_text_file(dir + "/bench.json"));
  CHECK(j["config"]["min_timed_ms"] == attn::kMinTimedMs);
  std::string flat = r.out;  // the notes without their line breaks
  for (size_t at = flat.find("\n# "); at != std::string::npos; at = flat.find("\n# ", at)) flat.replace(at, 3, " ");
  bool sub_ms = false;
  for (const nlohmann::json& f : j["forms"]) {
    CAPTURE(f["name"]);
    CHECK(f["timed_ms"].get<double>() >= attn::kMinTimedMs);
    CHECK(f["runs"].get<int64_t>() >= static_cast<int64_t>(f["times_ms"].size()));
    CHECK(f["times_ms"].size() >= 1);
    sub_ms = sub_ms || f["median_ms"].get<double>() < 1;
    CHECK(flat.find(f["name"].get<std::string>() + " " + std::to_string(f["runs"].get<int64_t>())) !=
          std::string::npos);
  }
  CHECK(r.out.find("= 16.38 kFLOP + 4.096 kFLOP = 20.48 kFLOP\n") != std::string::npos);
  CHECK(r.out.find("0.00 ") == std::string::npos);
  CHECK(r.out.find(" 0.0 – ") == std::string::npos);
  CHECK(r.out.find("each form: at least 1 timed runs and 0.2 s of them after a warm-up") != std::string::npos);
  CHECK(r.out.find("# Timing: each form ran at least 1 times (--repeats)") != std::string::npos);
  // the noise is said exactly when a form's median is under a millisecond
  CHECK((flat.find("Under a millisecond per run a timing is mostly noise") != std::string::npos) == sub_ms);
  const CliResult zh =
      run_cli("bench --batch 1 --tokens 8 --d-model 16 --num-heads 2 --repeats 1 --threads 1 --lang zh");
  REQUIRE(zh.exit_code == 0);
  CHECK(zh.out.find("计时方式") != std::string::npos);
  CHECK(zh.out.find("kFLOP") != std::string::npos);
  const CliResult help = run_cli("bench --help");
  CHECK(help.out.find("The fewest timed runs of each form") != std::string::npos);
}
