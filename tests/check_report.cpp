#include "check_report.h"

#include <doctest/doctest.h>

#include "lessons/mistakes.h"

namespace {

// The report with each wrapped line ("\n  " and its continuation) joined to the one before.
std::string join_wrapped(std::string report) {
  for (size_t at = report.find("\n  "); at != std::string::npos; at = report.find("\n  ", at))
    report.replace(at, 3, " ");
  return report;
}

}  // namespace

CliResult expect_named_mistake(const NamedMistake& m) {
  INFO(m.file);
  const CliResult r = run_cli_wide("check '" + m.file + "' --color never");
  CAPTURE(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.err.empty());
  CHECK(r.out.find("First difference: " + m.first + " (") != std::string::npos);
  CHECK(r.out.find("\nDiagnosis: " + m.diagnosis + "\n") != std::string::npos);
  for (const attn::Mistake& other : attn::known_mistakes())  // one diagnosis
    if (other.title(attn::Lang::En) != m.diagnosis)
      CHECK(r.out.find(": " + other.title(attn::Lang::En) + "\n") == std::string::npos);
  CHECK(join_wrapped(r.out).find(m.detail) != std::string::npos);
  return r;
}
