// The workflow templates parse and validate with GitHub's workflow parser
// (@actions/workflow-parser, run by validate_workflows.mjs under node), and
// keep the properties that make them safe: least permissions, no
// pull_request_target, fork pull requests kept off the GPU runners.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "serve_fixture.h"

namespace kgate::testing {
namespace {

using nlohmann::json;

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

  const json& gate = results["kgate-gate.yml"]["document"];
  EXPECT_TRUE(gate["on"].contains("pull_request"));
  EXPECT_TRUE(gate["on"].contains("workflow_dispatch"));
  EXPECT_FALSE(gate["on"].contains("pull_request_target"));
  EXPECT_EQ(gate["permissions"], json({{"contents", "read"}}));
  const json& job = gate["jobs"]["gate"];
  EXPECT_EQ(job["strategy"]["matrix"]["gpu"], json({"gpu-a100", "gpu-h100"}));
  // Fork pull requests never run on the self-hosted runners from this trigger.
  EXPECT_NE(job["if"].get<std::string>().find("head.repo.full_name == github.repository"),
            std::string::npos);
  for (const json& step : job["steps"]) {
    if (step.value("uses", "").rfind("actions/checkout", 0) == 0) {
      EXPECT_EQ(step["with"]["persist-credentials"], false);
    }
  }

  const json& nightly = results["kgate-nightly.yml"]["document"];
  EXPECT_TRUE(nightly["on"].contains("schedule"));
  EXPECT_EQ(nightly["permissions"], json({{"contents", "read"}}));

  const json& optimize = results["kgate-optimize.yml"]["document"];
  const json& inputs = optimize["on"]["workflow_dispatch"]["inputs"];
  for (const char* input : {"command", "kernel", "head", "job_id"})
    EXPECT_TRUE(inputs.contains(input)) << input;
  // Every input the service sends for gate jobs is declared (GitHub rejects unknown inputs).
  const json& gate_inputs = gate["on"]["workflow_dispatch"]["inputs"];
  for (const char* input : {"command", "pr", "base", "head", "job_id"})
    EXPECT_TRUE(gate_inputs.contains(input)) << input;
}

// Every `kgate SUBCOMMAND --option` a template runs is an option that
// subcommand declares (its --help), so a renamed option fails here instead of
// on a GPU runner at night.
TEST(Workflows, CommandsUseOptionsTheSubcommandsHave) {
  ASSERT_TRUE(std::filesystem::exists(source_dir() / "tests/node_modules/@actions/workflow-parser"))
      << "run scripts/setup (npm ci in tests/) to install @actions/workflow-parser";
  auto results = validate_templates();
  ASSERT_EQ(results.size(), 3u);
  static const std::regex command(R"(kgate (gate|optimize|sweep|baseline record)\b([^;\n]*))");
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
  for (const char* sub : {"gate", "optimize", "sweep", "baseline record"})
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
