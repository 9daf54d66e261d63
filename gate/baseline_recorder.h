#pragma once
// Recording one kernel's baseline: time its current version (runner/kernel_run.h)
// and append the result to <dir>/<gpu-slug>/<kernel>.json (gate/baseline_store.h; dir:
// gate/baseline_dir.h unless given). Used by `kgate baseline record` and by `kgate
// sweep` before its episodes; each decides what a kernel that fails its
// checks, or a file that cannot be written, costs it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/manifest.h"
#include "core/status.h"
#include "gate/baseline_store.h"
#include "runner/backend.h"

namespace kgate {

struct BaselineRecordOptions {
  std::filesystem::path dir;  // baselines folder; empty: default_baseline_dir(manifest.root)
  std::string revision;       // stored with the entry; empty: none
  uint64_t seed = 0;          // 0: drawn from the clock
  int gpu = 0;
};

// Invariant: when passed is false nothing was written; when save_error is
// set the file was left as it was.
struct BaselineRecord {
  bool passed = false;  // the kernel passed its checks
  std::filesystem::path file;
  BaselineEntry entry;
  size_t history = 0;               // entries in the file, this one included
  std::optional<Error> save_error;  // the file could not be read or written
};

// An Error when the kernel could not be measured (named with the kernel).
// The source hashed into the entry is the kernel's implementation for
// `backend` under manifest.root.
Result<BaselineRecord> record_baseline(const Manifest& manifest, const Kernel& kernel,
                                       Backend& backend, const BaselineRecordOptions& options);

}  // namespace kgate
