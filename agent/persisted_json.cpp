#include "agent/persisted_json.h"

#include <cmath>

#include "core/file_util.h"

namespace kgate {
namespace {

const nlohmann::json* find(const nlohmann::json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

}  // namespace

double number_field(const nlohmann::json& j, std::string_view key, double fallback) {
  const nlohmann::json* v = find(j, key);
  return v && v->is_number() ? v->get<double>() : fallback;
}

int64_t integer_field(const nlohmann::json& j, std::string_view key, int64_t fallback) {
  const nlohmann::json* v = find(j, key);
  if (!v || !v->is_number()) return fallback;
  if (v->is_number_float()) {
    double d = v->get<double>();
    return std::isfinite(d) && std::fabs(d) < 9e18 ? static_cast<int64_t>(d) : fallback;
  }
  return v->get<int64_t>();
}

uint64_t unsigned_field(const nlohmann::json& j, std::string_view key, uint64_t fallback) {
  const nlohmann::json* v = find(j, key);
  if (!v || !v->is_number()) return fallback;
  if (v->is_number_unsigned()) return v->get<uint64_t>();
  int64_t i = integer_field(j, key, -1);
  return i >= 0 ? static_cast<uint64_t>(i) : fallback;
}

bool bool_field(const nlohmann::json& j, std::string_view key, bool fallback) {
  const nlohmann::json* v = find(j, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

std::string string_field(const nlohmann::json& j, std::string_view key, std::string_view fallback) {
  const nlohmann::json* v = find(j, key);
  return v && v->is_string() ? v->get<std::string>() : std::string(fallback);
}

nlohmann::json object_field(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json* v = find(j, key);
  return v && v->is_object() ? *v : nlohmann::json::object();
}

nlohmann::json array_field(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json* v = find(j, key);
  return v && v->is_array() ? *v : nlohmann::json::array();
}

double as_number(const nlohmann::json& j, double fallback) {
  return j.is_number() ? j.get<double>() : fallback;
}

nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

Result<nlohmann::json> read_state_json(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text.ok()) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded())
    return Error::bad_input(path.string() +
                            " is not valid JSON (partially written or edited by hand?); "
                            "it is left as it is");
  return j;
}

}  // namespace kgate
