#pragma once
// One HTTP POST through libcurl with connect and total timeouts. Transport
// failures (refused, timed out) are Errors; any HTTP status is a response.
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate {

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

struct HttpTimeouts {
  double connect_s = 10;
  double total_s = 300;
};

struct HttpError {
  bool timed_out = false;
};

// `headers` as "Name: value". On transport failure the Error says what
// happened; `timed_out` (when given) tells a timeout from other failures.
Result<HttpResponse> http_post(const std::string& url, const std::vector<std::string>& headers,
                               const std::string& body, const HttpTimeouts& timeouts,
                               bool* timed_out = nullptr);

}  // namespace kgate
