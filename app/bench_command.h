#pragma once
// `attn-tutor bench`: its options and its run.
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "features/bench/attention_bench.h"
#include "lesson_command.h"

namespace attn {

struct BenchCli {
  BenchOptions options;
  int64_t threads = kNotGiven;  // default: every hardware thread
  std::string seed;
  std::string json;
  std::string lang;
  std::string kernels;                  // avx512, avx2, neon or portable; default: the widest this CPU has
  std::string forms;                    // --forms a,b,...; default: every form
  CLI::Option* forms_option = nullptr;  // given (an empty list is an error, not "every form")
};

void add_bench_options(CLI::App* sub, BenchCli& b);
// Validates the options (UsageError), runs the bench and prints the table or its JSON.
int run_bench(BenchCli& b, Lang env_lang);

}  // namespace attn
