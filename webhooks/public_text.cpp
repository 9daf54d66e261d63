#include "webhooks/public_text.h"

namespace kgate::webhooks {
namespace {

bool path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
         c == '.' || c == '_' || c == '-' || c == '+' || c == '~' || c == '@' || c == '%' ||
         c == ',' || c == '=';
}

// A path starts at a '/' that follows nothing or a separator; after a ':'
// it is a URL's "//host" or "file:line", left alone.
bool starts_path(std::string_view text, size_t at) {
  if (text[at] != '/') return false;
  if (at == 0) return true;
  char before = text[at - 1];
  return before == ' ' || before == '\t' || before == '\n' || before == '\r' || before == '\'' ||
         before == '"' || before == '`' || before == '(' || before == '[' || before == '=' ||
         before == ',' || before == ';';
}

}  // namespace

std::string without_local_paths(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    if (!starts_path(text, at)) {
      out += text[at++];
      continue;
    }
    size_t end = at + 1;
    while (end < text.size() && path_char(text[end])) ++end;
    std::string_view path = text.substr(at, end - at);
    // A trailing '.' or ',' ends the sentence, not the path.
    while (path.size() > 1 && (path.back() == '.' || path.back() == ',')) path.remove_suffix(1);
    std::string_view name = path;
    while (name.size() > 1 && name.back() == '/') name.remove_suffix(1);
    size_t last = name.find_last_of('/');
    if (last == 0 || name.size() < 2 || name[1] == '/') {
      out += path;  // "/kgate", "/", "//host": not a path of this machine
    } else {
      out += ".../";
      out += path.substr(last + 1);
    }
    at += path.size();
  }
  return out;
}

}  // namespace kgate::webhooks
