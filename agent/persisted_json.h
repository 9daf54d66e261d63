#pragma once
// Reading what kgate itself wrote earlier (episode records, proposals, the
// context it hands providers) without trusting it: a value may be null (a
// NaN timing is written as null), of another type (a file edited by hand, a
// record from another version) or missing (a partially written file). Each
// reader returns its fallback then instead of throwing, so one bad field
// costs that field, never the run.
//
// nlohmann's own `j.value("x", 0.0)` throws when "x" is present but null;
// these do not.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace kgate {

// The number under `key` of object `j`; `fallback` when `j` is not an
// object, the key is missing, or the value is not a number (null included).
double number_field(const nlohmann::json& j, std::string_view key, double fallback);
int64_t integer_field(const nlohmann::json& j, std::string_view key, int64_t fallback);
uint64_t unsigned_field(const nlohmann::json& j, std::string_view key, uint64_t fallback);
bool bool_field(const nlohmann::json& j, std::string_view key, bool fallback);
std::string string_field(const nlohmann::json& j, std::string_view key,
                         std::string_view fallback = "");
// The object (array) under `key`, or an empty object (array).
nlohmann::json object_field(const nlohmann::json& j, std::string_view key);
nlohmann::json array_field(const nlohmann::json& j, std::string_view key);
// The number `j` itself, or `fallback` when it is not one.
double as_number(const nlohmann::json& j, double fallback);

// A number as JSON for a persisted record: null when it is not finite (JSON
// has no NaN or infinity; nlohmann would write null anyway, this says so).
nlohmann::json finite_or_null(double v);

// Parses a state file kgate wrote. An Error naming the file and what to do
// when it is missing, unreadable, or not JSON (a partially written file).
Result<nlohmann::json> read_state_json(const std::filesystem::path& path);

}  // namespace kgate
