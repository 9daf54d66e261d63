#pragma once
// Where the CUDA toolkit's pieces are at run time: the headers NVRTC needs
// (cuda_fp16.h), the nvcc program, and the NVRTC version (part of every
// compile-cache key).
#include <filesystem>
#include <string>

#include "core/status.h"

namespace kgate::cuda {

// CUDA_HOME, CUDA_PATH, the folder above nvcc on PATH, /usr/local/cuda, or
// the toolkit this build was made with: the first holding include/cuda_fp16.h.
Result<std::filesystem::path> toolkit_include_dir();

// nvcc from CUDA_HOME/CUDA_PATH, PATH, or /usr/local/cuda/bin.
Result<std::string> nvcc_path();

// "nvrtc 13.0".
std::string nvrtc_version();

// The architecture to compile for: `requested` when given, else
// KGATE_CUDA_ARCH, else the GPU's (probed in a child). "sm_90"; "90" and
// "sm90" are accepted and normalized.
Result<std::string> target_arch(int gpu_index, const std::string& requested = "");

}  // namespace kgate::cuda
