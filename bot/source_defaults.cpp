#include "bot/source_defaults.h"

#include <regex>

namespace kgate::bot {
namespace {

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return v.dump();
}

}  // namespace

SourceDefaultsEdit set_source_defaults(const std::string& source,
                                       const std::map<std::string, nlohmann::json>& values) {
  SourceDefaultsEdit out;
  out.text = source;
  for (const auto& [name, value] : values) {
    // "#ifndef NAME ...\n#define NAME <value>": the value is the first token
    // after the name; a comment after it stays.
    const std::regex guarded("(#[ \\t]*ifndef[ \\t]+" + name +
                             "\\b[^\\n]*\\n[ \\t]*#[ \\t]*define[ \\t]+" + name +
                             "[ \\t]+)([^\\s/]+)");
    std::smatch m;
    if (!std::regex_search(out.text, m, guarded)) {
      out.absent.push_back(name);
      continue;
    }
    out.text = m.prefix().str() + m[1].str() + value_text(value) + m.suffix().str();
    out.set.push_back(name);
  }
  return out;
}

}  // namespace kgate::bot
