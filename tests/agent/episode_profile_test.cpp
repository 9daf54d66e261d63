// What an episode observes by profiling (agent/episode_profile.h): the
// shape it profiles, the record that survives damage, the prompt's section
// with and without a profile, and a real profile of a host kernel taken in
// a child (the honest degraded summary: no counters on the CPU).
#include <gtest/gtest.h>

#include "agent/episode_profile.h"
#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "support/test_support.h"

namespace kgate {
namespace {

ShapeEvaluation timed(const std::string& shape, const std::string& phase, double s, size_t bytes,
                      bool counts = true) {
  ShapeEvaluation e;
  e.shape = shape;
  e.phase = phase;
  e.best_s = s;
  e.bytes_moved = bytes;
  e.counts = counts;
  return e;
}

TEST(EpisodeProfile, ProfilesTheLargestGatingShapeOfThePhaseThatMatters) {
  std::vector<ShapeEvaluation> t = {
      timed("decode-b1", "decode", 4e-6, 16384), timed("decode-b64", "decode", 9e-6, 1 << 20),
      timed("prefill-8k", "prefill", 90e-6, 128 << 20),
      timed("edge-big", "edge", 200e-6, 512 << 20, false), timed("untimed", "edge", 0, 1 << 30)};
  EXPECT_EQ(profile_shape(t, ""), "prefill-8k") << "report-only and untimed shapes are skipped";
  EXPECT_EQ(profile_shape(t, "decode"), "decode-b64");
  EXPECT_EQ(profile_shape(t, "no-such-phase"), "prefill-8k");
  EXPECT_EQ(profile_shape({timed("edge-big", "edge", 1e-5, 8, false)}, ""), "edge-big")
      << "where no shape gates, a report-only one is still profiled";
  EXPECT_EQ(profile_shape({timed("untimed", "edge", 0, 8)}, ""), "");
}

TEST(EpisodeProfile, ARecordReadsBackAndDamageIsAnErrorNotAnAbort) {
  ProfileObservation o;
  o.iteration = 3;
  o.shape = "prefill-2k";
  o.summary = "rmsnorm / prefill-2k: ...";
  o.bottleneck = "memory_efficient";
  o.data = {{"kernel", "rmsnorm"}, {"shape", "prefill-2k"}, {"backend", "cuda"}};
  o.seconds = 2.5;
  ProfileObservation back = ProfileObservation::from_json(o.to_json());
  EXPECT_EQ(back.iteration, 3);
  EXPECT_EQ(back.shape, "prefill-2k");
  EXPECT_EQ(back.summary, o.summary);
  EXPECT_TRUE(back.ok());
  ASSERT_TRUE(back.profile().has_value());
  EXPECT_EQ(back.profile()->kernel, "rmsnorm");

  const auto damaged = ProfileObservation::from_json({{"iteration", "three"},
                                                      {"data", {{"theoretical_occupancy", "full"}}},
                                                      {"seconds", nullptr}});
  EXPECT_EQ(damaged.iteration, 0);
  EXPECT_FALSE(damaged.profile().has_value()) << "damaged data: no profile, never an abort";
  const auto empty = ProfileObservation::from_json(nlohmann::json::object());
  EXPECT_FALSE(empty.ok());
  EXPECT_FALSE(empty.error.empty());
}

TEST(EpisodeProfile, ThePromptShowsTheProfileOrSaysWhyThereIsNone) {
  std::vector<ShapeEvaluation> t = {timed("prefill-2k", "prefill", 1e-3, 64 << 20)};
  ProfileObservation o;
  o.iteration = 0;
  o.shape = "prefill-2k";
  o.summary = "rmsnorm / prefill-2k on NVIDIA H200: latency-bound with low occupancy.\n";
  o.data = {{"kernel", "rmsnorm"}};
  std::string s = profile_section(&o, t, {}, "cuda");
  EXPECT_NE(s.find("Profile of the current best (the original) on shape prefill-2k"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("latency-bound with low occupancy"), std::string::npos);
  EXPECT_NE(s.find("- prefill-2k (prefill): "), std::string::npos) << s;

  ProfileObservation failed;
  failed.error = "the profiling child hung (900 s)";
  s = profile_section(&failed, t, {}, "cuda");
  EXPECT_NE(s.find("No profile of the current best (the profiling child hung"), std::string::npos)
      << s;
  EXPECT_NE(s.find("Bottleneck class (from timing only): unknown"), std::string::npos) << s;
  EXPECT_NE(profile_section(nullptr, t, {}, "host").find("no hardware counters were read"),
            std::string::npos);
}

TEST(EpisodeProfile, AHostKernelIsProfiledInAChildWithTheDegradedSummary) {
  testing::use_private_compile_cache();
  auto m = load_manifest(testing::fixtures_dir() / "agent" / "sumsq");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("rmsnorm_f32");
  auto backend = make_host_backend();
  ChildProfilerOptions options;
  options.time_limit_s = 120;
  ChildProfiler profiler(*m, *backend, options);
  const std::string shape = k.shapes.front().name;
  ProfileObservation o = profiler.profile(Candidate{}, k, shape);
  ASSERT_TRUE(o.ok()) << o.error;
  EXPECT_EQ(o.shape, shape);
  EXPECT_GT(o.seconds, 0);
  EXPECT_NE(o.summary.find("counters"), std::string::npos) << o.summary;
  EXPECT_NE(o.summary.find("CPU"), std::string::npos) << o.summary;
  ASSERT_TRUE(o.profile().has_value());
  EXPECT_GT(o.profile()->timed_seconds.value_or(0), 0);

  // A candidate that does not compile is the observation's error, not the episode's.
  Candidate broken;
  broken.source_text = "int broken( {\n";
  ProfileObservation b = profiler.profile(broken, k, shape);
  EXPECT_FALSE(b.ok());
  EXPECT_NE(b.error.find("does not compile"), std::string::npos) << b.error;
}

}  // namespace
}  // namespace kgate
