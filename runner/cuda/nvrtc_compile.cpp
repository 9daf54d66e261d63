// NVRTC: compiles in process, needs no driver and no GPU, only the toolkit's
// headers for cuda_fp16.h and friends.
#include <nvrtc.h>

#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/raw_compile.h"

namespace kgate::cuda {
namespace {

// nvcc-style optimization levels mean nothing to NVRTC (it always optimizes);
// dropping them lets one manifest serve both compilers.
bool nvrtc_ignores(const std::string& flag) {
  return flag == "-O3" || flag == "-O2" || flag == "-O1" || flag == "-O0";
}

std::string nvrtc_error(nvrtcResult r, const char* what) {
  return std::string(what) + " failed: " + nvrtcGetErrorString(r);
}

}  // namespace

Result<RawCompileOutput> compile_with_nvrtc(const RawCompileInput& in) {
  auto toolkit = toolkit_include_dir();
  if (!toolkit.ok()) return toolkit.error();
  std::vector<std::string> options = {"--gpu-architecture=" + in.arch, "-std=c++17",
                                      "--ptxas-options=-v", "-I" + toolkit->string()};
  for (const auto& dir : in.include_dirs) options.push_back("-I" + dir.string());
  for (const auto& d : in.defines) options.push_back("-D" + d);
  for (const auto& f : in.flags)
    if (!nvrtc_ignores(f)) options.push_back(f);
  if (in.line_info) options.push_back("-lineinfo");
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());

  nvrtcProgram program;
  nvrtcResult r =
      nvrtcCreateProgram(&program, in.source.c_str(), in.display_name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) return Error::infrastructure(nvrtc_error(r, "nvrtcCreateProgram"));
  RawCompileOutput out;
  nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    nvrtcGetProgramLog(program, out.log.data());
    while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
  }
  if (compiled == NVRTC_SUCCESS) {
    size_t size = 0;
    r = nvrtcGetCUBINSize(program, &size);
    if (r == NVRTC_SUCCESS && size > 0) {
      out.cubin.resize(size);
      r = nvrtcGetCUBIN(program, out.cubin.data());
    }
    if (r != NVRTC_SUCCESS || size == 0) {
      nvrtcDestroyProgram(&program);
      return Error::infrastructure(nvrtc_error(r, "nvrtcGetCUBIN") + " (is " + in.arch +
                                   " a real GPU architecture?)");
    }
    out.ok = true;
  } else if (compiled != NVRTC_ERROR_COMPILATION) {
    // Bad options (an unknown flag) are the manifest's fault: report them as
    // a failed compile with the reason, not as an infrastructure error.
    out.log += "\nnvrtc: " + std::string(nvrtcGetErrorString(compiled)) + " (options:";
    for (const auto& o : options) out.log += " " + o;
    out.log += ")";
  }
  nvrtcDestroyProgram(&program);
  return out;
}

}  // namespace kgate::cuda
