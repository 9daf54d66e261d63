#pragma once
// A std::vector whose elements are left uninitialized when it is sized
// (resize, the size constructor), for the checks' large host buffers: every
// element is written right after (drawn, downloaded, converted), and zeroing
// gigabytes first costs a pass over memory and its page faults on one
// thread. Large blocks are also asked for as transparent huge pages (2 MiB),
// so a gigabyte costs hundreds of page faults instead of 262144: in a VM a
// fault is microseconds. Everything else is std::vector's.
#include <sys/mman.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace kgate {

template <class T>
class UninitializedAllocator : public std::allocator<T> {
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kHugeFrom = size_t{8} << 20;  // smaller blocks: as std::allocator

 public:
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugeFrom) return std::allocator<T>::allocate(n);
    void* p = nullptr;
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    if (posix_memalign(&p, kHugePage, rounded) != 0) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without THP it changes nothing
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugeFrom) return std::allocator<T>::deallocate(p, n);
    std::free(p);
  }

  // Default construction leaves trivial types as they are (not zeroed).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using UninitializedVector = std::vector<T, UninitializedAllocator<T>>;

}  // namespace kgate
