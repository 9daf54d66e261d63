#include "runner/sanitizer_check.h"

#include <unistd.h>

#include <cstdlib>

#include "core/file_util.h"
#include "core/manifest_loader.h"
#include "core/subprocess.h"
#include "runner/sanitizer_program.h"
#include "runner/sanitizer_report.h"

namespace kgate {
namespace {

// compute-sanitizer's exit code when it found errors (--error-exitcode).
constexpr int kFoundErrors = 86;

nlohmann::json program_json(const Program& p) {
  nlohmann::json t = nlohmann::json::object();
  for (const auto& [k, v] : p.tunables) t[k] = v;
  return {{"backend", p.backend},
          {"entry", p.entry},
          {"artifact", p.artifact.string()},
          {"cache_key", p.cache_key},
          {"tunables", t}};
}

Program program_from(const nlohmann::json& j) {
  Program p;
  p.backend = j.value("backend", "");
  p.entry = j.value("entry", "");
  p.artifact = j.value("artifact", "");
  p.cache_key = j.value("cache_key", "");
  if (auto t = j.find("tunables"); t != j.end() && t->is_object())
    for (const auto& [k, v] : t->items()) p.tunables[k] = v.get<int64_t>();
  return p;
}

// A folder removed on scope exit, for the target file.
struct TempFolder {
  std::filesystem::path path;
  ~TempFolder() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

nlohmann::json sanitize_target_to_json(const SanitizeTarget& t) {
  return {{"manifest_root", t.manifest_root.string()},
          {"kernel", t.kernel->raw},
          {"backend", t.backend},
          {"shape", t.shape},
          {"head", program_json(t.head)},
          {"reference", program_json(t.reference)},
          {"seed", t.seed},
          {"gpu", t.gpu},
          {"time_limit_s", t.time_limit_s}};
}

Result<std::unique_ptr<LoadedSanitizeTarget>> load_sanitize_target(const nlohmann::json& j) {
  auto t = std::make_unique<LoadedSanitizeTarget>();
  std::filesystem::path root = j.value("manifest_root", "");
  nlohmann::json doc = {{"kernels", nlohmann::json::array({j.value("kernel", nlohmann::json())})}};
  auto manifest = parse_manifest(doc.dump(), "kgate.json", root);
  if (!manifest.ok()) return manifest.error();
  t->manifest = std::move(manifest.value());
  const Kernel& kernel = t->manifest.kernels.front();
  std::string backend_name = j.value("backend", "cuda");
  auto backend = make_backend(backend_name);
  if (!backend.ok()) return backend.error();
  t->backend = std::move(backend.value());
  const Shape* shape = kernel.shape(j.value("shape", ""));
  if (!shape)
    return Error::bad_input("the sanitized kernel has no shape '" + j.value("shape", "") + "'");
  t->head = program_from(j.value("head", nlohmann::json::object()));
  t->reference = program_from(j.value("reference", nlohmann::json::object()));
  MeasureRequest& r = t->request;
  r.kernel = &kernel;
  r.impl = kernel.implementation(backend_name);
  r.shape = shape;
  r.backend = t->backend.get();
  r.gpu = j.value("gpu", 0);
  r.head = &t->head;
  r.reference = &t->reference;
  r.seed = j.value("seed", uint64_t{1});
  r.time = false;
  r.guard_zones = false;
  r.time_limit_s = j.value("time_limit_s", 60.0);
  return t;
}

Result<SanitizerOutcome> run_under_sanitizer(const SanitizeTarget& target, const std::string& tool,
                                             const std::filesystem::path& kgate_executable) {
  std::string sanitizer = find_compute_sanitizer();
  if (sanitizer.empty())
    return Error::infrastructure(
        "compute-sanitizer is not installed (looked on PATH, in $CUDA_HOME/bin and "
        "/usr/local/cuda/bin); install the CUDA toolkit's compute-sanitizer or drop the "
        "sanitize setting");
  std::string templ = (std::filesystem::temp_directory_path() / "kgate-sanitize-XXXXXX").string();
  if (!mkdtemp(templ.data()))
    return Error::infrastructure("cannot create a temporary folder for compute-sanitizer");
  TempFolder folder{templ};
  std::filesystem::path file = folder.path / "target.json";
  KGATE_RETURN_IF_ERROR(write_file_atomic(file, sanitize_target_to_json(target).dump()));
  CommandOptions options;
  // The tools slow kernels down 10-100x; the check is one launch per run.
  options.timeout_s = 20 * target.time_limit_s;
  auto outcome = run_command(
      {sanitizer, "--tool", tool, "--error-exitcode", std::to_string(kFoundErrors), "--print-limit",
       "20", kgate_executable.string(), kSanitizeCheckCommand, file.string()},
      options);
  if (!outcome.ok()) return outcome.error();
  SanitizerOutcome result;
  std::string text = outcome->out + "\n" + outcome->err;
  if (outcome->succeeded()) return result;
  if (!outcome->timed_out && outcome->signal == 0 && outcome->exit_code == kFoundErrors) {
    result.clean = false;
    result.finding = summarize_sanitizer_output(tool, text);
    if (result.finding.empty()) result.finding = tool + ": errors reported";
    return result;
  }
  std::string tail = text.size() > 1500 ? text.substr(text.size() - 1500) : text;
  for (size_t at = tail.find(folder.path.string()); at != std::string::npos;
       at = tail.find(folder.path.string()))
    tail.replace(at, folder.path.string().size(), "<sanitize target>");
  return Error::infrastructure("compute-sanitizer --tool " + tool + " did not finish (" +
                               outcome->describe(options.timeout_s) + "): " + tail);
}

}  // namespace kgate
