#pragma once
// The current time in UTC as text, in the forms kgate writes: ISO 8601 for
// records and forge fields, a compact stamp for file names, milliseconds for
// log lines.
#include <string>

namespace kgate {

// "2026-11-30T07:22:32Z"
std::string utc_now_iso8601();
// "2026-11-30T07:22:32.041Z"
std::string utc_now_iso8601_ms();
// "20261130T072232Z": sortable, usable in file names.
std::string utc_now_compact();

}  // namespace kgate
