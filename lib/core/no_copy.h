#pragma once
// The base of a class that owns something it cannot share (a terminal's mode, a commit's temporaries, a
// folder it removes at its end): such an object is neither copied nor assigned, so the owned thing is
// released exactly once.
namespace attn {

struct NoCopy {
  NoCopy() = default;
  NoCopy(const NoCopy&) = delete;
  NoCopy& operator=(const NoCopy&) = delete;
};

}  // namespace attn
