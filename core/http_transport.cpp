#include "core/http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>

#include "core/redact.h"

namespace kgate {
namespace {

void init_curl_once() {
  static const bool done = [] { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }();
  (void)done;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect or 100): start over
    response->headers.clear();
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return size * count;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::string value = line.substr(colon + 1);
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  value.erase(value.begin(), std::find_if(value.begin(), value.end(), not_space));
  value.erase(std::find_if(value.rbegin(), value.rend(), not_space).base(), value.end());
  response->headers[name] = value;
  return size * count;
}

bool is_before_sending(CURLcode rc) {
  return rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY ||
         rc == CURLE_COULDNT_CONNECT || rc == CURLE_UNSUPPORTED_PROTOCOL ||
         rc == CURLE_URL_MALFORMAT || rc == CURLE_SSL_CONNECT_ERROR ||
         rc == CURLE_PEER_FAILED_VERIFICATION;
}

// libcurl reads 0 as "no timeout": a limit under a millisecond is one millisecond.
long milliseconds(double s) {
  return std::max(1L, static_cast<long>(std::ceil(s * 1000)));
}

}  // namespace

std::string url_escape(std::string_view text) {
  // libcurl ignores the handle here (since 7.82); its escaping is RFC 3986's.
  std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, text.data(), static_cast<int>(text.size())), &curl_free);
  return escaped ? std::string(escaped.get()) : std::string();
}

bool is_idempotent(const HttpRequest& request) {
  if (request.idempotent) return *request.idempotent;
  return request.method != "POST" && request.method != "PATCH";
}

Result<HttpResponse> http_send(const HttpRequest& request, HttpFailure* failure) {
  init_curl_once();
  if (failure) *failure = HttpFailure::kNotSent;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Error::infrastructure("cannot initialise libcurl");
  HttpResponse response;
  curl_slist* header_list = nullptr;
  for (const auto& [name, value] : request.headers)
    header_list = curl_slist_append(header_list, (name + ": " + value).c_str());
  // curl adds "Expect: 100-continue" to large bodies; no server kgate talks to needs it.
  header_list = curl_slist_append(header_list, "Expect:");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(header_list,
                                                                      curl_slist_free_all);
  char error_buffer[CURL_ERROR_SIZE] = {};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list);
  curl_easy_setopt(c, CURLOPT_USERAGENT, request.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, milliseconds(request.timeouts.total_s));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   milliseconds(std::min(request.timeouts.connect_s, request.timeouts.total_s)));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  if (request.method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  bool has_body = !request.body.empty() || request.method == "POST" || request.method == "PATCH" ||
                  request.method == "PUT";
  if (has_body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    // Registered here, on the way to an error, and not for every request:
    // callers register their credentials when they read them
    // (bot/github_credentials.h, agent/chat_provider.cpp), and a recorded
    // exchange may carry the same text elsewhere as data
    // (tests/bot/fixtures_server_test.cpp's token is also a commit id).
    for (const auto& [name, value] : request.headers) {
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char ch) { return std::tolower(ch); });
      if (lower != "authorization" && lower != "x-api-key" && lower != "api-key") continue;
      register_secret(value);
      if (size_t space = value.find(' '); space != std::string::npos)
        register_secret(value.substr(space + 1));  // the token without "Bearer "
    }
    long sent = 0;  // bytes of requests issued: 0 when the request never left
    curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &sent);
    if (failure)
      *failure = is_before_sending(rc) || sent == 0 ? HttpFailure::kNotSent
                 : rc == CURLE_OPERATION_TIMEDOUT   ? HttpFailure::kTimedOut
                                                    : HttpFailure::kAfterSending;
    std::string why = error_buffer[0] ? error_buffer : curl_easy_strerror(rc);
    return Error::infrastructure(redact(request.method + " " + request.url + " failed: " + why));
  }
  if (failure) *failure = HttpFailure::kNone;
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace kgate
