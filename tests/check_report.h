#pragma once
// What `check`'s report on a learner export with one mistake must say (tests only).
#include <string>

#include "run_cli.h"

// An export that makes one mistake, and what the report names.
struct NamedMistake {
  std::string file;       // the export (a path)
  std::string first;      // the first differing tensor
  std::string diagnosis;  // the diagnosis's title, in English
  std::string detail;     // in the report (wrapped lines joined), what exactly was rerun; "" for nothing more
};

// Runs `check FILE --color never` on a page no line fills: exit 1, nothing on stderr,
// "First difference: FIRST (", the line "Diagnosis: DIAGNOSIS", no other known mistake's title as a diagnosis,
// and DETAIL. Returns the run for the caller's own checks.
CliResult expect_named_mistake(const NamedMistake& m);
