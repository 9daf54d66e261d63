#pragma once
// Stored baselines: per GPU model and kernel one JSON file
// (baselines/<gpu-slug>/<kernel>.json) holding a history of entries, each
// with per-shape timing summaries and the environment they were taken in.
// Recording appends, so drift over driver updates and merges can be found.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "gate/ab_gate.h"
#include "runner/measurement.h"

namespace kgate {

struct BaselineShape {
  std::string shape, phase;
  double median_s = 0, p10_s = 0, p25_s = 0, p75_s = 0, p90_s = 0, min_s = 0, max_s = 0;
  int sample_count = 0;
  std::vector<double> samples;  // at most kMaxKeptSamples, evenly spaced over the sorted samples

  static constexpr size_t kMaxKeptSamples = 64;
  // Summarises `seconds` (which must not be empty).
  static BaselineShape from_samples(std::string shape, std::string phase,
                                    const std::vector<double>& seconds);
  nlohmann::json to_json() const;
  static BaselineShape from_json(const nlohmann::json& j);
};

struct BaselineEnvironment {
  std::string gpu, driver, cuda, arch;
  double sm_clock_mhz = 0;  // median SM clock over the samples, 0 where unknown
  // Which GPU of which host recorded it (DeviceInfo's identity): index as
  // the recording job numbered it (-1: an entry older than these fields),
  // the driver's UUID ("host" on the CPU), the PCI slot, the peak clocks.
  int gpu_index = -1;
  std::string gpu_uuid, pci_bus_id;
  double peak_sm_clock_mhz = 0, peak_memory_clock_mhz = 0;
  std::string kgate_version, source_hash, revision, date;  // date: ISO 8601 UTC
  nlohmann::json to_json() const;
  static BaselineEnvironment from_json(const nlohmann::json& j);
};

struct BaselineEntry {
  BaselineEnvironment environment;
  std::vector<BaselineShape> shapes;
  const BaselineShape* shape(const std::string& name) const;
  nlohmann::json to_json() const;
  static BaselineEntry from_json(const nlohmann::json& j);
};

// Invariant: history is in recording order (oldest first).
struct BaselineFile {
  std::string kernel, gpu;
  std::vector<BaselineEntry> history;
  const BaselineEntry* latest() const { return history.empty() ? nullptr : &history.back(); }
  nlohmann::json to_json() const;
  static Result<BaselineFile> from_json(const nlohmann::json& j);
};

// "NVIDIA H200" -> "nvidia-h200"; "host: Intel(R) Xeon(R) ..." -> "host-intel-r-xeon-r-...".
std::string gpu_slug(const std::string& gpu_name);
std::filesystem::path baseline_path(const std::filesystem::path& dir, const std::string& gpu_name,
                                    const std::string& kernel);

// nullopt when the file does not exist; an Error when it exists but is broken.
Result<std::optional<BaselineFile>> load_baseline(const std::filesystem::path& path);
Status save_baseline(const std::filesystem::path& path, const BaselineFile& file);
// Loads (or starts) the file and appends `entry`, keeping at most max_history entries.
Result<BaselineFile> append_baseline(const std::filesystem::path& path, const std::string& kernel,
                                     BaselineEntry entry, size_t max_history = 500);

// An entry from measurements of head alone (ShapeMeasurement.head_seconds).
BaselineEntry baseline_entry(const std::vector<ShapeMeasurement>& shapes,
                             const std::string& source_hash, const std::string& revision);

// Head's median on this shape against the stored entry.
std::optional<BaselineComparison> compare_with_baseline(const BaselineEntry& entry,
                                                        const std::string& shape,
                                                        double head_median_s);
// Fills ShapeGate::baseline for every shape the entry knows.
void attach_baseline(KernelGate& gate, const BaselineEntry& entry);

}  // namespace kgate
