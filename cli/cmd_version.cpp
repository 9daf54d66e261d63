// kgate version: the version of kgate and of what it was built against.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>

#include "cli/command.h"
#include "core/version.h"
#include "gate/git_repository.h"

namespace kgate::cli {
namespace {

CommandRegistration registration_version(
    "version", "Print kgate's version and what it was built with", [](CLI::App&) {
      return [] {
        int major = 0, minor = 0;
        nvrtcVersion(&major, &minor);
        std::printf("kgate %s\n", kVersion);
        std::printf("  CUDA toolkit %d.%d (NVRTC %d.%d), driver loaded at run time\n",
                    CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10, major, minor);
        std::printf("  libgit2 %s\n", libgit2_version().c_str());
        return 0;
      };
    });

}  // namespace
}  // namespace kgate::cli
