// What owns something it cannot share is neither copied nor assigned (lib/core/no_copy.h): the terminal's
// raw mode is restored once, a commit's temporaries are removed once. Compile-time facts, checked here.
#include <doctest/doctest.h>

#include <type_traits>

#include "app/terminal.h"
#include "core/commit_temporaries.h"
#include "core/no_copy.h"

using namespace attn;

TEST_CASE("no copy: the terminal's keys and a commit's temporaries can be neither copied nor assigned") {
  CHECK(!std::is_copy_constructible_v<NoCopy>);
  CHECK(!std::is_copy_assignable_v<NoCopy>);
  CHECK(std::is_default_constructible_v<NoCopy>);
  CHECK(!std::is_copy_constructible_v<TerminalKeys>);
  CHECK(!std::is_copy_assignable_v<TerminalKeys>);
  CHECK(!std::is_copy_constructible_v<Temporaries>);
  CHECK(!std::is_copy_assignable_v<Temporaries>);
  CHECK(!std::is_move_constructible_v<Temporaries>);  // nor moved: its temporaries have one owner
}
