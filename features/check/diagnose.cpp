#include "features/check/diagnose.h"

#include <algorithm>
#include <optional>
#include <set>

#include "features/check/timeline_index.h"

namespace attn {

namespace {

using V = TensorCheck::Verdict;
using E = TensorCheck::Elsewhere;

// The tensors around the first difference `fd`, each list in compute order.
struct Around {
  int fd = -1;
  std::vector<int> before;          // matching, before its point
  std::vector<int> after;           // differing, after its point
  std::vector<int> after_matching;  // matching, after its point
  std::vector<int> settled;         // of those, the ones not at a differing tensor's point
};

Around around_first(const CheckReport& r, const std::vector<size_t>& order) {
  Around a;
  a.fd = r.first_divergence;
  const int point = r.checks[a.fd].expected;
  std::set<int> differing_points;
  for (size_t i : order) {
    const TensorCheck& c = r.checks[i];
    if (c.expected < point && c.verdict == V::Match) a.before.push_back(static_cast<int>(i));
    if (c.expected > point && c.verdict == V::Differs) a.after.push_back(static_cast<int>(i));
    if (c.expected > point && c.verdict == V::Match) a.after_matching.push_back(static_cast<int>(i));
    if (c.verdict == V::Differs) differing_points.insert(c.expected);
  }
  for (int i : a.after_matching)
    if (!differing_points.count(r.checks[i].expected)) a.settled.push_back(i);
  return a;
}

// A mistake whose rerun explains the first difference.
struct Found {
  size_t given = 0;  // the later tensors it gives (the differing ones, and the matching ones as they are)
  Diagnosis diagnosis;
  std::vector<int> missed;     // the later differing tensors it does not give
  std::vector<int> explained;  // later tensors matched as earlier values that it gives at their own points
  std::vector<int> ran;        // later tensors said stale or unsure that it gives at their own points
  int earlier_rank = -1;       // the rerun's earlier entry that gives the first difference, by rank (-1: none)
};

// The learner's tensors' points in the rerun, the first difference's where the rerun gives it.
struct RerunPoints {
  std::vector<int> pts;
  bool at_point = false;  // the rerun gives it at its own point
  int earlier = -1;       // the rerun's earlier entry of its name that gives it (-1: none)
};

RerunPoints rerun_points(const CheckReport& r, int fd, const WhatIf& w, const NameIndex& index) {
  RerunPoints p{learner_points(r.yours, w.timeline)};
  // At its point in the rerun, or at the rerun's entry of the same rank among its name's (the same step
  // when the mistake leaves the steps as they are: another head's value, a state an in-place change missed).
  const int same_step = nth_of_name(w.timeline, r.yours[fd].name, rank_of(r.tool, r.checks[fd].expected));
  p.at_point = reproduces(r.yours, {fd}, w.timeline, index, p.pts, 1e-6, true);
  const int point = p.pts[fd];
  if (!p.at_point && same_step >= 0) p.pts[fd] = same_step;
  // Else an earlier value of its name in the rerun, as a correct program's earlier value is a match: only
  // when every tensor exported after it is the rerun's as well (nothing later says otherwise).
  if (!reproduces(r.yours, {fd}, w.timeline, index, p.pts, 1e-6, true))
    p.earlier = earlier_in_rerun(r.yours, fd, w.timeline, index, p.pts, point);
  // (Only where the mistake shows: the lesson's value at that step differs. The lesson's own earlier value
  // is the stale or taken-earlier case of the compare stage, not this mistake's.)
  if (p.earlier >= 0) {
    const int step = nth_of_name(r.tool, r.yours[fd].name, rank_of(w.timeline, p.earlier));
    if (step < 0 || tensors_close(r.yours[fd].tensor, r.tool[step].tensor, 1e-6)) p.earlier = -1;
  }
  if (p.earlier >= 0) p.pts[fd] = p.earlier;
  return p;
}

std::optional<Found> try_what_if(const CheckReport& r, const Around& a, const WhatIf& w) {
  const NameIndex index(w.timeline);
  const RerunPoints p = rerun_points(r, a.fd, w, index);
  const auto gives = [&](const std::vector<int>& which, double tol, bool only_at_point) {
    return reproduces(r.yours, which, w.timeline, index, p.pts, tol, only_at_point);
  };
  if (!gives({a.fd}, 1e-6, true) || !gives(a.before, 1e-5, false)) return std::nullopt;
  // A mistake that changes a later tensor that matches contradicts it: not the learner's (a window one too
  // wide changes the cache too; layers created in another order change the keys a copy-paste slip leaves).
  // Except a tensor at the point of one that differs: the program computed that step again (fixed).
  if (!gives(a.settled, 1e-5, false)) return std::nullopt;
  Found f;
  for (int i : a.after)
    if (!gives({i}, 1e-5, false)) f.missed.push_back(i);
  f.given = a.after.size() - f.missed.size() + a.after_matching.size();
  if (p.earlier >= 0 && !f.missed.empty()) return std::nullopt;
  f.diagnosis = {&mistake(w.mistake), w.detail, p.at_point};
  f.earlier_rank = p.earlier >= 0 ? rank_of(w.timeline, p.earlier) : -1;
  for (int i : a.after)
    if ((r.checks[i].elsewhere == E::Stale || r.checks[i].elsewhere == E::Unsure) && gives({i}, 1e-6, true))
      f.ran.push_back(i);
  for (int i : a.after_matching)
    if (r.checks[i].elsewhere == E::Earlier && gives({i}, 1e-6, true)) f.explained.push_back(i);
  return f;
}

// The mistakes that give the most, each named once, into r.diagnoses; the index of the first in `found`.
size_t name_diagnoses(CheckReport& r, const std::vector<Found>& found, size_t best) {
  size_t chosen = 0;
  for (size_t k = 0; k < found.size(); ++k) {
    if (found[k].given != best) continue;
    if (std::any_of(r.diagnoses.begin(), r.diagnoses.end(),
                    [&](const Diagnosis& d) { return d.mistake == found[k].diagnosis.mistake; }))
      continue;
    if (r.diagnoses.empty()) {
      r.not_reproduced = found[k].missed;
      chosen = k;
    }
    r.diagnoses.push_back(found[k].diagnosis);
  }
  return chosen;
}

// The first difference given by the named mistake at an earlier step of its name: compared with the
// lesson's value at that step (the learner exported it there), where the mistake shows.
void compare_at_earlier_step(CheckReport& r, int fd, int earlier_rank) {
  const int step = nth_of_name(r.tool, r.yours[fd].name, earlier_rank);
  TensorCheck& c = r.checks[fd];
  if (step >= 0 && step < c.expected && !fill_difference(r.yours[fd].tensor, r.tool[step].tensor, c)) {
    c.expected = step;
    c.elsewhere = E::None;
    c.other = -1;
  } else {
    fill_difference(r.yours[fd].tensor, r.tool[c.expected].tensor, c);
  }
}

// The verdicts restated in the light of the mistakes named (found[chosen] the first).
void restate(CheckReport& r, const Around& a, const std::vector<Found>& found, size_t best, size_t chosen) {
  if (found[chosen].earlier_rank >= 0) compare_at_earlier_step(r, a.fd, found[chosen].earlier_rank);
  // A later tensor matched as an earlier value of its name that the one named mistake gives at its own
  // point: a consequence of the mistake (a stale cache), not a value taken there: a difference.
  if (r.diagnoses.size() == 1)
    for (int i : found[chosen].explained) {
      TensorCheck& c = r.checks[i];
      c.verdict = V::Differs;
      c.elsewhere = E::None;
      fill_difference(r.yours[i].tensor, r.tool[c.expected].tensor, c);
    }
  // An earlier value that a known mistake gives at the tensor's own point: the step ran (with the mistake)
  // and gave the same value again; "never reached" would be untrue. Unless the step is an in-place change
  // (masked_fill_): a mistake that leaves it without effect is that step not reaching it.
  TensorCheck& f = r.checks[a.fd];
  if ((f.elsewhere == E::Stale || f.elsewhere == E::Unsure) && !r.tool[f.expected].in_place &&
      std::any_of(found.begin(), found.end(), [&](const Found& d) { return d.given == best && d.diagnosis.at_point; }))
    f.elsewhere = E::None;
  // The same for a later tensor said to be its value before its step: a named mistake that gives it at its
  // own point ran that step (a mask from row 0 makes a step repeat the value before it).
  for (const Found& d : found)
    if (d.given == best)
      for (int i : d.ran)
        if (!r.tool[r.checks[i].expected].in_place) r.checks[i].elsewhere = E::None;
  // An earlier value with later tensors that differ, all of them given by one known mistake: that
  // mistake, not another export point, explains it.
  if (f.elsewhere == E::Unsure && !a.after.empty() && r.diagnoses.size() == 1 && r.not_reproduced.empty())
    f.elsewhere = E::Stale;
}

}  // namespace

void diagnose(CheckReport& r, const std::vector<size_t>& order, const std::vector<WhatIf>& what_ifs) {
  const Around a = around_first(r, order);
  // Of several, those that also give the most of the later tensors.
  std::vector<Found> found;
  size_t best = 0;
  for (const WhatIf& w : what_ifs) {
    std::optional<Found> f = try_what_if(r, a, w);
    if (!f || std::any_of(found.begin(), found.end(), [&](const Found& o) {
          return o.diagnosis.mistake == f->diagnosis.mistake && o.given >= f->given;
        }))
      continue;
    best = std::max(best, f->given);
    found.push_back(std::move(*f));
  }
  if (found.empty()) return;
  restate(r, a, found, best, name_diagnoses(r, found, best));
}

}  // namespace attn
