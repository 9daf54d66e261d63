// Host reference outputs on disk: found only under everything that
// determines them, read back bit for bit, torn or corrupt files are misses
// (and removed), the folder stays under its capacity (least recently used
// first), concurrent writers of one key leave one whole entry, and the
// harness's reference sets read a stored entry instead of computing it.
#include "runner/reference_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>

#include "core/manifest_loader.h"
#include "runner/reference.h"
#include "support/test_support.h"

namespace kgate {
namespace {

namespace fs = std::filesystem;

class ReferenceStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }
  void SetUp() override {
    auto m = load_manifest(kgate::testing::fixtures_dir() / "bad-kernels");
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest = *m;
    kernel = manifest.kernel("scale");
    small = plan("small");
  }
  LaunchPlan plan(const std::string& shape) {
    auto p = plan_launch(*kernel, nullptr, *kernel->shape(shape), {});
    EXPECT_TRUE(p.ok());
    return *p;
  }
  // Outputs for `p`: element i of output 0 is i + offset, a NaN at 3.
  DoubleData outputs(const LaunchPlan& p, double offset) {
    DoubleData out(p.args.size());
    out[0].resize(p.args[0].count);
    for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = i + offset;
    out[0][3] = std::nan("");
    return out;
  }
  std::vector<fs::path> files(const std::string& extension = ".kref") {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir.path() / "refs"))
      if (e.path().extension() == extension || extension.empty()) out.push_back(e.path());
    return out;
  }

  testing::TempDir dir;
  Manifest manifest;
  const Kernel* kernel = nullptr;
  LaunchPlan small;
};

TEST_F(ReferenceStoreTest, ReadsBackWhatItStoredBitForBit) {
  ReferenceStore store(dir / "refs", size_t{1} << 30);
  const std::string key = ReferenceStore::key("program", small, 7);
  EXPECT_FALSE(store.load(key, small).has_value());
  auto out = outputs(small, 0.5);
  ASSERT_TRUE(store.store(key, small, out).ok());
  auto back = store.load(key, small);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->size(), small.args.size());
  ASSERT_EQ((*back)[0].size(), out[0].size());
  EXPECT_EQ(std::memcmp((*back)[0].data(), out[0].data(), out[0].size() * 8), 0);
  EXPECT_TRUE((*back)[1].empty());  // an input: nothing stored
  EXPECT_EQ(files().size(), 1u);
  EXPECT_EQ(files("").size(), 1u) << "no temporary file is left";
}

TEST_F(ReferenceStoreTest, TheKeyCoversEverythingThatDeterminesTheOutputs) {
  const std::string key = ReferenceStore::key("program", small, 7);
  EXPECT_EQ(key, ReferenceStore::key("program", small, 7));
  EXPECT_EQ(key.size(), 64u);
  EXPECT_NE(key, ReferenceStore::key("program", small, 8));        // the seed
  EXPECT_NE(key, ReferenceStore::key("other build", small, 7));    // the reference's build
  EXPECT_NE(key, ReferenceStore::key("program", plan("odd"), 7));  // the counts
  // A scalar's value, an input's distribution: a copy of the kernel with one thing changed.
  Kernel changed = *kernel;
  changed.args[3].float_value = 2.5;
  auto p = plan_launch(changed, nullptr, *changed.shape("small"), {});
  ASSERT_TRUE(p.ok());
  EXPECT_NE(key, ReferenceStore::key("program", *p, 7));
  changed = *kernel;
  changed.args[1].init.stddev = 2;
  p = plan_launch(changed, nullptr, *changed.shape("small"), {});
  EXPECT_NE(key, ReferenceStore::key("program", *p, 7));
  changed = *kernel;
  changed.args[1].dtype = DType::kFloat16;
  p = plan_launch(changed, nullptr, *changed.shape("small"), {});
  EXPECT_NE(key, ReferenceStore::key("program", *p, 7));
}

TEST_F(ReferenceStoreTest, ATornOrCorruptEntryIsAMissAndIsRemoved) {
  ReferenceStore store(dir / "refs", size_t{1} << 30);
  const std::string key = ReferenceStore::key("program", small, 7);
  ASSERT_TRUE(store.store(key, small, outputs(small, 0)).ok());
  fs::path file = files().at(0);
  {  // one bit flipped in the data
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    char c = 0;
    f.read(&c, 1);
    c ^= 0x10;
    f.seekp(200);
    f.write(&c, 1);
  }
  EXPECT_FALSE(store.load(key, small).has_value());
  EXPECT_FALSE(fs::exists(file)) << "a corrupt entry is removed";
  ASSERT_TRUE(store.store(key, small, outputs(small, 0)).ok());
  fs::resize_file(file, fs::file_size(file) - 9);  // torn: the end is missing
  EXPECT_FALSE(store.load(key, small).has_value());
  // An entry for another plan under the same name (a hash collision) is refused.
  ASSERT_TRUE(store.store(key, small, outputs(small, 0)).ok());
  EXPECT_FALSE(store.load(key, plan("odd")).has_value());
}

TEST_F(ReferenceStoreTest, StaysUnderItsCapacityDroppingTheLeastRecentlyUsed) {
  const size_t entry = fs::file_size([&] {
    ReferenceStore probe(dir / "probe", size_t{1} << 30);
    EXPECT_TRUE(probe.store(ReferenceStore::key("p", small, 1), small, outputs(small, 0)).ok());
    return dir / "probe" / (ReferenceStore::key("p", small, 1) + ".kref");
  }());
  ReferenceStore store(dir / "refs", 5 * entry / 2);  // room for two entries
  auto key = [&](uint64_t seed) { return ReferenceStore::key("p", small, seed); };
  auto age = [&](uint64_t seed, int seconds) {
    fs::last_write_time(dir / "refs" / (key(seed) + ".kref"),
                        fs::file_time_type::clock::now() - std::chrono::seconds(seconds));
  };
  ASSERT_TRUE(store.store(key(1), small, outputs(small, 1)).ok());
  age(1, 300);
  ASSERT_TRUE(store.store(key(2), small, outputs(small, 2)).ok());
  age(2, 200);
  EXPECT_TRUE(store.load(key(1), small).has_value());  // used now: 2 is the oldest
  ASSERT_TRUE(store.store(key(3), small, outputs(small, 3)).ok());
  EXPECT_TRUE(store.load(key(1), small).has_value());
  EXPECT_FALSE(store.load(key(2), small).has_value());
  EXPECT_TRUE(store.load(key(3), small).has_value());
  EXPECT_LE(store.bytes(), store.capacity());
  // An entry larger than half the capacity is not stored at all.
  ReferenceStore tiny(dir / "tiny", entry);
  ASSERT_TRUE(tiny.store(key(1), small, outputs(small, 1)).ok());
  EXPECT_EQ(tiny.bytes(), 0u);
}

TEST_F(ReferenceStoreTest, ConcurrentWritersOfOneKeyLeaveOneWholeEntry) {
  ReferenceStore store(dir / "refs", size_t{1} << 30);
  LaunchPlan big = small;
  big.args[0].count = 1 << 20;  // 8 MB, so the writes overlap
  const std::string key = ReferenceStore::key("program", big, 9);
  auto out = outputs(big, 0.25);
  std::vector<pid_t> children;
  for (int c = 0; c < 4; ++c) {
    pid_t pid = fork();
    if (pid == 0) {
      for (int i = 0; i < 3; ++i) {
        (void)store.store(key, big, out);
        (void)store.load(key, big);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto back = store.load(key, big);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(std::memcmp((*back)[0].data(), out[0].data(), out[0].size() * 8), 0);
  EXPECT_EQ(files("").size(), 1u) << "one entry, no temporary files";
}

TEST_F(ReferenceStoreTest, ReferenceSetsReadAStoredEntryInsteadOfComputing) {
  auto built = build_reference(*kernel, manifest.root);
  ASSERT_TRUE(built.ok() && built->ok);
  auto library = HostLibrary::open(built->program.artifact);
  ASSERT_TRUE(library.ok());
  ReferenceStore store(dir / "refs", size_t{1} << 30);
  // Planted under the key of seed 5: the sets must return it, not what the reference computes.
  auto planted = outputs(small, 1000);
  ASSERT_TRUE(
      store.store(ReferenceStore::key(built->program.cache_key, small, 5), small, planted).ok());
  auto sets = prepare_reference_sets(**library, small, {5, 6}, {&store, built->program.cache_key});
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].expected[0][10], 1010);
  // Seed 6 was computed (the reference scales by 1.5, never 1000 + i) and, being cheap, not stored.
  EXPECT_NE(sets[1].expected[0][10], 1010);
  EXPECT_EQ(files().size(), 1u);
  // The inputs are drawn as always.
  EXPECT_EQ(sets[0].inputs[1], make_inputs(small, 5)[1]);
}

TEST(ReferenceStoreRule, StoresOnlyWhatIsClearlyCheaperToReadThanToCompute) {
  EXPECT_FALSE(ReferenceStore::worth_storing(0.001, 1000));           // cheap to compute
  EXPECT_TRUE(ReferenceStore::worth_storing(60, size_t{1} << 20));    // a minute for 1 MB
  EXPECT_FALSE(ReferenceStore::worth_storing(0.5, size_t{1} << 30));  // 0.5 s for 1 GB
  EXPECT_TRUE(ReferenceStore::worth_storing(4, size_t{1} << 30));
}

}  // namespace
}  // namespace kgate
