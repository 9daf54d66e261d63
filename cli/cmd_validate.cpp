// kgate validate [PATH]: load a manifest and report the first problem.
#include <cstdio>

#include "cli/command.h"
#include "core/manifest_loader.h"

namespace kgate::cli {
namespace {

CommandRegistration registration_validate(
    "validate", "Check a kgate.json manifest", [](CLI::App& app) {
      auto path = std::make_shared<std::string>(".");
      app.add_option("path", *path, "kgate.json, or a folder holding one")->capture_default_str();
      return [path] {
        auto manifest = load_manifest(*path);
        if (!manifest.ok()) return fail(manifest.error());
        size_t shapes = 0;
        for (const Kernel& k : manifest->kernels) shapes += k.shapes.size();
        std::printf("%s: ok (%zu kernels, %zu shapes)\n", manifest->path.string().c_str(),
                    manifest->kernels.size(), shapes);
        return 0;
      };
    });

}  // namespace
}  // namespace kgate::cli
