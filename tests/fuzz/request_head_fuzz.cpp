// libFuzzer target: the front's request-head scanner and strict check on
// arbitrary bytes. Neither may crash or read out of bounds; the scanner must
// find the same end whether the bytes come at once or in two pieces; and a
// head the check accepts must have exactly one framing, made of fields that
// say so once each, in a syntax httplib reads the same way.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "webhooks/request_head.h"

namespace {

using kgate::webhooks::BodyFraming;
using kgate::webhooks::HeadLimits;
using kgate::webhooks::HeadScanner;
using kgate::webhooks::RequestHead;

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

size_t count_fields(const RequestHead& head, std::string_view name) {
  size_t n = 0;
  for (const auto& [field, value] : head.fields) {
    if (field.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size(); ++i) same = same && lower(field[i]) == lower(name[i]);
    n += same;
  }
  return n;
}

void require(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  HeadLimits limits{.max_bytes = 4096, .max_fields = 20, .max_line_bytes = 512};
  // The first byte says where the bytes are split in two arrivals.
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  size_t split = bytes.empty() ? 0 : data[0] % (bytes.size() + 1);

  HeadScanner whole(limits), pieces(limits);
  HeadScanner::State at_once = whole.scan(bytes);
  HeadScanner::State in_two = pieces.scan(bytes.substr(0, split));
  if (in_two == HeadScanner::State::kMore) in_two = pieces.scan(bytes);
  require(at_once == in_two);
  if (at_once != HeadScanner::State::kWhole) return 0;
  require(whole.size() == pieces.size() && whole.size() <= bytes.size());
  require(whole.size() <= limits.max_bytes);

  std::string head(bytes.substr(0, whole.size()));
  auto checked = kgate::webhooks::check_request_head(head, limits);
  const auto* accepted = std::get_if<RequestHead>(&checked);
  if (!accepted) {
    int status = std::get<kgate::webhooks::HeadRefusal>(checked).status;
    require(status == 400 || status == 411 || status == 431 || status == 501 || status == 505);
    return 0;
  }
  const RequestHead& h = *accepted;
  require(h.version == "HTTP/1.1" || h.version == "HTTP/1.0");
  require(!h.target.empty() && !h.method.empty());
  require(h.version == "HTTP/1.0" || count_fields(h, "host") == 1);
  size_t lengths = count_fields(h, "content-length"),
         codings = count_fields(h, "transfer-encoding");
  require(lengths <= 1 && codings <= 1 && !(lengths && codings));
  require((h.framing == BodyFraming::kLength) == (lengths == 1));
  require((h.framing == BodyFraming::kChunked) == (codings == 1));
  if (h.framing == BodyFraming::kLength)
    for (char c : h.field("content-length")) require(c >= '0' && c <= '9');
  if (h.method == "POST" || h.method == "PUT" || h.method == "PATCH")
    require(h.framing != BodyFraming::kNone);
  for (const auto& [name, value] : h.fields) {
    require(!name.empty());
    for (char c : name) require(c > ' ' && c != ':' && c != 0x7f);
    for (char c : value) require(c != '\r' && c != '\n' && c != 0);
    require(value.empty() || (value.front() != ' ' && value.back() != ' '));
  }
  return 0;
}
