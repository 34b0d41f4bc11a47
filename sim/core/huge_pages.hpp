#pragma once
// An allocator for large, randomly probed tables (the KV block table): a block of 2 MiB or more
// is 2 MiB-aligned and advised as transparent huge pages (MADV_HUGEPAGE; the kernel's default
// mode is often `madvise`), so a random lookup costs a cache miss rather than a cache miss plus
// a TLB miss. Smaller blocks come from operator new. Only where the memory comes from changes.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace agentsim::core {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages stay small
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace agentsim::core
