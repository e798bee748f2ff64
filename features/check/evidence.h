#pragma once
// Stage "evidence" of a traced program's check: a verdict only for a program that computes the lesson. A ✗
// needs a value of the lesson's (or the book's inputs, or one of its classes constructed); a ✓ needs a
// compared step, not only the setup (the inputs, a mask) while the steps go by names of the learner's own.
#include <set>
#include <string>

#include "features/check/check.h"
#include "features/check/trace_check.h"

namespace attn {

// Whether `r` (the one lesson's check of a program) has evidence that the program computes that lesson: a
// value it computes equal to the lesson's, its given input (under any name) with a step of the lesson's
// shape after it, or a class of the lesson's constructed.
bool computes_lesson(const CheckReport& r, const TraceDocument& trace);

// Whether `r` compares a step the lesson computes (not its given input, not a mask of ones and zeros) and
// finds it equal.
bool compares_a_step(const CheckReport& r);

// The program's module-level steps under names `lesson_names` does not hold (at most six, escaped; its
// inputs and its layers' weights left out), comma-separated.
std::string unnamed_tensors(const TraceDocument& trace, const std::set<std::string>& lesson_names);

}  // namespace attn
