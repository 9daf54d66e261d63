// `kgate gate` end to end on real git repositories made with libgit2, with
// the host backend: unchanged kernels pass, a 2x slowdown fails naming its
// shapes, a wrong kernel fails on correctness, unrelated changes gate
// nothing, bad revisions exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/subprocess.h"
#include "git_fixture.h"
#include "scale_fixture.h"
#include "support/test_support.h"

namespace kgate::testing {
namespace {

class GateCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = std::make_unique<GitFixture>(dir.path() / "repo");
    repo->write("kgate.json", kManifest);
    repo->write("src/scale.cpp", kKernel);
    repo->write("src/include/common.h", "#pragma once\n#define PASSES 1\n");
    repo->write("ref/scale_ref.cpp", kReference);
    repo->write("README.md", "kernels\n");
    base = repo->commit("kernels");
  }

  CommandOutcome gate(const std::string& base_rev, const std::string& head_rev,
                      std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"gate",
                                     "--repo",
                                     repo->path().string(),
                                     "--base",
                                     base_rev,
                                     "--head",
                                     head_rev,
                                     "--backend",
                                     "host",
                                     "--json",
                                     (dir / "report.json").string(),
                                     "--seed",
                                     "7"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kgate(args);
  }
  nlohmann::json report() { return nlohmann::json::parse(read(dir / "report.json")); }

  TempDir dir;
  std::unique_ptr<GitFixture> repo;
  std::string base;
};

TEST_F(GateCommand, UnchangedKernelPasses) {
  // A comment-only edit: the kernel is gated (its source changed) and is the same.
  repo->write("src/scale.cpp", std::string("// reformatted\n") + kKernel);
  std::string head = repo->commit("comment");
  auto out =
      gate(base, head,
           {"--markdown", (dir / "gate.md").string(), "--junit", (dir / "junit.xml").string()});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  nlohmann::json j = report();
  ASSERT_EQ(j["kernels"].size(), 1u) << j.dump(1);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_EQ(j["kernels"][0]["why"], "src/scale.cpp changed");
  for (const auto& s : j["kernels"][0]["shapes"]) {
    EXPECT_FALSE(s["fails"].get<bool>()) << s.dump(1);
    EXPECT_GT(s["rounds"].get<int>(), 10);
  }
  std::string md = read(dir / "gate.md");
  EXPECT_NE(md.find("| scale | small | decode |"), std::string::npos) << md;
  std::string junit = read(dir / "junit.xml");
  EXPECT_NE(junit.find("tests=\"2\" failures=\"0\""), std::string::npos) << junit;
}

TEST_F(GateCommand, TwiceAsSlowFailsNamingTheShapes) {
  // The slowdown comes through an included header: include scanning finds it.
  repo->write("src/include/common.h", "#pragma once\n#define PASSES 2\n");
  std::string head = repo->commit("slower");
  repo->branch("feature", head);
  TempDir summary_dir;
  CommandOptions options;
  options.timeout_s = 300;
  options.env = {{"GITHUB_ACTIONS", "true"},
                 {"GITHUB_STEP_SUMMARY", (summary_dir / "summary.md").string()}};
  auto run = run_command({KGATE_BINARY, "gate", "--repo", repo->path().string(), "--base", base,
                          "--head", "feature", "--backend", "host", "--json",
                          (dir / "report.json").string(), "--junit", (dir / "junit.xml").string()},
                         options);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->exit_code, 1) << run->out << run->err;
  EXPECT_NE(run->out.find("gate: FAILED"), std::string::npos) << run->out;
  nlohmann::json j = report();
  EXPECT_EQ(j["kernels"][0]["why"], "src/include/common.h changed");
  int failing = 0;
  for (const auto& s : j["kernels"][0]["shapes"]) {
    if (!s["fails"].get<bool>()) continue;
    ++failing;
    EXPECT_EQ(s["verdict"], "slower");
    EXPECT_GT(s["interval"]["estimate"].get<double>(), 1.5) << s.dump(1);
    std::string name = s["shape"];
    EXPECT_NE(
        run->out.find("::error file=src/scale.cpp,line=9,title=kgate%3A scale slower on " + name),
        std::string::npos)
        << run->out;
  }
  EXPECT_EQ(failing, 2) << j.dump(1);
  std::string summary = read(summary_dir / "summary.md");
  EXPECT_NE(summary.find("## kgate: failed"), std::string::npos) << summary;
  EXPECT_NE(read(dir / "junit.xml").find("failures=\"2\""), std::string::npos);
}

TEST_F(GateCommand, VerdictIsPublishedAsACheckRunThroughTheLocalForge) {
  repo->write("src/scale.cpp", std::string("// reformatted\n") + kKernel);
  std::string head = repo->commit("comment");
  auto out = gate(base, head, {"--forge", "local"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  std::filesystem::path checks = repo->path() / ".kgate" / "checks";
  ASSERT_TRUE(std::filesystem::is_directory(checks)) << out.err;
  bool found = false;
  for (const auto& entry : std::filesystem::directory_iterator(checks)) {
    if (entry.path().extension() != ".json") continue;
    nlohmann::json check = nlohmann::json::parse(read(entry.path()));
    EXPECT_EQ(check.value("head_sha", ""), head) << check.dump(1);
    EXPECT_EQ(check.value("conclusion", ""), "success") << check.dump(1);
    found = true;
  }
  EXPECT_TRUE(found) << "no check run written under " << checks;
}

TEST_F(GateCommand, WrongKernelFailsOnCorrectness) {
  repo->write("src/scale.cpp", kWrongKernel);
  std::string head = repo->commit("wrong");
  auto out = gate(base, head);
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  nlohmann::json j = report();
  for (const auto& s : j["kernels"][0]["shapes"]) {
    EXPECT_EQ(s["verdict"], "incorrect") << s.dump(1);
    EXPECT_NE(s["reason"].get<std::string>().find("wrong result"), std::string::npos);
  }
  EXPECT_NE(out.out.find("incorrect"), std::string::npos);
}

TEST_F(GateCommand, UnrelatedChangeGatesNothing) {
  repo->write("README.md", "kernels, documented\n");
  repo->write("docs/notes.md", "notes\n");
  std::string head = repo->commit("docs");
  auto out = gate(base, head);
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_TRUE(report()["kernels"].empty());
  EXPECT_NE(out.out.find("no kernel changed"), std::string::npos) << out.out;
}

TEST_F(GateCommand, AllGatesUnchangedKernelsAndNewKernelsAreCheckedOnly) {
  repo->write("README.md", "kernels, documented\n");
  std::string docs = repo->commit("docs");
  auto out = gate(base, docs, {"--all", "--budget", "0.1"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_EQ(report()["kernels"][0]["why"], "--all");

  // A second kernel entry appears: it has no base, so it is checked, not timed.
  nlohmann::json manifest = nlohmann::json::parse(kManifest);
  nlohmann::json twin = manifest["kernels"][0];
  twin["name"] = "scale_twin";
  manifest["kernels"].push_back(twin);
  repo->write("kgate.json", manifest.dump(2));
  std::string head = repo->commit("twin");
  out = gate(docs, head);
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  nlohmann::json j = report();
  ASSERT_EQ(j["kernels"].size(), 1u) << j.dump(1);
  EXPECT_EQ(j["kernels"][0]["kernel"], "scale_twin");
  EXPECT_EQ(j["kernels"][0]["why"], "new kernel");
  for (const auto& s : j["kernels"][0]["shapes"]) EXPECT_EQ(s["verdict"], "new");
}

TEST_F(GateCommand, ManifestEntryChangeGatesTheKernel) {
  std::string manifest = kManifest;
  manifest.replace(manifest.find("\"rtol\": 1e-4"), 12, "\"rtol\": 2e-4");
  repo->write("kgate.json", manifest);
  std::string head = repo->commit("tolerance");
  auto out = gate(base, head, {"--budget", "0.1"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_EQ(report()["kernels"][0]["why"], "manifest entry changed");
}

// Nothing a gate prints or writes names the temporary folder it read the
// revisions into.
void expect_no_scratch_paths(const std::string& what, const std::string& text) {
  EXPECT_EQ(text.find("kgate-gate-"), std::string::npos) << what << ":\n" << text;
}

TEST_F(GateCommand, BrokenHeadManifestFailsTheCheckWithAFullReport) {
  // A count that evaluates to 0 for a shape: the manifest does not load.
  std::string manifest = kManifest;
  manifest.replace(manifest.find("\"count\": \"n\", \"role\""), 12, "\"count\": \"n - 8192\"");
  repo->write("kgate.json", manifest);
  std::string head = repo->commit("broken manifest");
  auto out = gate(base, head,
                  {"--markdown", (dir / "gate.md").string(), "--junit",
                   (dir / "junit.xml").string(), "--forge", "local"});
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  EXPECT_NE(out.out.find("gate: FAILED"), std::string::npos) << out.out;
  nlohmann::json j = report();
  EXPECT_FALSE(j["passed"].get<bool>());
  std::string why = j.value("manifest_error", "");
  EXPECT_EQ(why.rfind("head (" + head.substr(0, 7) +
                          "): kgate.json: kernels[0].args[0].count: evaluates to 0 for shape "
                          "'small'",
                      0),
            0u)
      << why;
  std::string md = read(dir / "gate.md"), junit = read(dir / "junit.xml");
  EXPECT_NE(md.find("kgate.json does not load"), std::string::npos) << md;
  EXPECT_NE(md.find("kernels[0].args[0].count"), std::string::npos) << md;
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
  bool published = false;
  for (const auto& entry :
       std::filesystem::directory_iterator(repo->path() / ".kgate" / "checks")) {
    if (entry.path().extension() != ".json") continue;
    nlohmann::json check = nlohmann::json::parse(read(entry.path()));
    EXPECT_EQ(check.value("conclusion", ""), "failure") << check.dump(1);
    published = true;
  }
  EXPECT_TRUE(published);
  for (const auto& [what, text] :
       std::vector<std::pair<std::string, std::string>>{{"stdout", out.out},
                                                        {"stderr", out.err},
                                                        {"json", j.dump()},
                                                        {"markdown", md},
                                                        {"junit", junit}})
    expect_no_scratch_paths(what, text);
}

TEST_F(GateCommand, BrokenBaseManifestIsANoteWithoutScratchPaths) {
  std::string manifest = kManifest;
  manifest.replace(manifest.find("\"count\": \"n\", \"role\""), 12, "\"count\": \"n - 8192\"");
  repo->write("kgate.json", manifest);
  std::string broken = repo->commit("broken manifest");
  repo->write("kgate.json", kManifest);
  std::string fixed = repo->commit("fixed manifest");
  auto out = gate(broken, fixed, {"--budget", "0.1"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  nlohmann::json j = report();
  ASSERT_FALSE(j["notes"].empty()) << j.dump(1);
  std::string note = j["notes"][0];
  EXPECT_NE(note.find("the base's kgate.json does not load (base (" + broken.substr(0, 7) +
                      "): kgate.json: kernels[0].args[0].count"),
            std::string::npos)
      << note;
  expect_no_scratch_paths("stdout", out.out);
  expect_no_scratch_paths("stderr", out.err);
  expect_no_scratch_paths("json", j.dump());
}

TEST_F(GateCommand, CompileErrorsNameTheFileAsTheRepositoryHasIt) {
  repo->write("src/scale.cpp", std::string(kKernel) + "this does not compile\n");
  std::string head = repo->commit("typo");
  auto out = gate(base, head);
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  nlohmann::json j = report();
  std::string error = j["kernels"][0]["head_compile_error"];
  EXPECT_NE(error.find("scale.cpp"), std::string::npos) << error;
  expect_no_scratch_paths("compile error", error);
  expect_no_scratch_paths("stderr", out.err);
  expect_no_scratch_paths("stdout", out.out);
}

TEST_F(GateCommand, SanitizeKernelsIsANoteOnTheHostAndChecksItsTools) {
  repo->write("src/scale.cpp", std::string("// reformatted\n") + kKernel);
  std::string head = repo->commit("comment");
  auto out = gate(base, head, {"--budget", "0.1", "--sanitize-kernels", "memcheck,racecheck"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  nlohmann::json j = report();
  ASSERT_EQ(j["kernels"][0]["notes"].size(), 1u) << j.dump(1);
  EXPECT_NE(j["kernels"][0]["notes"][0].get<std::string>().find(
                "compute-sanitizer (memcheck, racecheck) not run"),
            std::string::npos);
  auto bad = gate(base, head, {"--sanitize-kernels", "memcheck,valgrind"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("'valgrind' is not memcheck"), std::string::npos) << bad.err;
}

TEST_F(GateCommand, BadRevisionsExitTwo) {
  auto out = gate("no-such-branch", base);
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("revision 'no-such-branch' not found"), std::string::npos) << out.err;
  out = gate(base, "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("--head"), std::string::npos) << out.err;
  auto not_repo = run_kgate({"gate", "--repo", dir.path().string(), "--base", "a", "--head", "b"});
  EXPECT_EQ(not_repo.exit_code, 2) << not_repo.err;
  EXPECT_NE(not_repo.err.find("not a git repository"), std::string::npos) << not_repo.err;
}

}  // namespace
}  // namespace kgate::testing
