#pragma once
// A std::allocator for large, randomly accessed arrays (hash tables): allocations of
// 2 MiB or more are advised to use transparent huge pages (Linux), so a random probe
// costs a cache miss without a TLB miss as well. The memory itself comes from operator
// new as with std::allocator (heap accounting unchanged); the advice only changes placement.
#include <cstddef>
#include <cstdint>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace agentsim::core {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: converting, as allocators are

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    void* p = ::operator new(bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHugePageBytes) {
      // The whole pages inside the block; the kernel backs its 2 MiB-aligned stretches.
      constexpr std::uintptr_t kPage = 4096;
      const auto lo = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
      const auto hi = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kPage - 1);
      if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // advice: may be ignored
    }
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
};

}  // namespace agentsim::core
