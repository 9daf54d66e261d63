#include "webhooks/request_head.h"

#include <cstring>
#include <optional>

namespace kgate::webhooks {
namespace {

// RFC 9110 section 5.6.2: the characters of a method or a field name.
bool is_token_char(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool is_http_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_token_char(static_cast<unsigned char>(c))) return false;
  return true;
}

char lower_ascii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower_ascii(a[i]) != lower_ascii(b[i])) return false;
  return true;
}

std::string_view trim_whitespace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

HeadRefusal head_refusal(int status, const char* reason, std::string message) {
  return {status, reason, std::move(message)};
}

HeadRefusal bad_head(std::string message) {
  return head_refusal(400, "bad-request", std::move(message));
}

// The methods httplib routes; anything else (TRACE, CONNECT, BREW, post) is 501.
bool implemented_method(std::string_view method) {
  for (const char* known : {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})
    if (method == known) return true;
  return false;
}

bool is_decimal_digit(char c) {
  return c >= '0' && c <= '9';
}

// Visible ASCII only, no fragment; origin-form, "*" for OPTIONS, or absolute-form.
bool valid_target(std::string_view method, std::string_view target) {
  for (char c : target) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u > 0x7e || c == '#') return false;
  }
  if (target.front() == '/') return true;
  if (target == "*") return method == "OPTIONS";
  size_t scheme_end = target.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return false;
  for (size_t i = 0; i < scheme_end; ++i) {
    char c = target[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter && (i == 0 || !(is_decimal_digit(c) || c == '+' || c == '-' || c == '.')))
      return false;
  }
  return true;
}

// uri-host [ ":" port ], from the characters RFC 3986 allows there.
bool valid_host(std::string_view host) {
  for (char c : host) {
    auto u = static_cast<unsigned char>(c);
    bool ok = (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
              (u != 0 && std::strchr("-._~%!$&'()*+,;=:[]", u) != nullptr);
    if (!ok) return false;
  }
  return true;
}

std::optional<HeadRefusal> check_request_line(std::string_view line, RequestHead& out) {
  size_t first = line.find(' ');
  size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos) {
    return bad_head("the request line must be METHOD SP TARGET SP HTTP/1.1");
  }
  out.method = line.substr(0, first);
  out.target = line.substr(first + 1, second - first - 1);
  out.version = line.substr(second + 1);
  if (!is_http_token(out.method) || out.target.empty()) {
    return bad_head("the request line must be METHOD SP TARGET SP HTTP/1.1");
  }
  if (out.version != "HTTP/1.1" && out.version != "HTTP/1.0") {
    const std::string_view v = out.version;
    bool well_formed = v.size() == 8 && v.substr(0, 5) == "HTTP/" && is_decimal_digit(v[5]) &&
                       v[6] == '.' && is_decimal_digit(v[7]);
    return well_formed ? head_refusal(505, "version-not-supported",
                                      "only HTTP/1.1 (and HTTP/1.0) is served")
                       : bad_head("the request line must end with HTTP/1.1");
  }
  if (!implemented_method(out.method)) {
    return head_refusal(501, "not-implemented",
                        "method not implemented (methods are case-sensitive: POST /webhook)");
  }
  if (!valid_target(out.method, out.target)) {
    return bad_head("the request target must be a path such as /webhook");
  }
  return std::nullopt;
}

// Content-Length: 1*DIGIT and nothing else; UINT64_MAX past 19 digits (too large anyway).
uint64_t parse_length(std::string_view value, bool& valid) {
  valid = !value.empty();
  for (char c : value) valid = valid && is_decimal_digit(c);
  if (!valid) return 0;
  while (value.size() > 1 && value.front() == '0') value.remove_prefix(1);
  if (value.size() > 19) return UINT64_MAX;
  uint64_t n = 0;
  for (char c : value) n = n * 10 + static_cast<uint64_t>(c - '0');
  return n;
}

}  // namespace

std::string_view RequestHead::field(std::string_view name) const {
  for (const auto& [n, v] : fields)
    if (same_ignoring_case(n, name)) return v;
  return {};
}

HeadScanner::State HeadScanner::scan(std::string_view data) {
  for (size_t at = scanned_; at < data.size();) {
    const void* found = std::memchr(data.data() + at, '\n', data.size() - at);
    if (!found) break;
    size_t lf = static_cast<size_t>(static_cast<const char*>(found) - data.data());
    size_t length = lf + 1 - line_start_;
    if (length > limits_.max_line_bytes) return State::kTooLarge;
    bool empty = length == 1 || (length == 2 && data[line_start_] == '\r');
    if (lf + 1 > limits_.max_bytes) return State::kTooLarge;
    if (empty) {
      size_ = lf + 1;
      return State::kWhole;
    }
    if (++lines_ > limits_.max_fields + 1) return State::kTooLarge;  // the request line and fields
    line_start_ = at = lf + 1;
  }
  scanned_ = data.size();
  if (data.size() - line_start_ > limits_.max_line_bytes || data.size() > limits_.max_bytes)
    return State::kTooLarge;
  return State::kMore;
}

std::variant<RequestHead, HeadRefusal> check_request_head(std::string_view head,
                                                          const HeadLimits& limits) {
  if (head.size() > limits.max_bytes)
    return head_refusal(431, "header-too-large", "request headers too large or too many");
  RequestHead out;
  size_t content_lengths = 0, transfer_encodings = 0, hosts = 0;
  std::string_view length_value, coding_value, host_value;
  size_t at = 0;
  bool ended = false;
  for (bool request_line = true; !ended; request_line = false) {
    size_t lf = head.find('\n', at);
    if (lf == std::string_view::npos) return bad_head("the head must end with an empty line");
    if (lf == at || head[lf - 1] != '\r') return bad_head("lines must end with CRLF, not LF");
    if (lf + 1 - at > limits.max_line_bytes)
      return head_refusal(
          431, "header-too-large",
          "a header line is longer than " + std::to_string(limits.max_line_bytes) + " bytes");
    std::string_view line = head.substr(at, lf - 1 - at);
    at = lf + 1;
    if (line.find('\r') != std::string_view::npos)
      return bad_head("a line holds a CR that does not end it");
    if (request_line) {
      if (auto refused = check_request_line(line, out)) return *refused;
      continue;
    }
    if (line.empty()) {
      ended = true;
      continue;
    }
    if (out.fields.size() >= limits.max_fields)
      return head_refusal(431, "header-too-large", "request headers too large or too many");
    if (line.front() == ' ' || line.front() == '\t')
      return bad_head("obsolete line folding: a header line starts with whitespace");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return bad_head("a header line has no colon");
    std::string_view name = line.substr(0, colon);
    if (!is_http_token(name))
      return bad_head("a header field name is not a token (no whitespace before the colon)");
    std::string_view value = trim_whitespace(line.substr(colon + 1));
    for (char c : value) {
      auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f)
        return bad_head("a header value holds a control character");
    }
    out.fields.emplace_back(name, value);
    if (same_ignoring_case(name, "Content-Length")) {
      ++content_lengths;
      length_value = value;
    } else if (same_ignoring_case(name, "Transfer-Encoding")) {
      ++transfer_encodings;
      coding_value = value;
    } else if (same_ignoring_case(name, "Host")) {
      ++hosts;
      host_value = value;
    }
  }
  if (at != head.size()) return bad_head("bytes after the empty line that ends the head");

  if (hosts > 1) return bad_head("Host sent more than once");
  if (hosts == 0 && out.version == "HTTP/1.1") return bad_head("an HTTP/1.1 request needs Host");
  if (!valid_host(host_value)) return bad_head("Host must be host[:port]");
  if (content_lengths > 1) return bad_head("Content-Length sent more than once");
  if (transfer_encodings > 1) return bad_head("Transfer-Encoding sent more than once");
  if (content_lengths && transfer_encodings)
    return bad_head("Content-Length and Transfer-Encoding together: send one of them");
  if (transfer_encodings) {
    if (out.version == "HTTP/1.0") return bad_head("Transfer-Encoding in an HTTP/1.0 request");
    size_t codings = 0;
    std::string_view last;
    for (std::string_view rest = coding_value;;) {
      size_t comma = rest.find(',');
      last = trim_whitespace(rest.substr(0, comma));
      ++codings;
      if (last.empty()) return bad_head("Transfer-Encoding holds an empty coding");
      if (comma == std::string_view::npos) break;
      if (same_ignoring_case(last, "chunked"))
        return bad_head("Transfer-Encoding applies chunked before another coding");
      rest.remove_prefix(comma + 1);
    }
    if (!same_ignoring_case(last, "chunked"))
      return bad_head("Transfer-Encoding must end with chunked");
    if (codings > 1)
      return head_refusal(501, "not-implemented", "only Transfer-Encoding: chunked is implemented");
    out.framing = BodyFraming::kChunked;
  } else if (content_lengths) {
    bool valid = false;
    out.content_length = parse_length(length_value, valid);
    if (!valid) return bad_head("Content-Length must be decimal digits only");
    out.framing = BodyFraming::kLength;
  } else if (out.method == "POST" || out.method == "PUT" || out.method == "PATCH") {
    return head_refusal(411, "length-required",
                        "a request body needs Content-Length (or Transfer-Encoding: chunked)");
  }
  return out;
}

}  // namespace kgate::webhooks
