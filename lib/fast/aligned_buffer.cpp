#include "fast/aligned_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <utility>

namespace attn {

namespace {
constexpr std::size_t kHugePage = std::size_t(2) << 20;
}

AlignedFloats::AlignedFloats(AlignedFloats&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedFloats& AlignedFloats::operator=(AlignedFloats&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

AlignedFloats::~AlignedFloats() { std::free(data_); }

float* AlignedFloats::reserve(std::size_t n) {
  if (n <= size_) return data_;
  std::free(data_);
  data_ = nullptr;
  size_ = 0;
  const std::size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  const bool huge = bytes >= kHugePage;
  void* p = nullptr;
  if (posix_memalign(&p, huge ? kHugePage : 64, bytes) != 0) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  if (huge) madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // fewer TLB misses on big buffers
#endif
  data_ = static_cast<float*>(p);
  size_ = bytes / sizeof(float);
  return data_;
}

}  // namespace attn
