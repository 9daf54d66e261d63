#pragma once
// GitHub paginates with an RFC 8288 Link header:
//   <https://api.github.com/repositories/1/issues?page=2>; rel="next", <...>; rel="last"
#include <optional>
#include <string>

namespace kgate::bot {

// The URL with rel="next", if the header has one.
std::optional<std::string> next_page_url(const std::string& link_header);

}  // namespace kgate::bot
