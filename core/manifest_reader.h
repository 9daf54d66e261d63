#pragma once
// Reads kgate.json values with their JSON path, for the manifest's loaders
// (manifest_loader.cpp and the section loaders beside it). Every check
// returns an Error that names the file, the path (kernels[0].args[1].count)
// and what was expected.
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/expression.h"
#include "core/status.h"

namespace kgate {

// Invariant: holds only the file's display name and the folder relative
// paths start from; reading never changes it.
class ManifestReader {
 public:
  using json = nlohmann::json;

  ManifestReader(std::string file, std::filesystem::path root)
      : file_(std::move(file)), root_(std::move(root)) {}

  const std::string& file() const { return file_; }
  const std::filesystem::path& root() const { return root_; }

  // "kgate.json: kernels[0].name: what".
  Error fail(const std::string& path, const std::string& what) const;
  // An error naming the first key of `object` not in `allowed`.
  Status check_keys(const json& object, const std::string& path,
                    std::initializer_list<std::string_view> allowed) const;
  // object[key] as a non-empty string; "" when absent and not required.
  Result<std::string> get_string(const json& object, const std::string& path, const char* key,
                                 bool required) const;
  // An integer or an expression string.
  Result<Expression> get_expression(const json& value, const std::string& path) const;
  // object[key] as a number; `fallback` when absent.
  Result<double> get_number(const json& object, const std::string& path, const char* key,
                            double fallback) const;
  // `relative` names a regular file under the manifest's folder.
  Status check_file(const std::string& path, const std::string& relative) const;

 private:
  std::string file_;
  std::filesystem::path root_;
};

}  // namespace kgate
