// The example's reference kernels (ref/*.cu, "reference": {"cuda": ...})
// compile without a GPU, with NVRTC for sm_90 and sm_80, as the gate builds
// them (build_device_reference), and a host backend has none to build.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/host/host_backend.h"
#include "runner/reference.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(ReferenceKernels, TheExamplesCompileForTheGpuWithoutOne) {
  testing::TempDir scratch;
  setenv("KGATE_CACHE_DIR", (scratch.path() / "cache").c_str(), 1);
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  int built = 0;
  for (const char* arch : {"sm_90", "sm_80"}) {
    auto cuda = make_cuda_backend(arch);
    for (const Kernel& kernel : manifest->kernels) {
      auto program = build_device_reference(kernel, manifest->root, *cuda);
      ASSERT_TRUE(program.ok()) << kernel.name << " for " << arch << ": "
                                << program.error().message;
      ASSERT_TRUE(program->has_value()) << kernel.name;
      EXPECT_EQ((*program)->entry, kernel.reference.entry);
      ++built;
    }
  }
  EXPECT_EQ(built, 2 * static_cast<int>(manifest->kernels.size()));
  auto host = make_host_backend();
  auto none = build_device_reference(manifest->kernels.front(), manifest->root, *host);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  unsetenv("KGATE_CACHE_DIR");
}

TEST(ReferenceKernels, OneThatDoesNotCompileIsBadInputNamingItsFile) {
  testing::TempDir scratch;
  setenv("KGATE_CACHE_DIR", (scratch.path() / "cache").c_str(), 1);
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok());
  testing::write(scratch / "broken_ref.cu", "extern \"C\" __global__ void rmsnorm_ref( {\n");
  Kernel kernel = *manifest->kernel("rmsnorm");
  kernel.reference.cuda->source = "broken_ref.cu";
  auto cuda = make_cuda_backend("sm_90");
  auto program = build_device_reference(kernel, scratch.path(), *cuda);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.error().kind, ExitCode::kBadInput);
  EXPECT_NE(program.error().message.find("the reference kernel of rmsnorm (broken_ref.cu) does "
                                         "not compile"),
            std::string::npos)
      << program.error().message;
  unsetenv("KGATE_CACHE_DIR");
}

}  // namespace
}  // namespace kgate
