// From an episode's proposal file to a pull request on the local forge, in a
// real git repository holding the example kernels in a subfolder: the files
// (source, kgate.json with the new tunable default), every section of the
// body, and the withdrawal of a pull request the base made obsolete.
#include <gtest/gtest.h>

#include "bot/local_forge.h"
#include "bot/manifest_edit.h"
#include "bot/proposal_import.h"
#include "bot/pull_request_body.h"
#include "bot/pull_request_publisher.h"
#include "bot_test_repo.h"
#include "runner/profile_model/profile_summary.h"

namespace kgate::bot {
namespace {

using testing::git;

// A clone with the example under kernels/, committed on main.
struct ExampleRepo {
  testing::TempDir tmp;
  std::filesystem::path work = tmp / "work";
  std::filesystem::path kernels = work / "kernels";
  std::string base_sha;
  ExampleRepo() {
    std::filesystem::create_directories(work);
    std::filesystem::copy(testing::example_dir(), kernels,
                          std::filesystem::copy_options::recursive);
    git(work, {"init", "-q"});
    git(work, {"add", "-A"});
    git(work, {"commit", "-q", "-m", "kernels"});
    base_sha = git(work, {"rev-parse", "HEAD"});
  }
};

// What agent/proposal.cpp writes for a tuning result on rmsnorm (host).
nlohmann::json tuning_proposal(const std::string& source_text) {
  return {{"version", 1},
          {"kernel", "rmsnorm"},
          {"backend", "host"},
          {"manifest", "kgate.json"},
          {"source", "host/rmsnorm.cpp"},
          {"agent", "tuner"},
          {"seed", 7},
          {"stop_reason", "iteration cap (2) reached"},
          {"iterations_used", 2},
          {"best_iteration", 1},
          {"candidate",
           {{"source_text", source_text},
            {"source_changed", false},
            {"tunables", {{"ACCUMULATORS", 4}}},
            {"tunable_defaults_changed", {{"ACCUMULATORS", 4}}},
            {"flags", nlohmann::json::array()}}},
          {"speedup_geomean", 1.42},
          {"gate_engine", "gate (paired ratio interval, adaptive A/B)"},
          {"device",
           {{"name", "host: Test CPU"},
            {"driver", ""},
            {"runtime", "g++ 12"},
            {"arch", "x86_64"},
            {"peak_sm_clock_mhz", 0}}},
          {"resources_before", {{"registers", -1}, {"stack_bytes", 64}}},
          {"resources_after", {{"registers", -1}, {"stack_bytes", 96}}},
          {"shapes",
           {{{"shape", "decode-b64"},
             {"phase", "decode"},
             {"before_s", 200e-6},
             {"after_s", 140e-6},
             {"ratio", 0.7},
             {"ratio_ci", {0.68, 0.72}},
             {"verdict", "faster"},
             {"max_abs_error", 2.5e-4},
             {"bytes_moved", 1048576}},
            {{"shape", "edge-1x1"},
             {"phase", "edge"},
             {"before_s", 0.13e-6},
             {"after_s", 0.14e-6},
             {"ratio", 1.05},
             {"ratio_ci", {0.87, 1.31}},
             {"verdict", "same"},
             {"note", "+6 ns, below the 100 ns floor (min_change_s)"},
             {"max_abs_error", 0},
             {"bytes_moved", 4}}}},
          {"plan",
           {{{"iteration", 1},
             {"bottleneck", "one dependent chain of additions"},
             {"change", "settings: ACCUMULATORS=4"},
             {"expected_gain", "1.5x"}}}},
          {"reflections",
           {{{"iteration", 1},
             {"outcome", "improved"},
             {"plan", {{"bottleneck", "latency"}, {"change", "settings: ACCUMULATORS=4"}}},
             {"reflection", "Four partial sums hid the add latency."}},
            {{"iteration", 2},
             {"outcome", "no-gain"},
             {"plan", {{"bottleneck", "latency"}, {"change", "settings: ACCUMULATORS=8"}}},
             {"reflection", "Eight sums spilled: no further gain."}}}}};
}

TEST(ProposalImportTest, TuningResultBecomesAPullRequestWithEvidence) {
  ExampleRepo repo;
  const std::string source = testing::read(repo.kernels / "host/rmsnorm.cpp");
  ProposalImportOptions options;
  options.repo_dir = repo.kernels;  // any folder inside the clone
  options.manifest_path = repo.kernels / "kgate.json";
  auto pr = import_proposal(tuning_proposal(source), options);
  ASSERT_TRUE(pr.ok()) << pr.error().message;
  EXPECT_EQ(pr->kernel, "rmsnorm");
  EXPECT_EQ(pr->source_path, "kernels/host/rmsnorm.cpp");
  // The tuned value also becomes the source's own default (its guarded #define).
  std::string tuned = source;
  tuned.replace(tuned.find("#define ACCUMULATORS 1"), 22, "#define ACCUMULATORS 4");
  EXPECT_EQ(pr->candidate_source, tuned);
  EXPECT_EQ(pr->base_branch, "main");
  EXPECT_EQ(pr->base_rev, repo.base_sha);
  ASSERT_EQ(pr->other_files.size(), 1u);
  EXPECT_EQ(pr->other_files[0].path, "kernels/kgate.json");
  EXPECT_NE(pr->other_files[0].text.find("\"ACCUMULATORS\": [4, 1, 2, 8, 16]"), std::string::npos);
  EXPECT_EQ(pr->gpu, "host: Test CPU");
  ASSERT_EQ(pr->shapes.size(), 2u);
  EXPECT_NEAR(pr->shapes[0].change, -0.3, 1e-12);
  EXPECT_NEAR(pr->shapes[0].ci_low, -0.32, 1e-12);
  EXPECT_EQ(pr->shapes[0].verdict, "faster");
  // A shape at the timer's floor says why it counts as unchanged.
  EXPECT_EQ(pr->shapes[1].verdict, "same (+6 ns, below the 100 ns floor (min_change_s))");
  ASSERT_EQ(pr->iterations.size(), 2u);
  EXPECT_NE(pr->iterations[0].plan.find("one dependent chain"), std::string::npos);
  EXPECT_NE(pr->iterations[0].outcome.find("kept as the best"), std::string::npos);
  EXPECT_NE(pr->iterations[1].plan.find("ACCUMULATORS=8"), std::string::npos);
  // The profile shows what moved: time, bandwidth, the stack frame; not what did not.
  EXPECT_NE(pr->profile_before.find("200.00 us, 5.24 GB/s"), std::string::npos)
      << pr->profile_before;
  EXPECT_NE(pr->profile_after.find("140.00 us, 7.49 GB/s (-30.0%)"), std::string::npos)
      << pr->profile_after;
  EXPECT_NE(pr->profile_after.find("stack frame (bytes): 96 (was 64)"), std::string::npos);
  EXPECT_EQ(pr->profile_after.find("registers"), std::string::npos);
  EXPECT_NE(pr->roofline.find("7.49 GB/s on decode-b64"), std::string::npos) << pr->roofline;

  // With a measured ceiling the roofline says where each shape sits.
  options.bandwidth_ceiling = 20e9;
  auto with_roof = import_proposal(tuning_proposal(source), options);
  ASSERT_TRUE(with_roof.ok());
  EXPECT_NE(with_roof->roofline.find("| decode-b64 | 26.2% | 37.4% |"), std::string::npos)
      << with_roof->roofline;

  // Published on the local forge: the branch carries kgate.json's change and
  // the source (no chart: that is in the body), and the body every section a
  // reviewer needs.
  LocalForge forge(repo.work, repo.work / ".kgate");
  PullRequestPublisher publisher(forge, repo.work);
  auto outcome = publisher.propose(*pr);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->action, ProposalAction::kCreated);
  EXPECT_NE(git(repo.work, {"show", "kgate/optimize/rmsnorm:kernels/kgate.json"})
                .find("\"ACCUMULATORS\": [4, 1, 2, 8, 16]"),
            std::string::npos);
  EXPECT_EQ(git(repo.work, {"diff", "--name-only", "main", "kgate/optimize/rmsnorm"}),
            "kernels/host/rmsnorm.cpp\nkernels/kgate.json");
  EXPECT_NE(git(repo.work, {"show", "kgate/optimize/rmsnorm:kernels/host/rmsnorm.cpp"})
                .find("#define ACCUMULATORS 4"),
            std::string::npos);
  auto prs = forge.all_pull_requests();
  ASSERT_TRUE(prs.ok());
  ASSERT_EQ(prs->size(), 1u);
  const std::string& body = (*prs)[0].body;
  EXPECT_EQ((*prs)[0].title, "kgate: rmsnorm 1.42x faster on host: Test CPU");
  for (const std::string& section : std::vector<std::string>{
           "| shape | phase | before | after | change [95% CI] | max error | verdict |",
           "| decode-b64 | decode | 200.00 us | 140.00 us | -30.0% [-32.0%, -28.0%] | 2.5e-04 | "
           "faster |",
           "```mermaid\nxychart-beta", "## Profile", "## Roofline", "<details><summary>Iteration 1",
           "Four partial sums hid the add latency.", "## Reproduce",
           "kgate gate --base " + repo.base_sha.substr(0, 12),
           "kgate optimize rmsnorm --repo kernels", "## Environment", "| compiler | g++ 12 |",
           "| kgate |", "base=" + repo.base_sha})
    EXPECT_NE(body.find(section), std::string::npos) << section << "\n" << body;
}

TEST(ProposalImportTest, AModelsEpisodeIsReproducedByReplayingItsRecordedAnswers) {
  ExampleRepo repo;
  nlohmann::json p = tuning_proposal(testing::read(repo.kernels / "host/rmsnorm.cpp"));
  p["agent"] = "handoff";
  p["episode_id"] = "20261203T120000Z-rmsnorm-1";
  ProposalImportOptions options;
  options.repo_dir = repo.kernels;
  options.manifest_path = repo.kernels / "kgate.json";
  auto pr = import_proposal(p, options);
  ASSERT_TRUE(pr.ok()) << pr.error().message;
  ASSERT_GE(pr->reproduce.size(), 2u);
  EXPECT_EQ(pr->reproduce.back(),
            "kgate optimize rmsnorm --repo kernels --backend host --agent replay --answers "
            "<state dir>/episodes/20261203T120000Z-rmsnorm-1/turns --seed 7 --new");
  EXPECT_EQ(pr->reproduce[pr->reproduce.size() - 2].rfind("# handoff's answers", 0), 0u);
  // The tuner's episode is simply run again.
  auto tuned =
      import_proposal(tuning_proposal(testing::read(repo.kernels / "host/rmsnorm.cpp")), options);
  ASSERT_TRUE(tuned.ok());
  EXPECT_NE(tuned->reproduce.back().find("--agent tuner --seed 7 --new"), std::string::npos);
}

TEST(ProposalImportTest, ObsoleteWhenTheKernelChangedOnTheBase) {
  ExampleRepo repo;
  const std::string source = testing::read(repo.kernels / "host/rmsnorm.cpp");
  ProposalImportOptions options;
  options.repo_dir = repo.work;
  options.manifest_path = repo.kernels / "kgate.json";
  auto pr = import_proposal(tuning_proposal(source), options);
  ASSERT_TRUE(pr.ok()) << pr.error().message;
  LocalForge forge(repo.work, repo.work / ".kgate");
  PullRequestPublisher publisher(forge, repo.work);
  ASSERT_TRUE(publisher.propose(*pr).ok());
  const std::vector<std::string> paths = {"kernels/host/rmsnorm.cpp", "kernels/kgate.json"};

  // Nothing changed on the base: a run that found nothing is noise, the pull request stays.
  auto kept = publisher.withdraw_if_obsolete("rmsnorm", "main", paths);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(*kept, 0);
  // A commit that does not touch the kernel: still not obsolete.
  testing::write(repo.work / "NOTES.md", "notes\n");
  git(repo.work, {"add", "-A"});
  git(repo.work, {"commit", "-q", "-m", "notes"});
  kept = publisher.withdraw_if_obsolete("rmsnorm", "main", paths);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, 0);
  EXPECT_EQ(forge.all_pull_requests()->at(0).state, "open");

  // The kernel changed on main: the pull request's "before" is gone.
  testing::write(repo.kernels / "host/rmsnorm.cpp", source + "// rewritten upstream\n");
  git(repo.work, {"commit", "-q", "-am", "rmsnorm rewritten"});
  auto closed = publisher.withdraw_if_obsolete("rmsnorm", "main", paths);
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  EXPECT_EQ(*closed, 1);
  EXPECT_EQ(forge.all_pull_requests()->at(0).state, "closed");
  auto comments = forge.comments(1);
  ASSERT_TRUE(comments.ok());
  ASSERT_EQ(comments->size(), 1u);
  EXPECT_NE((*comments)[0].find("`kernels/host/rmsnorm.cpp` changed on the base"),
            std::string::npos)
      << (*comments)[0];
}

TEST(ProposalImportTest, ClearErrorsForWhatCannotBeProposed) {
  ExampleRepo repo;
  ProposalImportOptions options;
  options.repo_dir = repo.work;
  options.manifest_path = repo.kernels / "kgate.json";
  auto bad_tunable = tuning_proposal("x");
  bad_tunable["candidate"]["tunable_defaults_changed"] = {{"ACCUMULATORS", 3}};
  auto r = import_proposal(bad_tunable, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("has no value 3"), std::string::npos) << r.error().message;

  testing::TempDir elsewhere;  // a manifest outside the clone
  std::filesystem::copy(testing::example_dir(), elsewhere / "k",
                        std::filesystem::copy_options::recursive);
  options.manifest_path = elsewhere / "k" / "kgate.json";
  r = import_proposal(tuning_proposal("x"), options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is not inside the git repository"), std::string::npos)
      << r.error().message;

  git(repo.work, {"checkout", "-q", "--detach"});
  options.manifest_path = repo.kernels / "kgate.json";
  r = import_proposal(tuning_proposal("x"), options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("detached HEAD"), std::string::npos) << r.error().message;
}

// A rewrite with its own launch on the GPU, profiled before and after
// (agent/proposal.cpp writes "launch", "launch_before" and "profiles").
TEST(ProposalImportTest, ALaunchChangeReachesKgateJsonAndTheProfileIsComparedInTheBody) {
  ExampleRepo repo;
  const std::string source = testing::read(repo.kernels / "csrc/rmsnorm.cu");
  nlohmann::json p = tuning_proposal(source + "// one warp per row\n");
  p["backend"] = "cuda";
  p["source"] = "csrc/rmsnorm.cu";
  p["device"]["name"] = "NVIDIA H200";
  p["candidate"]["source_changed"] = true;
  p["candidate"]["tunables"] = nlohmann::json::object();
  p["candidate"]["tunable_defaults_changed"] = nlohmann::json::object();
  p["candidate"]["launch"] = {
      {"grid", {"ceil_div(rows, 8)"}}, {"block", {32, 8}}, {"shared_bytes", 0}};
  p["candidate"]["launch_before"] = {{"grid", {"rows"}}, {"block", {"BLOCK"}}, {"shared_bytes", 0}};
  auto profile = [](int iteration, uint32_t grid, uint32_t block, double seconds) {
    profile_model::ProfileData d;
    d.kernel = "rmsnorm";
    d.shape = "prefill-2k";
    d.backend = "cuda";
    d.device = "NVIDIA H200";
    d.dims.grid[0] = grid;
    d.dims.block[0] = block;
    d.timed_seconds = seconds;
    d.missing["hardware counters"] = "recorded without counters for this test";
    return nlohmann::json{{"iteration", iteration},
                          {"shape", "prefill-2k"},
                          {"summary", render_summary(d)},
                          {"bottleneck", "unknown"},
                          {"data", summary_json(d)}};
  };
  p["profiles"] = {{"before", profile(0, 2048, 256, 200e-6)},
                   {"after", profile(1, 256, 32, 100e-6)}};

  ProposalImportOptions options;
  options.repo_dir = repo.kernels;
  options.manifest_path = repo.kernels / "kgate.json";
  auto pr = import_proposal(p, options);
  ASSERT_TRUE(pr.ok()) << pr.error().message;
  ASSERT_EQ(pr->other_files.size(), 1u);
  EXPECT_NE(pr->other_files[0].text.find(
                "\"launch\": {\"grid\": [\"ceil_div(rows, 8)\"], \"block\": [32, 8]}"),
            std::string::npos)
      << pr->other_files[0].text;
  EXPECT_NE(pr->launch_change.find("your launcher must change too"), std::string::npos);
  EXPECT_NE(pr->launch_change.find("It was grid [rows], block [BLOCK], shared_bytes 0"),
            std::string::npos)
      << pr->launch_change;
  EXPECT_EQ(pr->profile_where, "shape `prefill-2k`, NVIDIA H200 (cuda)");
  EXPECT_NE(pr->profile_comparison.find("| launch | grid (2048, 1, 1) block (256, 1, 1) | grid "
                                        "(256, 1, 1) block (32, 1, 1) | changed |"),
            std::string::npos)
      << pr->profile_comparison;
  EXPECT_NE(pr->profile_comparison.find("2.00x faster"), std::string::npos)
      << pr->profile_comparison;

  const std::string body = pull_request_body(*pr, "");
  for (const std::string& section :
       {std::string("## This changes the launch"), std::string("## Profile"),
        std::string("Profiled with `kgate profile` on shape `prefill-2k`, NVIDIA H200 (cuda)."),
        std::string("| kernel time |")})
    EXPECT_NE(body.find(section), std::string::npos) << section << "\n" << body;
  EXPECT_LT(body.find("## This changes the launch"), body.find("## Per shape"))
      << "a reviewer sees the launch change before the numbers";

  // Without profiles the Profile section is the timing one, with no comparison.
  p.erase("profiles");
  auto plain = import_proposal(p, options);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->profile_comparison, "");
  EXPECT_EQ(pull_request_body(*plain, "").find("Profiled with"), std::string::npos);
}

}  // namespace
}  // namespace kgate::bot
