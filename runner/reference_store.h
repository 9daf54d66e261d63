#pragma once
// Host reference outputs kept on disk, under $KGATE_CACHE_DIR/references, so
// a shape whose double-precision reference takes seconds or minutes (a
// 525M-weight gemv, an 8k-row norm) is computed once per input set, across
// processes: episodes and sweeps that re-gate the same shapes and seeds,
// `kgate gate --seed N` re-runs.
//
// Invariants: an entry is found only under everything that determines its
// bytes: the reference program (its compile-cache key: source, headers,
// flags, compiler), the input generator's version, the seed, and every
// argument's type, role, count, distribution and scalar value. A reader sees
// a whole entry or none: entries are written to a private temporary file and
// renamed into place, and carry their key, sizes and a checksum that are
// verified on every read (a torn or corrupt file is a miss, and is removed).
// The folder's entries stay under the capacity: after each write the least
// recently used (by modification time, touched on every hit) go first.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"

namespace kgate {

class ReferenceStore {
 public:
  // $KGATE_CACHE_DIR (or the compile cache's default) / "references".
  static std::filesystem::path default_dir();
  // KGATE_REFERENCE_CACHE_BYTES when set, else 4 GiB.
  static size_t default_capacity();

  explicit ReferenceStore(std::filesystem::path dir = default_dir(),
                          size_t capacity_bytes = default_capacity())
      : dir_(std::move(dir)), capacity_(capacity_bytes) {}

  // The key of the reference's outputs on the inputs `seed` draws for
  // `plan`; `program_key` is the reference program's cache key.
  static std::string key(const std::string& program_key, const LaunchPlan& plan, uint64_t seed);

  // The outputs stored under `key` (one vector per output or in/out
  // argument of `plan`, empty for the others), or nullopt.
  std::optional<DoubleData> load(const std::string& key, const LaunchPlan& plan) const;
  // Stores `outputs` under `key` unless larger than half the capacity, then
  // trims the folder to the capacity.
  Status store(const std::string& key, const LaunchPlan& plan, const DoubleData& outputs) const;

  // Whether computing took long enough that reading the bytes back is
  // clearly cheaper (at least 20 ms, and twice the time a 1 GB/s read of
  // them would take): cheap references are not worth the disk.
  static bool worth_storing(double compute_seconds, size_t bytes);

  const std::filesystem::path& dir() const { return dir_; }
  size_t capacity() const { return capacity_; }
  // Bytes of the entries in the folder now.
  size_t bytes() const;

 private:
  std::filesystem::path path_of(const std::string& key) const;
  void trim() const;

  std::filesystem::path dir_;
  size_t capacity_;
};

}  // namespace kgate
