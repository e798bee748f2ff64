#pragma once
// `attn-tutor kv-memory`: its options and its run.
#include <string>

#include <CLI/CLI.hpp>

#include "features/kv_memory/kv_memory.h"
#include "lesson_command.h"

namespace attn {

struct KvMemoryCli {
  KvMemoryConfig config;
  int64_t window = kNotGiven, latent_dim = kNotGiven;
  std::string json, lang;
  std::string html;         // --html FILE|-
  bool html_given = false;  // --html was given (an empty FILE is an error)
};

void add_kv_memory_options(CLI::App* sub, KvMemoryCli& k);
// Checks the options (UsageError), prints the estimate or its JSON.
int run_kv_memory(KvMemoryCli& k, Lang env_lang);

}  // namespace attn
