#pragma once
// `attn-tutor lessons [--json] [--lang en|zh]`: the lesson list, or the catalog the browser page builds
// its picker and forms from (lessons/catalog.h, docs/lessons-json.md).
#include <string>

#include <CLI/CLI.hpp>

#include "lessons/lesson.h"

namespace attn {

struct LessonsCli {
  bool json = false;
  std::string lang;  // read before parsing (choose_language); declared so that the command accepts it
};

void add_lessons_options(CLI::App* sub, LessonsCli& l);
// The catalog of `app` (attn-tutor's parser, all subcommands added) in `lang`: each lesson's and each
// command's options exactly as its subcommand accepts them, in --help order.
std::string lessons_json(CLI::App& app, Lang lang);

}  // namespace attn
