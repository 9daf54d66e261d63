#include "agent/in_model_check.h"

#include <cstdlib>

#include "core/file_util.h"
#include "core/log.h"

namespace kgate {
namespace {

// A scratch folder removed on scope exit.
struct Scratch {
  std::filesystem::path path;
  ~Scratch() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

std::string with_tunable_defines(const std::string& source, const Implementation& impl,
                                 const nlohmann::json& tunables) {
  std::string prelude;
  for (const Tunable& t : impl.tunables) {
    int64_t value = t.values.front();
    if (tunables.is_object() && tunables.contains(t.name) && tunables[t.name].is_number_integer())
      value = tunables[t.name].get<int64_t>();
    prelude += "#define " + t.name + " " + std::to_string(value) + "\n";
  }
  if (prelude.empty()) return source;
  return "// kgate: tunables as the kernel was measured\n" + prelude + source;
}

Status copy_tree(const std::filesystem::path& from, const std::filesystem::path& to,
                 const std::filesystem::path& skip) {
  std::error_code ec;
  std::filesystem::create_directories(to, ec);
  if (ec) return Error::infrastructure("cannot create " + to.string() + ": " + ec.message());
  auto skip_abs = skip.empty() ? skip : std::filesystem::weakly_canonical(skip, ec);
  for (auto it = std::filesystem::recursive_directory_iterator(from, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const auto& p = it->path();
    std::string name = p.filename().string();
    std::error_code ec2;
    if (it->is_directory(ec2) &&
        (name == ".git" || name == ".kgate" ||
         (!skip_abs.empty() && std::filesystem::weakly_canonical(p, ec2) == skip_abs))) {
      it.disable_recursion_pending();
      continue;
    }
    auto target = to / std::filesystem::relative(p, from, ec2);
    if (it->is_directory(ec2)) {
      std::filesystem::create_directories(target, ec2);
    } else if (it->is_regular_file(ec2)) {
      std::filesystem::copy_file(p, target, std::filesystem::copy_options::overwrite_existing, ec2);
      if (ec2)
        return Error::infrastructure("copying " + p.string() + " to " + target.string() + ": " +
                                     ec2.message());
      std::filesystem::permissions(target, std::filesystem::status(p).permissions(), ec2);
    }
  }
  if (ec) return Error::infrastructure("copying " + from.string() + ": " + ec.message());
  return {};
}

Result<WorkloadValidation> validate_candidate_in_workload(const Manifest& manifest,
                                                          const Kernel& kernel,
                                                          const std::string& candidate_source,
                                                          const nlohmann::json& tunables,
                                                          const WorkloadValidationOptions& options,
                                                          const std::filesystem::path& state_dir) {
  auto spec = workload_spec(manifest);
  if (!spec) return Error::bad_input(manifest.path.string() + " has no \"workload\" section");
  const Implementation* impl = kernel.implementation("cuda");
  if (!impl) return Error::bad_input(kernel.name + " has no cuda implementation");
  auto original = read_file(manifest.root / impl->source);
  if (!original.ok()) return original.error();

  std::string templ =
      (std::filesystem::temp_directory_path() / ("kgate-workload-" + kernel.name + "-XXXXXX"))
          .string();
  if (!mkdtemp(templ.data()))
    return Error::infrastructure("cannot create a temporary folder like " + templ);
  Scratch scratch{templ};
  auto base = scratch.path / "base", cand = scratch.path / "candidate";
  progress("workload: copying " + manifest.root.string() + " for the base and the candidate");
  KGATE_RETURN_IF_ERROR(copy_tree(manifest.root, base, state_dir));
  KGATE_RETURN_IF_ERROR(copy_tree(manifest.root, cand, state_dir));
  KGATE_RETURN_IF_ERROR(write_file_atomic(
      base / impl->source, with_tunable_defines(*original, *impl, nlohmann::json::object())));
  KGATE_RETURN_IF_ERROR(write_file_atomic(cand / impl->source,
                                          with_tunable_defines(candidate_source, *impl, tunables)));
  WorkloadValidationOptions o = options;
  if (o.confidence <= 0 && !spec->confidence) o.confidence = 0.95;
  if (o.max_regression < 0 && !spec->max_regression)
    o.max_regression = manifest.gate.max_regression;
  return validate_in_workload(*spec, base, cand, o);
}

}  // namespace kgate
