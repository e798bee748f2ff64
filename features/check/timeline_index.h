#pragma once
// The lookups the compare and diagnose stages share over a timeline (the lesson's, or a rerun's): each
// name's entries, an entry's rank among them, the object an in-place change belongs to.
#include <string>
#include <unordered_map>
#include <vector>

#include "features/check/check.h"

namespace attn {

// The timeline's entries by name, each name's in compute order: every lookup of a learner tensor's name
// visits that name's entries only, so the work grows with the export's size, not with its number of
// tensors times the timeline's length.
class NameIndex {
 public:
  explicit NameIndex(const std::vector<Binding>& tl);
  const std::vector<int>& of(const std::string& name) const;

 private:
  std::unordered_map<std::string, std::vector<int>> entries_;
};

// owner[i]: the binding whose object entry i changes (itself for a binding).
std::vector<int> owners(const std::vector<Binding>& tl);

// Fills the difference fields of `c` (yours against the lesson's `tool`); true when everything is close.
bool fill_difference(const Tensor& yours, const Tensor& tool, TensorCheck& c);

// The entry of `name` equal to `t` nearest before `expected` (else the first after it), -1 if none.
int equal_elsewhere(const std::vector<Binding>& tl, const NameIndex& index, const std::string& name, const Tensor& t,
                    int expected);

// Whether every tensor of `yours` in `which` has, in `tl` at its point (or anywhere under its name),
// its value within `tol`.
bool reproduces(const std::vector<LearnerTensor>& yours, const std::vector<int>& which, const std::vector<Binding>& tl,
                const NameIndex& index, const std::vector<int>& points, double tol, bool only_at_point);

// The entry of yours[fd]'s name in `tl` equal to it (to 1e-6) nearest before `point`, after the points of
// the other tensors of that name exported before it; -1 if none.
int earlier_in_rerun(const std::vector<LearnerTensor>& yours, int fd, const std::vector<Binding>& tl,
                     const NameIndex& index, const std::vector<int>& points, int point);

// Entry i's rank among the entries of its name, and the entry of that rank in another timeline (-1: none).
int rank_of(const std::vector<Binding>& tl, int i);
int nth_of_name(const std::vector<Binding>& tl, const std::string& name, int k);

}  // namespace attn
