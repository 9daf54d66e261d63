// The gate's compute-sanitizer step when it cannot run: a clear note, once
// per kernel, and the gate goes on (the CUDA path is in aa_gate_gpu_test.cpp).
#include <gtest/gtest.h>

#include "gate/gate_sanitizer.h"
#include "runner/sanitizer_program.h"

namespace kgate {
namespace {

TEST(GateSanitizer, OnTheHostBackendItIsANote) {
  GateSanitizer sanitizer({"memcheck"}, "host", "/bin/false");
  ASSERT_TRUE(sanitizer.active());
  Kernel kernel;
  kernel.name = "k";
  SanitizeTarget target;
  target.kernel = &kernel;
  ShapeGate shape;
  shape.verdict = Verdict::kSame;
  std::vector<std::string> notes;
  sanitizer.check(target, shape, notes);
  sanitizer.check(target, shape, notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("compute-sanitizer (memcheck) not run: it checks CUDA kernels", 0), 0u)
      << notes[0];
  EXPECT_EQ(shape.verdict, Verdict::kSame);
  EXPECT_FALSE(sanitizer.active());
}

TEST(GateSanitizer, AMissingToolSaysSoOnce) {
  if (!find_compute_sanitizer().empty()) GTEST_SKIP() << "compute-sanitizer is installed here";
  GateSanitizer sanitizer({"memcheck", "racecheck"}, "cuda", "/bin/false");
  Kernel kernel;
  kernel.name = "k";
  SanitizeTarget target;
  target.kernel = &kernel;
  target.shape = "s";
  ShapeGate shape;
  shape.verdict = Verdict::kSame;
  std::vector<std::string> notes;
  sanitizer.check(target, shape, notes);
  sanitizer.check(target, shape, notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("compute-sanitizer not run: compute-sanitizer is not installed", 0), 0u)
      << notes[0];
  EXPECT_EQ(shape.verdict, Verdict::kSame);
}

}  // namespace
}  // namespace kgate
