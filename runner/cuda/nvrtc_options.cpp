#include "runner/cuda/nvrtc_options.h"

#include <string_view>

namespace kgate::cuda {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Flags that only concern nvcc's host side or its driver: they change
// nothing NVRTC compiles.
bool host_or_driver_only(std::string_view f) {
  for (std::string_view exact :
       {"-g", "-shared", "-c", "--keep", "-keep", "--resource-usage", "-res-usage", "-fPIC",
        "-Wall", "-Wextra", "-Werror", "--compile", "-cudart=static", "-cudart=shared",
        "--cudart=static", "--cudart=shared"})
    if (f == exact) return true;
  // Libraries and their folders ("-lcublas", "-L/opt/lib"), not -lineinfo.
  if (f != "-lineinfo" && (starts_with(f, "-l") || starts_with(f, "-L"))) return true;
  for (std::string_view prefix : {"-Xcompiler=",
                                  "--compiler-options=",
                                  "-Xlinker=",
                                  "--linker-options=",
                                  "-ccbin",
                                  "--compiler-bindir",
                                  "--threads",
                                  "-t=",
                                  "-W",
                                  "--Werror",
                                  "-Werror=",
                                  "--default-stream",
                                  "-MD",
                                  "-MF",
                                  "-MT",
                                  "-odir",
                                  "--output-directory",
                                  "-rdc",
                                  "--relocatable-device-code",
                                  "-dc",
                                  "-dlink"})
    if (starts_with(f, prefix)) return true;
  return false;
}

// Flags whose next list entry is their value ("-Xptxas", "-v").
bool takes_value(std::string_view f) {
  return f == "-Xptxas" || f == "--ptxas-options" || f == "-Xcompiler" ||
         f == "--compiler-options" || f == "-Xlinker" || f == "-ccbin" || f == "--threads" ||
         f == "-t" || f == "-gencode" || f == "--generate-code" || f == "-arch" ||
         f == "--gpu-architecture" || f == "-code" || f == "--default-stream";
}

}  // namespace

NvrtcFlags translate_for_nvrtc(const std::vector<std::string>& flags) {
  NvrtcFlags out;
  auto drop = [&](const std::string& flag, const std::string& why) {
    out.notes.push_back(flag + ": dropped for NVRTC (" + why + ")");
  };
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    std::string value;
    if (takes_value(f) && i + 1 < flags.size()) value = flags[++i];
    const std::string shown = value.empty() ? f : f + " " + value;
    if (f == "-O0" || f == "-O1" || f == "-O2" || f == "-O3" || f == "-Os") {
      drop(shown, "it always optimizes device code");
    } else if (f == "--expt-relaxed-constexpr" || f == "-expt-relaxed-constexpr") {
      drop(shown,
           "it has no such option; a kernel that calls constexpr host functions from device "
           "code needs \"compiler\": \"nvcc\"");
    } else if (f == "--extended-lambda" || f == "--expt-extended-lambda" ||
               f == "-extended-lambda" || f == "-expt-extended-lambda") {
      drop(shown,
           "extended lambdas are host-side; a kernel that needs them needs \"compiler\": \"nvcc\"");
    } else if (f == "-Xptxas" || f == "--ptxas-options") {
      if (!value.empty()) out.options.push_back("--ptxas-options=" + value);
    } else if (starts_with(f, "-Xptxas=")) {
      out.options.push_back("--ptxas-options=" + f.substr(8));
    } else if (f == "-gencode" || f == "--generate-code" || f == "-arch" || f == "-code" ||
               f == "--gpu-architecture" || starts_with(f, "-arch=") || starts_with(f, "-code=") ||
               starts_with(f, "-gencode=") || starts_with(f, "--gpu-architecture=") ||
               starts_with(f, "--generate-code=")) {
      drop(shown, "kgate compiles for the GPU it measures on, or for --arch");
    } else if (host_or_driver_only(f) || f == "-Xcompiler" || f == "--compiler-options" ||
               f == "-Xlinker" || f == "-ccbin" || f == "--threads" || f == "-t" ||
               f == "--default-stream") {
      drop(shown, "it concerns nvcc's host compiler or driver only");
    } else if (f == "--use_fast_math" || f == "-use_fast_math") {
      out.options.push_back("--use_fast_math");
    } else {
      out.options.push_back(f);
      if (!value.empty()) out.options.push_back(value);
    }
  }
  return out;
}

}  // namespace kgate::cuda
