#pragma once
// The ceilings a roofline needs, measured once per GPU model by kgate itself
// and stored, so "72% of the bandwidth this card really reaches" is a
// measured statement rather than a datasheet number: a large device-to-device
// copy for bandwidth, an FMA-bound kernel for the FP32 rate.
#include <filesystem>
#include <optional>
#include <string>

#include "core/status.h"
#include "runner/profile/profile_launch.h"
#include "runner/profile_summary.h"

namespace kgate::profile {

// KGATE_STATE_DIR, else $XDG_STATE_HOME/kgate, else ~/.local/state/kgate.
std::filesystem::path state_dir();

// The JSON file of stored ceilings, one entry per GPU name.
// Invariant: the file is a JSON object keyed by GPU name (or absent).
class CeilingStore {
 public:
  explicit CeilingStore(std::filesystem::path file) : file_(std::move(file)) {}
  static CeilingStore default_store();  // state_dir() / "roofline.json"

  std::optional<Ceilings> find(const std::string& gpu) const;
  Status save(const std::string& gpu, const Ceilings& ceilings) const;
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

// CUDA C++ of the FMA-bound kernel (NVRTC), entry "kgate_fma_peak".
extern const char* const kFmaPeakSource;
// Floating-point operations one launch of kgate_fma_peak performs.
double fma_peak_flops(unsigned blocks, unsigned threads);

// Measures both ceilings on `gpu` (best of several runs; about a second).
Result<Ceilings> measure_ceilings(GpuSession& gpu);

// The stored ceilings of this GPU, measured and stored first if missing.
Result<Ceilings> ceilings_for(GpuSession& gpu, const CeilingStore& store);

}  // namespace kgate::profile
