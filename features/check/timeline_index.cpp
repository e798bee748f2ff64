#include "features/check/timeline_index.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

NameIndex::NameIndex(const std::vector<Binding>& tl) {
  for (size_t i = 0; i < tl.size(); ++i) entries_[tl[i].name].push_back(static_cast<int>(i));
}

const std::vector<int>& NameIndex::of(const std::string& name) const {
  static const std::vector<int> none;
  const auto it = entries_.find(name);
  return it == entries_.end() ? none : it->second;
}

std::vector<int> owners(const std::vector<Binding>& tl) {
  std::vector<int> owner(tl.size());
  std::unordered_map<std::string, int> binding;  // each name's latest binding so far
  for (size_t i = 0; i < tl.size(); ++i) {
    owner[i] = static_cast<int>(i);
    if (!tl[i].in_place) {
      binding[tl[i].name] = static_cast<int>(i);
      continue;
    }
    const auto it = binding.find(tl[i].name);
    if (it != binding.end()) owner[i] = it->second;
  }
  return owner;
}

bool fill_difference(const Tensor& yours, const Tensor& tool, TensorCheck& c) {
  c.differing = 0;
  c.first_diff = -1;
  c.max_diff = 0.0;
  if (yours.shape() != tool.shape()) {
    c.differing = yours.numel();
    c.max_diff = std::numeric_limits<double>::infinity();
    return false;
  }
  const std::vector<float> a = yours.values(), b = tool.values();
  for (size_t i = 0; i < a.size(); ++i) {
    if (values_close(a[i], b[i])) continue;
    if (c.first_diff < 0) c.first_diff = static_cast<int64_t>(i);
    ++c.differing;
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    c.max_diff = std::max(c.max_diff, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
  }
  return c.differing == 0;
}

int equal_elsewhere(const std::vector<Binding>& tl, const NameIndex& index, const std::string& name, const Tensor& t,
                    int expected) {
  int before = -1, after = -1;
  for (int i : index.of(name)) {
    if (i == expected || !tensors_close(t, tl[i].tensor)) continue;
    if (i < expected)
      before = i;
    else if (after < 0)
      after = i;
  }
  return before >= 0 ? before : after;
}

bool reproduces(const std::vector<LearnerTensor>& yours, const std::vector<int>& which, const std::vector<Binding>& tl,
                const NameIndex& index, const std::vector<int>& points, double tol, bool only_at_point) {
  for (int i : which) {
    if (points[i] < 0) return false;
    if (tensors_close(yours[i].tensor, tl[points[i]].tensor, tol)) continue;
    if (only_at_point) return false;
    bool found = false;
    for (int j : index.of(yours[i].name)) found = found || tensors_close(yours[i].tensor, tl[j].tensor, tol);
    if (!found) return false;
  }
  return true;
}

int earlier_in_rerun(const std::vector<LearnerTensor>& yours, int fd, const std::vector<Binding>& tl,
                     const NameIndex& index, const std::vector<int>& points, int point) {
  int floor = -1;
  for (size_t j = 0; j < static_cast<size_t>(fd); ++j)
    if (yours[j].name == yours[fd].name) floor = std::max(floor, points[j]);
  int at = -1;
  for (int i : index.of(yours[fd].name))
    if (i > floor && i < point && tensors_close(yours[fd].tensor, tl[i].tensor, 1e-6)) at = i;
  return at;
}

int rank_of(const std::vector<Binding>& tl, int i) {
  int k = 0;
  for (int j = 0; j < i; ++j) k += tl[j].name == tl[i].name;
  return k;
}

int nth_of_name(const std::vector<Binding>& tl, const std::string& name, int k) {
  for (int j = 0; j < static_cast<int>(tl.size()); ++j)
    if (tl[j].name == name && k-- == 0) return j;
  return -1;
}

}  // namespace attn
