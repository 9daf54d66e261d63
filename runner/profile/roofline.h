#pragma once
// The ceilings a roofline needs, measured once per GPU model by kgate itself
// and stored, so "72% of the bandwidth this card really reaches" is a
// measured statement rather than a datasheet number: a large device-to-device
// copy for bandwidth, an FMA-bound kernel for the FP32 rate.
#include <filesystem>
#include <optional>
#include <string>

#include "core/status.h"
#include "runner/cuda/cuda_device.h"
#include "runner/profile_model/profile_data.h"

namespace kgate::profile {

// KGATE_STATE_DIR, else $XDG_STATE_HOME/kgate, else ~/.local/state/kgate.
std::filesystem::path state_dir();

// The JSON file of stored ceilings, one entry per GPU name.
// Invariant: the file is a JSON object keyed by GPU name (or absent).
class CeilingStore {
 public:
  explicit CeilingStore(std::filesystem::path file) : file_(std::move(file)) {}
  static CeilingStore default_store();  // state_dir() / "roofline.json"

  std::optional<profile_model::Ceilings> find(const std::string& gpu) const;
  Status save(const std::string& gpu, const profile_model::Ceilings& ceilings) const;
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

// CUDA C++ of the FMA-bound kernel (NVRTC), entry "kgate_fma_peak".
extern const char* const kFmaPeakSource;
// Floating-point operations one launch of kgate_fma_peak performs.
double fma_peak_flops(unsigned blocks, unsigned threads);

// Compiles kFmaPeakSource for `arch` with NVRTC (in a child of its own).
// Call it before the process opens a GPU: NVRTC initializes the driver, and
// a forked child cannot inherit that.
Result<std::string> compile_fma_peak(const std::string& arch);

// Measures both ceilings on `gpu` (best of several runs; about a second);
// `fma_cubin` from compile_fma_peak.
Result<profile_model::Ceilings> measure_ceilings(cuda::CudaDevice& gpu,
                                                 const std::string& fma_cubin);

// The stored ceilings of this GPU, measured and stored first if missing
// (an empty `fma_cubin` then is an error that says so).
Result<profile_model::Ceilings> ceilings_for(cuda::CudaDevice& gpu, const CeilingStore& store,
                                             const std::string& fma_cubin);

}  // namespace kgate::profile
