#pragma once
// A 64-byte aligned float array that only grows: the bench kernels' workspaces are sized on the
// first run and reused, so the timed runs measure arithmetic and memory traffic, not page faults.
#include <cstddef>

namespace attn {

class AlignedFloats {
 public:
  AlignedFloats() = default;
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  AlignedFloats(AlignedFloats&& other) noexcept;
  AlignedFloats& operator=(AlignedFloats&& other) noexcept;
  ~AlignedFloats();

  // At least n floats; the old contents are lost when it grows. Large arrays ask for huge pages.
  float* reserve(std::size_t n);
  float* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(float); }

 private:
  float* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace attn
