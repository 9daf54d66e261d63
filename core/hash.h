#pragma once
// Content hashes for caches and baselines (SHA-256 through OpenSSL).
#include <filesystem>
#include <string>
#include <string_view>

namespace kgate {

std::string sha256_hex(std::string_view data);
// Empty string when the file cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace kgate
