#include "gate/baseline_recorder.h"

#include "core/hash.h"
#include "gate/baseline_dir.h"
#include "runner/kernel_run.h"

namespace kgate {

Result<BaselineRecord> record_baseline(const Manifest& manifest, const Kernel& kernel,
                                       Backend& backend, const BaselineRecordOptions& options) {
  const Implementation* impl = kernel.implementation(backend.name());
  if (!impl)
    return Error::bad_input(kernel.name + ": no \"" + backend.name() + "\" implementation");
  KernelRunOptions run_options;
  run_options.seed = options.seed;
  run_options.gpu = options.gpu;
  auto result = run_kernel(manifest, kernel, backend, run_options);
  if (!result.ok()) return result.error().with_context(kernel.name);
  BaselineRecord record;
  if (!result->passed()) return record;
  record.passed = true;
  std::string device = result->shapes.empty() ? "" : result->shapes.front().device.name;
  record.file = baseline_path(
      options.dir.empty() ? default_baseline_dir(manifest.root) : options.dir, device, kernel.name);
  record.entry =
      baseline_entry(result->shapes, sha256_file(manifest.root / impl->source), options.revision);
  // A damaged baseline file is left as it is (the error says which file).
  Result<BaselineFile> saved = Error::infrastructure("not saved");
  try {
    saved = append_baseline(record.file, kernel.name, record.entry);
  } catch (const nlohmann::json::exception& e) {
    saved = Error::bad_input(record.file.string() + " cannot be read: " + e.what());
  }
  if (saved.ok())
    record.history = saved->history.size();
  else
    record.save_error = saved.error();
  return record;
}

}  // namespace kgate
