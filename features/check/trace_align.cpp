#include "features/check/trace_align.h"

#include <unordered_map>

#include "features/check/check.h"

namespace attn {

std::vector<int> chain_places(const std::vector<Binding>& timeline, const std::vector<LearnerTensor>& values,
                              const std::vector<char>& use, const std::vector<int>* min_entry) {
  std::unordered_map<std::string, std::vector<int>> by_name;  // each name's timeline entries
  for (size_t j = 0; j < timeline.size(); ++j) by_name[timeline[j].name].push_back(static_cast<int>(j));
  // A state: value i at entry j, with the longest chain ending there and the state before it.
  struct State {
    int value, entry, length, before;
  };
  std::vector<State> states;
  // A Fenwick tree over the timeline's entries: the best state (longest, then earliest entry) ending at or
  // before an entry.
  const size_t n = timeline.size();
  std::vector<int> tree(n + 1, -1);
  auto better = [&](int a, int b) {  // state a better than state b
    if (a < 0) return false;
    if (b < 0) return true;
    if (states[a].length != states[b].length) return states[a].length > states[b].length;
    return states[a].entry < states[b].entry;
  };
  auto best_upto = [&](int entry) {  // the best state ending at an entry <= `entry`
    int best = -1;
    for (size_t k = static_cast<size_t>(entry) + 1; k > 0; k -= k & (~k + 1))
      if (better(tree[k], best)) best = tree[k];
    return best;
  };
  auto insert = [&](int s) {
    for (size_t k = static_cast<size_t>(states[s].entry) + 1; k <= n; k += k & (~k + 1))
      if (better(s, tree[k])) tree[k] = s;
  };
  for (size_t i = 0; i < values.size(); ++i) {
    if (i >= use.size() || !use[i]) continue;
    const auto it = by_name.find(values[i].name);
    if (it == by_name.end()) continue;
    std::vector<int> mine;
    for (int j : it->second) {
      if ((min_entry && j < (*min_entry)[i]) || !tensors_close(values[i].tensor, timeline[j].tensor)) continue;
      const int before = j > 0 ? best_upto(j - 1) : -1;  // each entry places one value, at most
      states.push_back({static_cast<int>(i), j, before < 0 ? 1 : states[before].length + 1, before});
      mine.push_back(static_cast<int>(states.size()) - 1);
    }
    for (int s : mine) insert(s);  // after all of value i's: a chain places each value once
  }
  std::vector<int> place(values.size(), -1);
  int best = -1;
  for (int s = 0; s < static_cast<int>(states.size()); ++s)
    if (better(s, best)) best = s;
  for (int s = best; s >= 0; s = states[s].before) place[states[s].value] = states[s].entry;
  return place;
}

}  // namespace attn
