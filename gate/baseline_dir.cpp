#include "gate/baseline_dir.h"

#include <system_error>

namespace kgate {

std::filesystem::path default_baseline_dir(const std::filesystem::path& manifest_root) {
  std::filesystem::path beside = manifest_root / "baselines";
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::absolute(manifest_root, ec).lexically_normal();
  if (ec) return beside;
  if (!folder.has_filename()) folder = folder.parent_path();  // "examples/llm-ops/"
  std::filesystem::path examples = folder.parent_path();
  if (examples.filename() != "examples" || folder.filename().empty()) return beside;
  std::filesystem::path tree_baselines = examples.parent_path() / "baselines";
  if (!std::filesystem::is_directory(tree_baselines, ec)) return beside;
  std::filesystem::path dir = tree_baselines / folder.filename();
  if (manifest_root.is_absolute()) return dir;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return dir;
  std::filesystem::path relative = dir.lexically_relative(cwd);
  return relative.empty() ? dir : relative;
}

}  // namespace kgate
