#pragma once
// `attn-tutor check my_attention.py` / `check ch03.ipynb`: the learner's own program run under the tracer
// (python/tracer.py, run by python_trace.cpp), its "attn-tutor-trace/1" document (docs/trace-json.md)
// turned into a check: the lesson and its settings inferred from what the program did, each tensor with
// the place in the learner's code it was bound.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded_read.h"
#include "features/check/check.h"

namespace attn {

// A trace event: one tensor bound to a name (or changed in place) at a line of the learner's code.
struct TraceEvent {
  std::string kind;                   // "bind" or "in_place"
  std::string name, scope, function;  // scope: "module", "local" (a function's) or "self" (an attribute)
  std::string function_key;           // the function's identity: its name, file/cell and first line
  int call = 0;                       // which call of a function (each call its own number)
  std::string owner;  // a module-level attribute (`mha.cache_k` after a call filled it): the module's name
  TensorOrigin origin;
  nlohmann::json entry;  // {"name", "shape", "dtype", "data"} as an "attn-tutor/1" tensor; null when skipped
};

struct TraceDocument {
  std::string program;  // the learner's file name
  bool notebook = false;
  std::vector<TraceEvent> events;  // in the order the program bound them
  std::vector<std::string> seeds;  // each torch.manual_seed(n)'s n as decimal text, in order
  std::vector<std::pair<std::string, nlohmann::json>> modules;  // each nn.Module construction: class, {arg: value}
  nlohmann::json settings = nlohmann::json::object();  // globals named as a setting ("num_heads": 8), last values
  bool truncated = false;
  int skipped = 0;
};

// The limits of a trace, a saved one or the one a program's run writes: what python/tracer.py's caps let it
// write fits (MAX_EVENTS events; MAX_VALUES tensor values, about 30 MB at 23 bytes each; each event's names,
// place and code line, up to 1.2 KB with its code's non-ASCII escaped), what is beyond them is refused with
// one line naming the limit before anything grows with it.
constexpr std::size_t kMaxTraceBytes = 64 * kMiB;
constexpr std::size_t kMaxTraceEvents = 20000;          // python/tracer.py's MAX_EVENTS
constexpr std::size_t kMaxTraceTensorValues = 1000000;  // python/tracer.py's MAX_VALUES
// JSON values in all: the tensor values, each in a list of its own at worst (a column), and the events'
// and modules' own (a trace at the caps holds about 1.3 million).
constexpr std::size_t kMaxTraceValues = 3 * kMaxTraceTensorValues;
// How much of a file's start says what it is: the tracer writes "schema" first.
constexpr std::size_t kTraceStartBytes = 64 * 1024;

// True when `start` (a file's first bytes) opens a JSON object whose "schema" is "attn-tutor-trace/1"
// (so `check` takes a saved trace), the schema before the end of `start`.
bool is_trace_document(const std::string& start);

// A saved trace's file, read within kMaxTraceBytes and parsed; throws UsageError naming the limit passed.
TraceDocument load_trace(const std::string& path, const std::string& python = "python3");

// Reads the tracer's document. Throws UsageError naming `source` for a document that is not one, and for
// the tracer's own verdicts: no torch (`python` is the --python value), a notebook that is not one, a
// program that raised (its last lines).
TraceDocument parse_trace(const std::string& text, const std::string& source, const std::string& python = "python3");

// What the command line says instead of inferring.
struct TraceChoices {
  std::string lesson;               // --lesson ("" : inferred)
  std::optional<std::string> seed;  // --seed
};

// The lesson (given, or the one whose replay matches the most of the program's named tensors) replayed
// with the settings the program used (its modules' arguments, its torch.manual_seed, its `inputs`), and
// checked like an export; each tensor keeps its origin, the report's notes say what was inferred.
CheckReport check_trace(const TraceDocument& trace, const std::string& source, const TraceChoices& choices);

}  // namespace attn
