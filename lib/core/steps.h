#pragma once
// The values a forward gives its names, in the order it computes them: each binding (`x = ...`) and each
// in-place change (`x.masked_fill_(...)`), with the book's line. Lessons hand them to their notebook, and
// `attn-tutor check` compares a learner's tensor with the value its name has at the learner's point.
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace attn {

struct Step {
  std::string name;
  std::string code;  // the line that gives the value
  Tensor value;
  bool in_place = false;
  int head = -1;  // the head whose forward gives it (a wrapper's or the course's list of heads)
};

struct Steps {
  std::vector<Step> list;
  // `name = ...` gave t; returns t.
  Tensor bind(const std::string& name, const std::string& code, const Tensor& t) {
    list.push_back({name, code, t, false, -1});
    return t;
  }
  // `name` changed in place to t; returns t.
  Tensor modify(const std::string& name, const std::string& code, const Tensor& t) {
    list.push_back({name, code, t, true, -1});
    return t;
  }
  void append(const Steps& other) { list.insert(list.end(), other.list.begin(), other.list.end()); }
  // Another module's steps, run as head `head` of a list of heads.
  void append(const Steps& other, int head) {
    for (Step s : other.list) {
      s.head = head;
      list.push_back(std::move(s));
    }
  }
};

// The end of a forward that fills a trace `t` (its values under the book's names): hands `t` to the caller
// who asked for it (`trace` not null) and returns the forward's output `out`, taken from `t` before.
template <class Trace>
Tensor hand_over(Trace& t, Trace* trace, Tensor out) {
  if (trace) *trace = std::move(t);
  return out;
}

}  // namespace attn
