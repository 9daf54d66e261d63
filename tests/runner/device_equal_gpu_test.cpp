// The CUDA device compares buffers in place (the inputs-unchanged check of
// every correctness run): equal buffers are equal, and one changed byte is
// found wherever it is — first word, last whole word, the tail past the last
// word, an unaligned range. Skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/device_buffers.h"

namespace kgate {
namespace {

TEST(DeviceEqualGpu, FindsOneChangedByteAnywhere) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  auto opened = make_cuda_backend()->open_device(0);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  Device& device = **opened;
  Allocations owned(device);
  for (size_t bytes : {size_t{1}, size_t{5}, size_t{4096}, size_t{4099}, (size_t{256} << 20) + 3}) {
    auto a = device.allocate(bytes + 8), b = device.allocate(bytes + 8);
    ASSERT_TRUE(a.ok() && b.ok());
    owned.add(*a);
    owned.add(*b);
    std::vector<unsigned char> data(bytes + 8);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 13 + 1);
    ASSERT_TRUE(device.upload(*a, data.data(), data.size()).ok());
    ASSERT_TRUE(device.upload(*b, data.data(), data.size()).ok());
    auto start = std::chrono::steady_clock::now();
    auto same = device.equal(*a, *b, bytes);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(same.ok()) << same.error().message;
    EXPECT_TRUE(*same) << bytes;
    if (bytes > (size_t{1} << 20))
      std::printf("  %zu bytes compared in place in %.2f ms\n", bytes, seconds * 1e3);
    // Unaligned starts take the download path and agree.
    EXPECT_TRUE(*device.equal(*a + 1, *b + 1, bytes)) << bytes;
    for (size_t at : {size_t{0}, bytes / 2, (bytes / 4) * 4 - (bytes >= 4 ? 1 : 0), bytes - 1}) {
      unsigned char flipped = data[at] ^ 0x80;
      ASSERT_TRUE(device.upload(*b + at, &flipped, 1).ok());
      EXPECT_FALSE(*device.equal(*a, *b, bytes)) << bytes << " changed at " << at;
      EXPECT_FALSE(*device.equal(*a + 1, *b + 1, bytes - 1) && at >= 1)
          << bytes << " unaligned, changed at " << at;
      ASSERT_TRUE(device.upload(*b + at, &data[at], 1).ok());
    }
    // A difference past the compared range does not count.
    unsigned char flipped = data[bytes] ^ 0x80;
    ASSERT_TRUE(device.upload(*b + bytes, &flipped, 1).ok());
    EXPECT_TRUE(*device.equal(*a, *b, bytes)) << bytes;
  }
}

}  // namespace
}  // namespace kgate
