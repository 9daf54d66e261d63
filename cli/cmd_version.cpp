// kgate version: the version of kgate and of what it was built against.
#include <cuda.h>
#include <git2.h>
#include <nvrtc.h>

#include <cstdio>

#include "cli/command.h"
#include "core/version.h"

namespace kgate::cli {
namespace {

CommandRegistration registration(
    "version", "Print kgate's version and what it was built with", [](CLI::App&) {
      return [] {
        int major = 0, minor = 0;
        nvrtcVersion(&major, &minor);
        int git_major = 0, git_minor = 0, git_rev = 0;
        git_libgit2_version(&git_major, &git_minor, &git_rev);
        std::printf("kgate %s\n", kVersion);
        std::printf("  CUDA toolkit %d.%d (NVRTC %d.%d), driver loaded at run time\n",
                    CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10, major, minor);
        std::printf("  libgit2 %d.%d.%d\n", git_major, git_minor, git_rev);
        return 0;
      };
    });

}  // namespace
}  // namespace kgate::cli
