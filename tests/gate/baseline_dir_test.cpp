// Where stored baselines live by default (gate/baseline_dir.h): beside kgate.json, but for an
// example bundled with a tree that has a top-level baselines/ folder (kgate's own examples/),
// in that folder's baselines/<example>/. The commands are run end to end on a small host kernel
// laid out as kgate's tree is: record writes there, and show, compare and drift find it there
// without --dir.
#include "gate/baseline_dir.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/manifest_loader.h"
#include "gate/baseline_recorder.h"
#include "runner/backend.h"
#include "scale_fixture.h"
#include "support/test_support.h"

namespace kgate::testing {
namespace {

namespace fs = std::filesystem;

TEST(DefaultBaselineDir, ABundledExampleUsesTheTreesBaselinesFolder) {
  TempDir tree;
  fs::create_directories(tree / "examples/mini");
  fs::create_directories(tree / "baselines");
  EXPECT_EQ(default_baseline_dir(tree / "examples/mini"), tree / "baselines/mini");
  // A trailing separator or a dot names the same folder.
  EXPECT_EQ(default_baseline_dir(tree.path() / "examples/mini/"), tree / "baselines/mini");
  EXPECT_EQ(default_baseline_dir(tree.path() / "examples/mini/."), tree / "baselines/mini");
}

TEST(DefaultBaselineDir, WithoutATopLevelBaselinesFolderTheyStayBesideTheManifest) {
  TempDir tree;
  fs::create_directories(tree / "examples/mini");
  EXPECT_EQ(default_baseline_dir(tree / "examples/mini"), tree / "examples/mini/baselines");
  // A file named baselines is no baselines folder.
  write(tree / "baselines", "not a folder");
  EXPECT_EQ(default_baseline_dir(tree / "examples/mini"), tree / "examples/mini/baselines");
}

TEST(DefaultBaselineDir, AManifestOutsideExamplesKeepsItsOwnBaselines) {
  TempDir tree;
  fs::create_directories(tree / "kernels/mini");
  fs::create_directories(tree / "examples/mini/nested");
  fs::create_directories(tree / "baselines");
  EXPECT_EQ(default_baseline_dir(tree / "kernels/mini"), tree / "kernels/mini/baselines");
  EXPECT_EQ(default_baseline_dir(tree / "examples/mini/nested"),
            tree / "examples/mini/nested/baselines");
  // The tree's root itself (a repository whose kgate.json is at the top) keeps baselines/.
  EXPECT_EQ(default_baseline_dir(tree.path()), tree.path() / "baselines");
}

// kgate's layout in miniature: <tree>/examples/scale (a host kernel) and <tree>/baselines/.
class BundledExample : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string manifest = kManifest;
    // Few samples: where the files go, not the statistics, is under test here.
    manifest.replace(manifest.find("\"reference\""), 0, "\"timing\": {\"samples\": 15},\n    ");
    write(example / "kgate.json", manifest);
    write(example / "src/scale.cpp", kKernel);
    write(example / "src/include/common.h", "#pragma once\n#define PASSES 1\n");
    write(example / "ref/scale_ref.cpp", kReference);
    write(tree / "baselines/README.md", "stored baselines of the bundled examples\n");
  }
  // The one baseline file of the example's kernel under dir (any device folder), or empty.
  static fs::path stored_file(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return {};
    for (const auto& device : fs::directory_iterator(dir))
      if (fs::exists(device.path() / "scale.json")) return device.path() / "scale.json";
    return {};
  }

  TempDir tree;
  fs::path example = tree / "examples/scale";
};

TEST_F(BundledExample, RecordShowCompareAndDriftFindTheTopLevelBaselines) {
  // Recorded from the tree's root with a relative path, as the README's commands run.
  for (const char* revision : {"r1", "r2"}) {
    auto rec = run_kgate(
        {"baseline", "record", "examples/scale", "--backend", "host", "--revision", revision},
        tree.path().string());
    ASSERT_EQ(rec.exit_code, 0) << rec.out << rec.err;
    EXPECT_NE(rec.err.find("recorded baselines/scale/host"), std::string::npos) << rec.err;
  }
  fs::path file = stored_file(tree / "baselines/scale");
  ASSERT_FALSE(file.empty()) << "nothing recorded under baselines/scale";
  EXPECT_FALSE(fs::exists(example / "baselines"));
  nlohmann::json j = nlohmann::json::parse(read(file));
  ASSERT_EQ(j["history"].size(), 2u);
  EXPECT_EQ(j["history"][1]["environment"]["revision"], "r2");

  // show from elsewhere, with an absolute path: the same folder.
  auto show = run_kgate({"baseline", "show", example.string()});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out.find("no baselines"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("large"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("small"), std::string::npos) << show.out;

  auto compare = run_kgate({"baseline", "compare", "examples/scale", "--backend", "host"},
                           tree.path().string());
  EXPECT_EQ(compare.err.find("no baseline for"), std::string::npos) << compare.err;
  EXPECT_NE(compare.out.find("in band"), std::string::npos) << compare.out << compare.err;
  EXPECT_NE(compare.out.find("large"), std::string::npos) << compare.out;

  // A planted 30% shift in the stored history is found by drift without --dir. The history is
  // one measured entry with a fixed 1% jitter, so the real entries' noise cannot hide it.
  nlohmann::json measured = j["history"][0];
  j["history"] = nlohmann::json::array();
  for (double factor : {1.0, 1.01, 0.99, 1.0, 1.3, 1.31, 1.29, 1.3}) {
    nlohmann::json e = measured;
    for (auto& s : e["shapes"]) s["median_s"] = s["median_s"].get<double>() * factor;
    j["history"].push_back(e);
  }
  write(file, j.dump());
  auto drift = run_kgate({"baseline", "drift", "examples/scale"}, tree.path().string());
  EXPECT_EQ(drift.exit_code, 0) << drift.err;
  EXPECT_NE(drift.out.find("change point"), std::string::npos) << drift.out;
  EXPECT_EQ(drift.out.find("0 change points"), std::string::npos) << drift.out;
}

TEST_F(BundledExample, WithoutTheTopLevelFolderTheExampleKeepsItsOwn) {
  fs::remove_all(tree / "baselines");
  auto rec = run_kgate({"baseline", "record", example.string(), "--backend", "host"});
  ASSERT_EQ(rec.exit_code, 0) << rec.out << rec.err;
  EXPECT_FALSE(stored_file(example / "baselines").empty());
  EXPECT_FALSE(fs::exists(tree / "baselines"));
}

TEST_F(BundledExample, TheSweepsRecorderWritesToTheTopLevelFolderToo) {
  // kgate sweep records through record_baseline with no folder unless --baselines says.
  auto made = make_backend("host");
  ASSERT_TRUE(made.ok()) << made.error().message;
  auto manifest = load_manifest(example);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  BaselineRecordOptions options;
  options.seed = 5;
  auto recorded = record_baseline(*manifest, manifest->kernels[0], **made, options);
  ASSERT_TRUE(recorded.ok()) << recorded.error().message;
  ASSERT_TRUE(recorded->passed);
  EXPECT_FALSE(recorded->save_error);
  EXPECT_EQ(recorded->file.parent_path().parent_path(), tree / "baselines/scale");
  EXPECT_TRUE(fs::exists(recorded->file));
}

}  // namespace
}  // namespace kgate::testing
