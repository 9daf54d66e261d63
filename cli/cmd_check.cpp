// kgate check [PATH] [--arch sm_80,sm_90]: compile every kernel of every
// backend (and the references, host and GPU) without running them, so CI without a GPU
// catches porting errors. Exit 1 when any compile fails.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/text_table.h"
#include "runner/compile_check.h"
#include "runner/cuda/cuda_toolkit.h"

namespace kgate::cli {
namespace {

struct CheckArgs {
  std::string path = ".";
  std::string arch;  // "sm_80,sm_90"
  std::string kernel;
  std::string backend = "all";
  bool all_tunables = false;
  std::string json;
};

std::string describe(const Variables& tunables) {
  std::string out;
  for (const auto& [k, v] : tunables) out += (out.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return out.empty() ? "-" : out;
}

// --arch, else KGATE_CUDA_ARCH, else GPU 0's: each normalized ("90" -> "sm_90").
Result<std::vector<std::string>> architectures(const std::string& given) {
  std::vector<std::string> out;
  std::stringstream list(given);
  for (std::string a; std::getline(list, a, ',');) {
    if (a.empty()) continue;
    auto arch = cuda::target_arch(0, a);
    if (!arch.ok()) return arch.error().with_context("--arch");
    out.push_back(*arch);
  }
  if (!out.empty()) return out;
  auto arch = cuda::target_arch(0);
  if (!arch.ok())
    return Error::bad_input(
        "no CUDA architecture to compile for: give --arch (e.g. --arch sm_80,sm_90) or set "
        "KGATE_CUDA_ARCH; without either, kgate asks the GPU, and there is none here");
  return std::vector<std::string>{*arch};
}

int run(const CheckArgs& args) {
  auto manifest = load_manifest(args.path);
  if (!manifest.ok()) return fail(manifest.error());
  CompileCheckOptions options;
  options.kernel = args.kernel;
  options.backend = args.backend == "all" ? "" : args.backend;
  options.all_tunables = args.all_tunables;
  bool has_cuda = false;
  for (const Kernel& k : manifest->kernels)
    if ((args.kernel.empty() || k.name == args.kernel) && k.implementation("cuda")) has_cuda = true;
  if (has_cuda && options.backend != "host") {
    auto archs = architectures(args.arch);
    if (!archs.ok()) return fail(archs.error());
    options.cuda_archs = *archs;
  }
  auto checks = check_compiles(
      *manifest, options, [](const std::string& kernel, const std::string& target, size_t n) {
        progress("compiling " + kernel + " (" + target +
                 (n > 1 ? ", " + std::to_string(n) + " tunable settings" : "") + ")");
      });
  if (!checks.ok()) return fail(checks.error());

  // One row per kernel and target; the failing settings' errors below the table.
  TextTable table({"kernel", "target", "tunables", "result"});
  std::map<std::pair<std::string, std::string>, std::pair<size_t, size_t>> counts;  // ok, all
  std::vector<std::pair<std::string, std::string>> order;
  for (const CompileCheck& c : *checks) {
    auto key = std::make_pair(c.kernel, c.target);
    if (!counts.count(key)) order.push_back(key);
    counts[key].first += c.ok;
    counts[key].second += 1;
  }
  for (const auto& key : order) {
    auto [ok, all] = counts[key];
    const CompileCheck* first = nullptr;
    for (const CompileCheck& c : *checks)
      if (c.kernel == key.first && c.target == key.second) {
        first = &c;
        break;
      }
    std::string tunables = all == 1 ? describe(first->tunables) : std::to_string(all) + " settings";
    std::string result =
        ok == all ? "ok" : std::to_string(all - ok) + " of " + std::to_string(all) + " fail";
    if (ok == all && all == 1 && first->registers >= 0)
      result += " (" + std::to_string(first->registers) + " registers)";
    table.add({key.first, key.second, tunables, result});
  }
  std::fputs(table.render().c_str(), stdout);
  size_t failed = 0;
  std::map<std::pair<std::string, std::string>, int> shown;
  for (const CompileCheck& c : *checks) {
    if (c.ok) continue;
    ++failed;
    int& n = shown[{c.kernel, c.target}];
    if (n++ >= 3) continue;  // the first failing settings say enough
    std::printf("\n%s (%s, %s) does not compile:\n", c.kernel.c_str(), c.target.c_str(),
                describe(c.tunables).c_str());
    std::istringstream lines(c.digest);
    for (std::string line; std::getline(lines, line);) std::printf("  %s\n", line.c_str());
  }
  std::printf("check: %zu compile%s, %zu failed\n", checks->size(), checks->size() == 1 ? "" : "s",
              failed);
  if (!args.json.empty()) {
    nlohmann::json j = {{"manifest", manifest->path.string()},
                        {"cuda_archs", options.cuda_archs},
                        {"compiles", nlohmann::json::array()}};
    for (const CompileCheck& c : *checks) j["compiles"].push_back(c.to_json());
    if (Status s = write_file_atomic(args.json, j.dump(2) + "\n"); !s.ok()) return fail(s.error());
  }
  return failed ? to_int(ExitCode::kCheckFailed) : 0;
}

CommandRegistration registration_check(
    "check", "Compile every kernel (every backend, the references) without running: no GPU needed",
    [](CLI::App& app) {
      auto args = std::make_shared<CheckArgs>();
      app.add_option("path", args->path, "kgate.json, or a folder holding one")
          ->capture_default_str();
      app.add_option("--arch", args->arch,
                     "CUDA architectures, comma-separated (sm_80,sm_90); default: "
                     "$KGATE_CUDA_ARCH, else the GPU's");
      app.add_option("--kernel", args->kernel, "Only this kernel");
      app.add_option("--backend", args->backend, "host, cuda, or all")
          ->check(CLI::IsMember({"all", "host", "cuda"}))
          ->capture_default_str();
      app.add_flag("--all-tunables", args->all_tunables,
                   "Every combination of the tunables' values, not only the defaults");
      app.add_option("--json", args->json, "Write every compile's result as JSON to this file");
      return [args] { return run(*args); };
    });

}  // namespace
}  // namespace kgate::cli
