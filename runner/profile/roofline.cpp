#include "runner/profile/roofline.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "core/utc_time.h"
#include "runner/cuda/raw_compile.h"

namespace kgate::profile {

std::filesystem::path state_dir() {
  if (const char* dir = std::getenv("KGATE_STATE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "kgate";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".local" / "state" / "kgate";
  return std::filesystem::temp_directory_path() / "kgate-state";
}

CeilingStore CeilingStore::default_store() {
  return CeilingStore(state_dir() / "roofline.json");
}

std::optional<profile_model::Ceilings> CeilingStore::find(const std::string& gpu) const {
  auto text = read_file(file_);
  if (!text.ok()) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains(gpu) || !j[gpu].is_object()) return std::nullopt;
  profile_model::Ceilings c = profile_model::Ceilings::from_json(j[gpu]);
  if (c.bandwidth_bytes_per_s <= 0 || c.fp32_flops_per_s <= 0) return std::nullopt;
  return c;
}

Status CeilingStore::save(const std::string& gpu, const profile_model::Ceilings& ceilings) const {
  nlohmann::json j = nlohmann::json::object();
  if (auto text = read_file(file_); text.ok()) {
    j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object()) j = nlohmann::json::object();  // a broken file is replaced
  }
  j[gpu] = ceilings.to_json();
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  return write_file_atomic(file_, j.dump(2) + "\n");
}

// Each thread runs 8 independent FMA chains so the pipes never wait on a
// dependency; the result is stored only if impossible, so nothing is
// optimized away and memory traffic is nil.
const char* const kFmaPeakSource = R"(
extern "C" __global__ void kgate_fma_peak(float* out, int iterations, float seed) {
  float a0 = seed + threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  const float m = 0.999999f, c = 1e-7f;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
      a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
    }
  }
  float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (s == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
)";

namespace {
constexpr int kFmaIterations = 4096;
}

double fma_peak_flops(unsigned blocks, unsigned threads) {
  return double(blocks) * threads * kFmaIterations * 16 * 8 * 2;
}

Result<std::string> compile_fma_peak(const std::string& arch) {
  cuda::RawCompileInput in;
  in.source = kFmaPeakSource;
  in.display_name = "kgate_fma_peak.cu";
  in.arch = arch;
  auto out = cuda::compile_with_nvrtc(in);
  if (!out.ok()) return out.error();
  if (!out->ok)
    return Error::infrastructure("the FMA ceiling kernel does not compile: " + out->log);
  return out->cubin;
}

Result<profile_model::Ceilings> measure_ceilings(cuda::CudaDevice& gpu,
                                                 const std::string& fma_cubin) {
  profile_model::Ceilings c;
  // Bandwidth: a copy far larger than L2 (50 MB on H100), read + write
  // counted; the device flushes L2 before each copy.
  const size_t bytes = size_t(1) << 30;
  auto src = gpu.allocate(bytes);
  if (!src.ok()) return src.error();
  auto dst = gpu.allocate(bytes);
  if (!dst.ok()) {
    gpu.release(*src);
    return dst.error();
  }
  Status filled = gpu.fill(*src, 0x3c, bytes);
  double best_copy = 1e9;
  for (int i = 0; i < 6 && filled.ok(); ++i) {
    auto t = gpu.time_copy(*dst, *src, bytes);
    if (!t.ok()) {
      filled = t.error();
      break;
    }
    if (i > 0) best_copy = std::min(best_copy, *t);  // the first run warms up
  }
  gpu.release(*src);
  gpu.release(*dst);
  if (!filled.ok()) return filled.error();
  c.bandwidth_bytes_per_s = 2.0 * double(bytes) / best_copy;

  // FP32: enough blocks to fill every SM many times over.
  auto kernel = gpu.load_image(fma_cubin, "kgate_fma_peak");
  if (!kernel.ok()) return kernel.error();
  auto out = gpu.allocate(sizeof(float) * 1024 * 1024 * 8);
  if (!out.ok()) return out.error();
  LaunchDims dims;
  dims.block[0] = 256;
  dims.grid[0] = unsigned(gpu.info().multiprocessors) * 8 * 4;
  std::vector<ArgSlot> args(3);
  DeviceAddress out_ptr = *out;
  int iterations = kFmaIterations;
  float seed = 1.0f;
  std::memcpy(args[0].bytes, &out_ptr, args[0].size = sizeof out_ptr);
  std::memcpy(args[1].bytes, &iterations, args[1].size = sizeof iterations);
  std::memcpy(args[2].bytes, &seed, args[2].size = sizeof seed);
  double best_fma = 1e9;
  Status ran;
  for (int i = 0; i < 6; ++i) {
    auto t = gpu.time_launch(**kernel, dims, args);
    if (!t.ok()) {
      ran = t.error();
      break;
    }
    if (i > 0) best_fma = std::min(best_fma, t->seconds);
  }
  gpu.release(*out);
  if (!ran.ok()) return ran.error();
  c.fp32_flops_per_s = fma_peak_flops(dims.grid[0], dims.block[0]) / best_fma;

  c.measured_at = utc_now_iso8601();
  return c;
}

Result<profile_model::Ceilings> ceilings_for(cuda::CudaDevice& gpu, const CeilingStore& store,
                                             const std::string& fma_cubin) {
  const std::string name = gpu.info().name;
  if (auto c = store.find(name)) return *c;
  if (fma_cubin.empty())
    return Error::infrastructure("not stored for " + name + " in " + store.file().string() +
                                 ", and no FMA kernel was compiled to measure them");
  auto c = measure_ceilings(gpu, fma_cubin);
  if (!c.ok()) return c.error();
  // Not being able to store them costs a re-measure next time, nothing more.
  (void)store.save(name, *c);
  return c;
}

}  // namespace kgate::profile
