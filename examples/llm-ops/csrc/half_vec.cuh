// V consecutive halves moved as one access (V = 8: one 16-byte load or
// store), for the tuned versions' VEC tunable. A pointer may be used as a
// HalfVec<V> only where it is aligned to 2 * V bytes: callers check with
// is_aligned and take the scalar path (V = 1) otherwise.
#pragma once
#include <cuda_fp16.h>

// Include it after the kernel's BLOCK and VEC are defined.
#if !defined(BLOCK) || !defined(VEC)
#error "define BLOCK and VEC before including half_vec.cuh"
#endif

// The tuned versions (TUNED) declare their block size so the compiler keeps every
// BLOCK launchable (at 1024 threads, at most 64 registers per thread); the
// first versions are compiled exactly as they were.
#ifndef TUNED  // a kernel whose tuned version has other switches defines it first
#define TUNED (VEC > 1)
#endif
#ifndef TUNED_LAUNCH_BOUNDS  // a kernel that needs more than BLOCK (gemv) defines it first
#if TUNED
#define TUNED_LAUNCH_BOUNDS __launch_bounds__(BLOCK)
#else
#define TUNED_LAUNCH_BOUNDS
#endif
#endif

template <int V>
struct alignas(2 * V) HalfVec {
  __half h[V];
};

template <int V>
__device__ __forceinline__ bool is_aligned(const void* p) {
  return reinterpret_cast<unsigned long long>(p) % (2 * V) == 0;
}

template <int V>
__device__ __forceinline__ HalfVec<V> load_vec(const __half* p) {
  return *reinterpret_cast<const HalfVec<V>*>(p);
}

template <int V>
__device__ __forceinline__ void store_vec(__half* p, const HalfVec<V>& v) {
  *reinterpret_cast<HalfVec<V>*>(p) = v;
}
