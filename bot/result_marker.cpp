#include "bot/result_marker.h"

namespace kgate::bot {
namespace {

constexpr const char* kMarker = "<!-- kgate:result=";

// The value of ` key=` in the body's result marker.
std::optional<std::string> marker_field(const std::string& body, const std::string& key) {
  size_t marker = body.find(kMarker);
  if (marker == std::string::npos) return std::nullopt;
  size_t end = body.find("-->", marker);
  size_t at = body.find(" " + key + "=", marker);
  if (at == std::string::npos || at > end) return std::nullopt;
  at += key.size() + 2;
  size_t stop = body.find_first_of(" \n", at);
  std::string value = body.substr(at, stop == std::string::npos ? std::string::npos : stop - at);
  if (value.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> result_hash_in(const std::string& body) {
  const std::string key = kMarker;
  size_t at = body.find(key);
  if (at == std::string::npos) return std::nullopt;
  size_t start = at + key.size();
  size_t end = body.find_first_of(" -", start);
  if (end == std::string::npos) return std::nullopt;
  return body.substr(start, end - start);
}

std::optional<std::string> result_base_in(const std::string& body) {
  return marker_field(body, "base");
}

std::optional<std::string> result_head_in(const std::string& body) {
  return marker_field(body, "head");
}

std::optional<std::string> result_kernel_in(const std::string& body) {
  return marker_field(body, "kernel");
}

}  // namespace kgate::bot
