#include "core/entry_name.h"

#include <cctype>

namespace kgate {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

struct Token {
  enum Kind { kIdentifier, kNumber, kPunct } kind;
  size_t at = 0;
  size_t size = 0;
};

const std::string_view kUsage =
    "write a function name (\"reduce6\", \"lib::reduce6\") or a template instantiation whose "
    "arguments are constants, types or tunables (\"reduce6<float, BLOCK, true>\")";

Error bad(std::string_view text, const std::string& why) {
  return Error::bad_input("\"" + std::string(text) + "\" is not a kernel name: " + why + "; " +
                          std::string(kUsage));
}

// The next token at or after `pos` (whitespace skipped), or an error naming
// the character no entry may hold.
Result<Token> next_token(std::string_view text, size_t& pos) {
  while (pos < text.size() && space(text[pos])) ++pos;
  Token t;
  t.at = pos;
  char c = text[pos];
  if (ident_start(c)) {
    t.kind = Token::kIdentifier;
    while (pos < text.size() && ident_char(text[pos])) ++pos;
  } else if (std::isdigit(static_cast<unsigned char>(c)) ||
             (c == '.' && pos + 1 < text.size() &&
              std::isdigit(static_cast<unsigned char>(text[pos + 1])))) {
    // 256, 0x100, 1.5f, 1e-3, 100'000u
    t.kind = Token::kNumber;
    while (pos < text.size()) {
      char d = text[pos];
      bool exponent_sign = (d == '+' || d == '-') && pos > t.at &&
                           (text[pos - 1] == 'e' || text[pos - 1] == 'E' || text[pos - 1] == 'p' ||
                            text[pos - 1] == 'P') &&
                           text.substr(t.at, 2) != "0x" && text.substr(t.at, 2) != "0X";
      if (!(ident_char(d) || d == '.' || d == '\'' || exponent_sign)) break;
      ++pos;
    }
  } else if (text.substr(pos, 2) == "::") {
    t.kind = Token::kPunct;
    pos += 2;
  } else if (std::string_view("()[]<>,+-*/%&|^~!=?:.").find(c) != std::string_view::npos) {
    t.kind = Token::kPunct;
    ++pos;
  } else {
    return bad(text, std::string("the character '") + c + "' cannot appear in it");
  }
  t.size = pos - t.at;
  return t;
}

}  // namespace

Result<EntryName> EntryName::parse(std::string_view text) {
  EntryName e;
  e.text_ = std::string(text);
  size_t pos = 0;
  auto skip_space = [&] {
    while (pos < text.size() && space(text[pos])) ++pos;
  };
  skip_space();
  if (pos == text.size()) return bad(text, "it is empty");
  // The qualified name: ["::"] identifier ("::" identifier)*.
  if (text.substr(pos, 2) == "::") pos += 2;
  while (true) {
    skip_space();
    if (pos == text.size() || !ident_start(text[pos]))
      return bad(text, "a name must start with a letter or '_' (at column " +
                           std::to_string(pos + 1) + ")");
    size_t start = pos;
    while (pos < text.size() && ident_char(text[pos])) ++pos;
    if (!e.name_.empty()) e.name_ += "::";
    e.name_ += std::string(text.substr(start, pos - start));
    skip_space();
    if (text.substr(pos, 2) != "::") break;
    pos += 2;
  }
  if (pos == text.size()) return e;
  if (text[pos] != '<')
    return bad(text, "unexpected '" + std::string(1, text[pos]) + "' after the name (at column " +
                         std::to_string(pos + 1) + ")");

  // The template arguments: brackets balanced; '<' after a name opens a nested
  // template-id outside parentheses; ',' at the outer level separates arguments.
  e.is_template_ = true;
  e.args_begin_ = ++pos;
  std::string stack = "<";
  size_t arg_start = pos;
  const Token* previous = nullptr;
  Token last;
  bool closed = false;
  auto add_arg = [&](size_t end) -> Status {
    std::string_view arg = text.substr(arg_start, end - arg_start);
    size_t b = arg.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) {
      if (e.args_.empty() && closed && stack.empty()) return {};  // "name<>"
      return bad(text, "template argument " + std::to_string(e.args_.size() + 1) + " is empty");
    }
    size_t l = arg.find_last_not_of(" \t\r\n");
    e.args_.emplace_back(arg.substr(b, l - b + 1));
    return {};
  };
  while (true) {
    skip_space();
    if (pos == text.size()) break;
    auto token = next_token(text, pos);
    if (!token.ok()) return token.error();
    std::string_view s = text.substr(token->at, token->size);
    if (s == "(" || s == "[") {
      stack += s[0];
    } else if (s == ")" || s == "]") {
      char open = s == ")" ? '(' : '[';
      if (stack.back() != open)
        return bad(text, "'" + std::string(s) + "' at column " + std::to_string(token->at + 1) +
                             " closes nothing");
      stack.pop_back();
    } else if (s == "<" && previous && previous->kind == Token::kIdentifier &&
               stack.back() == '<') {
      stack += '<';
    } else if (s == ">" && stack.back() == '<') {
      stack.pop_back();
      if (stack.empty()) {
        closed = true;
        e.args_end_ = token->at;
        KGATE_RETURN_IF_ERROR(add_arg(token->at));
        skip_space();
        if (pos != text.size())
          return bad(text, "unexpected text after the template arguments (at column " +
                               std::to_string(pos + 1) + ")");
        return e;
      }
    } else if (s == "," && stack == "<") {
      KGATE_RETURN_IF_ERROR(add_arg(token->at));
      arg_start = pos;
    }
    last = *token;
    previous = &last;
  }
  return bad(text, stack.back() == '<' ? "a '<' is not closed by '>'"
                                       : std::string("a '") + stack.back() + "' is not closed");
}

std::string EntryName::unqualified() const {
  size_t at = name_.rfind("::");
  return at == std::string::npos ? name_ : name_.substr(at + 2);
}

std::set<std::string> EntryName::argument_names() const {
  std::set<std::string> names;
  if (!is_template_) return names;
  std::string_view region(text_.data() + args_begin_, args_end_ - args_begin_);
  for (size_t pos = 0; pos < region.size();) {
    while (pos < region.size() && space(region[pos])) ++pos;
    if (pos == region.size()) break;
    auto token = next_token(region, pos);
    if (!token.ok()) break;  // cannot happen: parse() checked every token
    if (token->kind == Token::kIdentifier)
      names.insert(std::string(region.substr(token->at, token->size)));
  }
  return names;
}

std::string EntryName::instantiate(const Variables& values) const {
  if (!is_template_) return text_;
  std::string_view region(text_.data() + args_begin_, args_end_ - args_begin_);
  std::string out = text_.substr(0, args_begin_);
  size_t copied = 0;
  bool after_scope = false;  // "ns::BLOCK" names something else than the tunable BLOCK
  for (size_t pos = 0; pos < region.size();) {
    while (pos < region.size() && space(region[pos])) ++pos;
    if (pos == region.size()) break;
    auto token = next_token(region, pos);
    if (!token.ok()) break;
    std::string_view s = region.substr(token->at, token->size);
    if (token->kind == Token::kIdentifier && !after_scope) {
      if (auto v = values.find(s); v != values.end()) {
        out += region.substr(copied, token->at - copied);
        // A negative value in parentheses: "A-B" with B=-3 must not become "A--3".
        out += v->second < 0 ? "(" + std::to_string(v->second) + ")" : std::to_string(v->second);
        copied = token->at + token->size;
      }
    }
    after_scope = s == "::" || s == ".";
  }
  out += region.substr(copied);
  out += text_.substr(args_end_);
  return out;
}

}  // namespace kgate
