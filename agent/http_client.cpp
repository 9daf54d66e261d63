#include "agent/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace kgate {
namespace {

size_t on_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * count);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    size_t b = value.find_first_not_of(" \t");
    size_t e = value.find_last_not_of(" \t\r\n");
    (*headers)[name] = b == std::string::npos ? "" : value.substr(b, e - b + 1);
  }
  return size * count;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

Result<HttpResponse> http_post(const std::string& url, const std::vector<std::string>& headers,
                               const std::string& body, const HttpTimeouts& timeouts,
                               bool* timed_out) {
  global_init();
  if (timed_out) *timed_out = false;
  CURL* curl = curl_easy_init();
  if (!curl) return Error::infrastructure("cannot start libcurl");
  HttpResponse response;
  curl_slist* list = nullptr;
  for (const std::string& h : headers) list = curl_slist_append(list, h.c_str());
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  // libcurl reads 0 as "no timeout": a limit under a millisecond is one millisecond.
  auto ms = [](double s) { return std::max(1L, static_cast<long>(std::ceil(s * 1000))); };
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, ms(timeouts.connect_s));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ms(timeouts.total_s));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "kgate-agent");
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) {
    if (timed_out) *timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    std::string why = error_buffer[0] ? error_buffer : curl_easy_strerror(rc);
    return Error::infrastructure("POST " + url + " failed: " + why);
  }
  return response;
}

}  // namespace kgate
