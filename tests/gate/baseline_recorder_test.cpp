// The one baseline recorder (gate/baseline_recorder.h) that `kgate baseline
// record` and `kgate sweep` share, in process with the host backend: an entry
// per call appended to <dir>/<gpu>/<kernel>.json with the source's hash and
// the revision; a kernel that fails its checks writes nothing; a damaged
// file is an error value and is left as it was.
#include "gate/baseline_recorder.h"

#include <gtest/gtest.h>

#include "core/hash.h"
#include "core/manifest_loader.h"
#include "runner/backend.h"
#include "scale_fixture.h"
#include "support/test_support.h"

namespace kgate::testing {
namespace {

class BaselineRecorder : public ::testing::Test {
 protected:
  void SetUp() override {
    write(dir / "kgate.json", kManifest);
    write(dir / "src/include/common.h", "#pragma once\n#define PASSES 1\n");
    write(dir / "ref/scale_ref.cpp", kReference);
    auto made = make_backend("host");
    ASSERT_TRUE(made.ok()) << made.error().message;
    backend = std::move(made.value());
    options.dir = dir / "baselines";
    options.seed = 3;
  }
  Manifest manifest() {
    auto m = load_manifest(dir.path());
    EXPECT_TRUE(m.ok()) << m.error().message;
    return *m;
  }

  TempDir dir;
  std::unique_ptr<Backend> backend;
  BaselineRecordOptions options;
};

TEST_F(BaselineRecorder, AppendsAnEntryPerCallWithTheSourceHashAndRevision) {
  write(dir / "src/scale.cpp", kKernel);
  Manifest m = manifest();
  options.revision = "abc1234";
  auto first = record_baseline(m, m.kernels[0], *backend, options);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->passed);
  EXPECT_FALSE(first->save_error);
  EXPECT_EQ(first->history, 1u);
  EXPECT_EQ(first->file.parent_path().parent_path(), dir / "baselines");
  EXPECT_EQ(first->file.filename(), "scale.json");
  EXPECT_EQ(first->entry.environment.source_hash, sha256_file(dir / "src/scale.cpp"));
  EXPECT_EQ(first->entry.environment.revision, "abc1234");
  EXPECT_EQ(first->entry.shapes.size(), 2u);
  for (const BaselineShape& s : first->entry.shapes) EXPECT_GT(s.median_s, 0) << s.shape;

  auto second = record_baseline(m, m.kernels[0], *backend, options);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->history, 2u);
  EXPECT_EQ(second->file, first->file);
  auto stored = load_baseline(first->file);
  ASSERT_TRUE(stored.ok() && *stored);
  EXPECT_EQ((*stored)->history.size(), 2u);
}

TEST_F(BaselineRecorder, AKernelThatFailsItsChecksWritesNothing) {
  write(dir / "src/scale.cpp", kWrongKernel);
  Manifest m = manifest();
  auto recorded = record_baseline(m, m.kernels[0], *backend, options);
  ASSERT_TRUE(recorded.ok()) << recorded.error().message;
  EXPECT_FALSE(recorded->passed);
  EXPECT_FALSE(std::filesystem::exists(dir / "baselines"));
}

TEST_F(BaselineRecorder, ADamagedFileIsAnErrorValueAndIsLeftAsItWas) {
  write(dir / "src/scale.cpp", kKernel);
  Manifest m = manifest();
  auto first = record_baseline(m, m.kernels[0], *backend, options);
  ASSERT_TRUE(first.ok() && first->passed && !first->save_error);
  write(first->file, "{ not json");
  auto again = record_baseline(m, m.kernels[0], *backend, options);
  ASSERT_TRUE(again.ok()) << again.error().message;
  ASSERT_TRUE(again->save_error);
  EXPECT_NE(again->save_error->message.find("scale.json"), std::string::npos)
      << again->save_error->message;
  EXPECT_EQ(read(first->file), "{ not json");
}

}  // namespace
}  // namespace kgate::testing
