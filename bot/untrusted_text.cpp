#include "bot/untrusted_text.h"

namespace kgate::bot {
namespace {

constexpr const char* kZeroWidthSpace = "\u200b";

bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

}  // namespace

std::string neutralize_untrusted(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '#':
        out += '\\';  // no heading
        [[fallthrough]];
      case '@':
        // A mention or an issue reference needs the word right after the
        // sign; GitHub finds them in the rendered text, after escapes.
        out += c;
        if (i + 1 < text.size() && is_word(text[i + 1])) out += kZeroWidthSpace;
        break;
      case ':':
        out += c;
        if (text.compare(i + 1, 2, "//") == 0) out += kZeroWidthSpace;  // no autolinked URL
        break;
      case 'w':
      case 'W':
        // "www." autolinks even without a scheme.
        if ((i == 0 || !is_word(text[i - 1])) &&
            (text.compare(i, 4, "www.") == 0 || text.compare(i, 4, "WWW.") == 0))
          out += kZeroWidthSpace;
        out += c;
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '(':
      case ')':
      case '!':
      case '|':
      case '~':
      case '=':
      case '+':
        // Escaped, these are literal characters: no emphasis, code span or
        // fence, link, image, table cell, strike-through, heading underline
        // or list bullet comes from them.
        out += '\\';
        out += c;
        break;
      case '-':
        out += "\\-";
        // "GH-123" is an issue reference too.
        if (i >= 2 && (text[i - 2] == 'G' || text[i - 2] == 'g') &&
            (text[i - 1] == 'H' || text[i - 1] == 'h') && i + 1 < text.size() &&
            is_word(text[i + 1]))
          out += kZeroWidthSpace;
        break;
      case '\r':
        break;
      case '\xe2':
        // Bidirectional overrides and isolates (U+202A..U+202E,
        // U+2066..U+2069) reorder what a reader sees: dropped.
        if (i + 2 < text.size() &&
            ((text[i + 1] == '\x80' && text[i + 2] >= '\xaa' && text[i + 2] <= '\xae') ||
             (text[i + 1] == '\x81' && text[i + 2] >= '\xa6' && text[i + 2] <= '\xa9'))) {
          i += 2;
          break;
        }
        out += c;
        break;
      default:
        out += c;
    }
  }
  // Indented code blocks: a line starting with four spaces or a tab.
  std::string result;
  result.reserve(out.size());
  bool line_start = true;
  for (char c : out) {
    if (line_start && (c == ' ' || c == '\t')) continue;
    line_start = c == '\n';
    result += c;
  }
  return result;
}

std::string neutralize_untrusted_line(const std::string& text) {
  std::string flat = text;
  for (char& c : flat)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return neutralize_untrusted(flat);
}

}  // namespace kgate::bot
