#pragma once
// The head of an HTTP/1.1 request (request line and header fields), checked
// as RFC 9112 asks of a server that sits behind proxies, before cpp-httplib
// reads it. httplib 0.11 is lenient exactly where two parsers can disagree on
// where a request ends (Content-Length and Transfer-Encoding together, two
// lengths, "+7" or "7\xff" as a length, bare CR, bare LF, folded lines, lines
// without a colon, no Host) and has no option to be strict, so the front
// (http_front.h) refuses such a head itself. A head accepted here has one
// reading, and httplib's agrees with it: the body is exactly
// `content_length` bytes, or chunked, or absent. How long a body may be is
// the front's limit, not a question of syntax.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kgate::webhooks {

struct HeadLimits {
  size_t max_bytes = 64u << 10;      // request line, fields and the blank line
  size_t max_fields = 100;           // header field lines
  size_t max_line_bytes = 8u << 10;  // one line, its CRLF included (httplib's own limit)
};

// How the request's body is delimited (RFC 9112 section 6.3).
enum class BodyFraming { kNone, kLength, kChunked };

struct RequestHead {
  std::string_view method, target, version;
  // Field lines in order, names as sent, values without surrounding whitespace.
  std::vector<std::pair<std::string_view, std::string_view>> fields;
  BodyFraming framing = BodyFraming::kNone;
  uint64_t content_length = 0;  // kLength only

  // The value of the first field named `name` (any case); empty when absent.
  std::string_view field(std::string_view name) const;
};

// Why a head is refused: the status to answer (400, 411, 431, 501 or 505), a label for the metrics,
// and a message for the sender that never repeats the sender's bytes.
struct HeadRefusal {
  int status = 400;
  const char* reason = "bad-request";
  std::string message;
};

// `head` is every byte of the request up to and including the empty line
// that ends its fields; the views of the result point into it.
std::variant<RequestHead, HeadRefusal> check_request_head(std::string_view head,
                                                          const HeadLimits& limits);

// Finds where a head ends in bytes that arrive in pieces, and says as soon as
// it passes a limit (bytes, lines, one line's length), so that a head is
// neither waited on nor held past them. A line ended by a bare LF ends the
// head too when it is empty: check_request_head then refuses it at once
// instead of the sender waiting for a CRLF that kgate would never accept.
class HeadScanner {
 public:
  enum class State { kMore, kWhole, kTooLarge };
  explicit HeadScanner(const HeadLimits& limits) : limits_(limits) {}
  // `data` holds every byte of the head so far, starting at its request line
  // (it only grows between calls).
  State scan(std::string_view data);
  // After kWhole: the head's length in bytes, its empty line included.
  size_t size() const { return size_; }

 private:
  HeadLimits limits_;
  size_t scanned_ = 0, line_start_ = 0, lines_ = 0, size_ = 0;
};

}  // namespace kgate::webhooks
