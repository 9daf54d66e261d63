#include "runner/cuda/cuda_toolkit.h"

#include <nvrtc.h>

#include <cctype>
#include <cstdlib>
#include <vector>

#include "core/subprocess.h"
#include "runner/cuda/gpu_inventory.h"

#ifndef KGATE_CUDA_TOOLKIT_INCLUDE
#define KGATE_CUDA_TOOLKIT_INCLUDE ""
#endif

namespace kgate::cuda {
namespace {

std::vector<std::filesystem::path> toolkit_roots() {
  std::vector<std::filesystem::path> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) roots.emplace_back(v);
  if (std::string nvcc = find_program("nvcc"); !nvcc.empty())
    roots.push_back(std::filesystem::path(nvcc).parent_path().parent_path());
  roots.emplace_back("/usr/local/cuda");
  return roots;
}

}  // namespace

Result<std::filesystem::path> toolkit_include_dir() {
  static Result<std::filesystem::path> found = []() -> Result<std::filesystem::path> {
    std::error_code ec;
    std::vector<std::filesystem::path> candidates;
    for (const auto& root : toolkit_roots()) candidates.push_back(root / "include");
    if (*KGATE_CUDA_TOOLKIT_INCLUDE) candidates.emplace_back(KGATE_CUDA_TOOLKIT_INCLUDE);
    for (const auto& dir : candidates)
      if (std::filesystem::exists(dir / "cuda_fp16.h", ec)) return dir;
    return Error::infrastructure(
        "the CUDA toolkit headers (include/cuda_fp16.h) were not found: set CUDA_HOME to the "
        "toolkit folder");
  }();
  return found;
}

Result<std::string> nvcc_path() {
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) {
      std::filesystem::path p = std::filesystem::path(v) / "bin" / "nvcc";
      std::error_code ec;
      if (std::filesystem::exists(p, ec)) return p.string();
    }
  if (std::string nvcc = find_program("nvcc"); !nvcc.empty()) return nvcc;
  std::error_code ec;
  if (std::filesystem::exists("/usr/local/cuda/bin/nvcc", ec))
    return std::string("/usr/local/cuda/bin/nvcc");
  return Error::infrastructure(
      "\"compiler\": \"nvcc\" was asked for, but nvcc is not on PATH (set CUDA_HOME)");
}

std::string nvrtc_version() {
  // Asked in a child like every NVRTC call (nvrtc_compile.cpp says why), once.
  static const std::string version = [] {
    ChildOutcome child = run_in_child(
        [] {
          int major = 0, minor = 0;
          nvrtcVersion(&major, &minor);
          return std::to_string(major) + "." + std::to_string(minor);
        },
        30);
    return "nvrtc " + (child.completed ? child.payload : std::string("unknown"));
  }();
  return version;
}

Result<std::string> target_arch(int gpu_index, const std::string& requested) {
  std::string arch = requested;
  if (arch.empty())
    if (const char* env = std::getenv("KGATE_CUDA_ARCH"); env && *env) arch = env;
  if (!arch.empty()) {
    std::string digits = arch;
    if (digits.rfind("sm_", 0) == 0)
      digits = digits.substr(3);
    else if (digits.rfind("sm", 0) == 0)
      digits = digits.substr(2);
    bool ok = !digits.empty() && std::isdigit(static_cast<unsigned char>(digits[0]));
    for (size_t i = 0; ok && i < digits.size(); ++i)
      ok = std::isdigit(static_cast<unsigned char>(digits[i])) ||
           (i + 1 == digits.size() && (digits[i] == 'a' || digits[i] == 'f'));
    if (!ok)
      return Error::bad_input("'" + arch +
                              "' is not a CUDA architecture (expected e.g. sm_90 or sm_80)");
    return "sm_" + digits;
  }
  auto inventory = gpu_inventory();
  if (!inventory.ok())
    return Error::infrastructure(inventory.error().message +
                                 "; to compile without a GPU, set KGATE_CUDA_ARCH (e.g. sm_90)");
  if (gpu_index < 0 || gpu_index >= static_cast<int>(inventory->gpus.size()))
    return Error::bad_input("there is no GPU " + std::to_string(gpu_index) + " (" +
                            std::to_string(inventory->gpus.size()) + " visible)");
  return inventory->gpus[gpu_index].arch;
}

}  // namespace kgate::cuda
