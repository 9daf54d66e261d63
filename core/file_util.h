#pragma once
// Small file helpers with error values.
#include <filesystem>
#include <string>

#include "core/status.h"

namespace kgate {

Result<std::string> read_file(const std::filesystem::path& path);
// Writes through a temporary file and a rename, so readers never see half a file.
Status write_file_atomic(const std::filesystem::path& path, const std::string& content);

}  // namespace kgate
