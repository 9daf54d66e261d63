// The CUDA device compares buffers in place (the inputs-unchanged check of
// every correctness run): equal buffers are equal, and one changed byte is
// found wherever it is — first word, last whole word, the tail past the last
// word, an unaligned range. Runs in a forked child, as kgate's measurements
// do: CUDA cannot be initialized again in a child forked after the parent
// initialized it, and the GPU tests after this one fork their measurements.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/subprocess.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/device_buffers.h"

namespace kgate {
namespace {

// Every wrong answer, one per line; "" when all were right.
std::string compare_everywhere() {
  auto opened = make_cuda_backend()->open_device(0);
  if (!opened.ok()) return "open_device: " + opened.error().message + "\n";
  Device& device = **opened;
  Allocations owned(device);
  std::string wrong;
  auto expect = [&](Result<bool> got, bool want, const std::string& what) {
    if (!got.ok())
      wrong += what + ": " + got.error().message + "\n";
    else if (*got != want)
      wrong += what + ": said " + (*got ? "equal" : "different") + "\n";
  };
  for (size_t bytes : {size_t{1}, size_t{5}, size_t{4096}, size_t{4099}, (size_t{256} << 20) + 3}) {
    auto a = device.allocate(bytes + 8), b = device.allocate(bytes + 8);
    if (!a.ok() || !b.ok()) return "allocate failed\n";
    owned.add(*a);
    owned.add(*b);
    std::vector<unsigned char> data(bytes + 8);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 13 + 1);
    if (!device.upload(*a, data.data(), data.size()).ok() ||
        !device.upload(*b, data.data(), data.size()).ok())
      return "upload failed\n";
    const std::string size = std::to_string(bytes) + " bytes";
    auto start = std::chrono::steady_clock::now();
    expect(device.equal(*a, *b, bytes), true, size + " equal");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (bytes > (size_t{1} << 20))
      std::fprintf(stderr, "  %zu bytes compared in place in %.2f ms\n", bytes, seconds * 1e3);
    expect(device.equal(*a + 1, *b + 1, bytes), true, size + " unaligned equal");
    for (size_t at : {size_t{0}, bytes / 2, (bytes / 4) * 4 - (bytes >= 4 ? 1 : 0), bytes - 1}) {
      unsigned char flipped = data[at] ^ 0x80;
      if (!device.upload(*b + at, &flipped, 1).ok()) return "upload failed\n";
      expect(device.equal(*a, *b, bytes), false, size + " changed at " + std::to_string(at));
      if (at >= 1)
        expect(device.equal(*a + 1, *b + 1, bytes - 1), false,
               size + " unaligned, changed at " + std::to_string(at));
      if (!device.upload(*b + at, &data[at], 1).ok()) return "upload failed\n";
    }
    // A difference past the compared range does not count.
    unsigned char flipped = data[bytes] ^ 0x80;
    if (!device.upload(*b + bytes, &flipped, 1).ok()) return "upload failed\n";
    expect(device.equal(*a, *b, bytes), true, size + " changed past the range");
  }
  return wrong;
}

TEST(DeviceEqualGpu, FindsOneChangedByteAnywhere) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  ChildOutcome child = run_in_child(compare_everywhere, 120);
  ASSERT_TRUE(child.completed) << child.describe(120) << "\n" << child.err_tail;
  EXPECT_EQ(child.payload, "");
}

}  // namespace
}  // namespace kgate
