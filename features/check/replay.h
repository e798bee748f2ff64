#pragma once
// `attn-tutor check`: a learner's export replayed. The lesson's options from the export's config, the
// lesson run with them, and the lesson recomputed with each known mistake for the diagnosis.
#include <string>
#include <vector>

#include "features/check/check.h"
#include "features/check/learner_export.h"
#include "lessons/lesson.h"

namespace attn {

// The export's config as LessonOptions: every key optional (the lesson's defaults), the names and
// values of the tool's own "config". Throws UsageError naming the key and the values it takes.
LessonOptions replay_options(const LearnerExport& ex);

// A rerun that threw: a bug, since every rerun generated is one the lesson can run (a mistake that cannot
// apply to the settings is not generated). tests/test_check_variants.cpp runs them all.
struct RerunFailure {
  MistakeId mistake;
  Prose detail;
  std::string error;  // what the lesson threw
};

// The lesson rerun with each known mistake that applies to it (mistake_replay.cpp); with `shapes_differ`
// (a learner tensor has a shape its name never has in the lesson), first with the settings that could explain it.
// `runs`, when given, counts the lesson's runs it started (those that failed included). A rerun that
// throws is never skipped in silence: it goes to `failures` when given, else this throws std::logic_error
// naming the mistake and the lesson's error.
std::vector<WhatIf> mistake_what_ifs(const std::string& lesson, const LessonOptions& opt, bool shapes_differ = false,
                                     int64_t* runs = nullptr, std::vector<RerunFailure>* failures = nullptr);

// How many times mistake_what_ifs reruns the lesson at most (with or without `shapes_differ`),
// counted from the same list, for the cost model before anything runs.
int64_t mistake_rerun_count(const std::string& lesson, const LessonOptions& opt);

// Reads FILE, replays its lesson and compares. Throws UsageError for a missing or malformed file, an
// unknown lesson or settings the lesson rejects.
CheckReport check_file(const std::string& path);

}  // namespace attn
