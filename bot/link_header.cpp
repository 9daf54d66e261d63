#include "bot/link_header.h"

#include <sstream>

namespace kgate::bot {

std::optional<std::string> next_page_url(const std::string& link_header) {
  size_t pos = 0;
  while (pos < link_header.size()) {
    size_t open = link_header.find('<', pos);
    if (open == std::string::npos) break;
    size_t close = link_header.find('>', open);
    if (close == std::string::npos) break;
    size_t end = link_header.find(",", close);
    // A comma inside the URL is impossible (it is between <>), so the next
    // comma after '>' ends this link's parameters.
    std::string params = link_header.substr(
        close + 1, end == std::string::npos ? std::string::npos : end - close - 1);
    if (params.find("rel=\"next\"") != std::string::npos ||
        params.find("rel=next") != std::string::npos)
      return link_header.substr(open + 1, close - open - 1);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace kgate::bot
