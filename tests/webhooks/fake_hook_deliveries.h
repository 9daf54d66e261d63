#pragma once
// GitHub's webhook delivery log on 127.0.0.1, for redelivery recovery:
//   GET  {hook}/deliveries?per_page=&cursor=   newest first, cursor pages, Link rel="next"
//   POST {hook}/deliveries/{id}/attempts       202, then the delivery is sent again
// where {hook} is /app/hook (App JWT) or /repos/OWNER/NAME/hooks/ID (token).
// Items are GitHub's own example (@octokit/openapi, hook-delivery-items) with
// id, guid, time, status and event filled in. A redelivery is really made: the
// stored payload is posted, signed, to the target port once one is set, and
// recorded as a new attempt with redelivery=true, as GitHub does.
#include <httplib.h>

#include <condition_variable>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "webhooks/signature.h"

namespace kgate::testing {

// GitHub's example of a listed delivery (the first of hook-delivery-items).
inline nlohmann::json openapi_delivery_item_example() {
  std::ifstream in(source_dir() /
                   "tests/node_modules/@octokit/openapi/generated/api.github.com.json");
  if (!in) return nullptr;
  auto spec = nlohmann::json::parse(in);
  return spec["components"]["examples"]["hook-delivery-items"]["value"][0];
}

inline std::string github_time(std::time_t t) {
  char buffer[32];
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

class FakeHookDeliveries {
 public:
  struct Request {
    std::string method, path, authorization;
  };

  // `authorized` decides from the Authorization header; false answers 401.
  FakeHookDeliveries(std::string hook_path, std::function<bool(const std::string&)> authorized,
                     std::string secret)
      : hook_(std::move(hook_path)),
        authorized_(std::move(authorized)),
        secret_(std::move(secret)),
        template_(openapi_delivery_item_example()) {
    server_.Get(hook_ + "/deliveries", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      std::string target = req.path;
      if (!req.params.empty()) target += "?" + httplib::detail::params_to_query_str(req.params);
      requests_.push_back({"GET", target, req.get_header_value("Authorization")});
      if (!authorized_(req.get_header_value("Authorization"))) return unauthorized(res);
      size_t per_page =
          req.has_param("per_page") ? std::stoul(req.get_param_value("per_page")) : 30;
      // The cursor is the id the page starts below (newest first).
      int64_t below =
          req.has_param("cursor") ? std::stoll(req.get_param_value("cursor").substr(3)) : INT64_MAX;
      nlohmann::json page = nlohmann::json::array();
      int64_t last = 0;
      bool more = false;
      for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
        if ((*it)["id"].get<int64_t>() >= below) continue;
        if (page.size() == per_page) {
          more = true;
          break;
        }
        page.push_back(*it);
        last = (*it)["id"].get<int64_t>();
      }
      if (more)
        res.set_header("Link", "<" + url() + hook_ +
                                   "/deliveries?per_page=" + std::to_string(per_page) +
                                   "&cursor=v1_" + std::to_string(last) + ">; rel=\"next\"");
      res.set_content(page.dump(), "application/json; charset=utf-8");
    });
    server_.Post(hook_ + R"(/deliveries/(\d+)/attempts)",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   std::lock_guard lock(mutex_);
                   requests_.push_back({"POST", req.path, req.get_header_value("Authorization")});
                   if (!authorized_(req.get_header_value("Authorization")))
                     return unauthorized(res);
                   int64_t id = std::stoll(req.matches[1]);
                   const nlohmann::json* item = nullptr;
                   for (const auto& i : items_)
                     if (i["id"] == id) item = &i;
                   if (!item) {
                     res.status = 404;
                     return res.set_content(R"({"message":"Not Found"})", "application/json");
                   }
                   redelivery_queue_.push_back((*item)["guid"].get<std::string>());
                   wake_.notify_all();
                   res.status = 202;
                   res.set_content("{}", "application/json");
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    sender_ = std::thread([this] { send_loop(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeHookDeliveries() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    sender_.join();
    server_.stop();
    thread_.join();
  }

  bool have_template() const { return template_.is_object(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Records an attempt GitHub made (and the payload, for redeliveries).
  void add(const std::string& guid, const std::string& event, const std::string& action,
           const std::string& payload, std::time_t delivered_at, int status_code,
           bool redelivery = false) {
    std::lock_guard lock(mutex_);
    nlohmann::json item = template_;
    item["id"] = next_id_++;
    item["guid"] = guid;
    item["event"] = event;
    item["action"] = action;
    item["delivered_at"] = github_time(delivered_at);
    item["status_code"] = status_code;
    item["status"] = status_code == 0 ? "failed to connect" : status_code < 300 ? "OK" : "failed";
    item["redelivery"] = redelivery;
    item["throttled_at"] = nullptr;
    items_.push_back(item);
    payloads_[guid] = {event, payload};
  }
  // Redeliveries go to kgate serve on this port from now on (queued until then).
  void set_target_port(int port) {
    std::lock_guard lock(mutex_);
    target_port_ = port;
    wake_.notify_all();
  }
  std::vector<Request> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::vector<std::string> redelivered() {
    std::lock_guard lock(mutex_);
    return redelivered_;
  }

 private:
  void unauthorized(httplib::Response& res) {
    res.status = 401;
    res.set_content(R"({"message":"A JSON web token could not be decoded"})", "application/json");
  }

  void send_loop() {
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock,
                 [this] { return stopping_ || (target_port_ > 0 && !redelivery_queue_.empty()); });
      if (stopping_) return;
      std::string guid = redelivery_queue_.front();
      redelivery_queue_.pop_front();
      auto [event, payload] = payloads_[guid];
      int port = target_port_;
      lock.unlock();
      httplib::Client client("127.0.0.1", port);
      httplib::Headers headers = {
          {"X-GitHub-Event", event},
          {"X-GitHub-Delivery", guid},
          {"X-Hub-Signature-256", webhooks::github_signature(secret_, payload)},
          {"User-Agent", "GitHub-Hookshot/fake"}};
      auto r = client.Post("/webhook", headers, payload, "application/json");
      int status = r ? r->status : 0;
      lock.lock();
      redelivered_.push_back(guid);
      nlohmann::json item = template_;
      item["id"] = next_id_++;
      item["guid"] = guid;
      item["event"] = event;
      item["delivered_at"] = github_time(std::time(nullptr));
      item["status_code"] = status;
      item["redelivery"] = true;
      items_.push_back(item);
    }
  }

  std::string hook_;
  std::function<bool(const std::string&)> authorized_;
  std::string secret_;
  nlohmann::json template_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_, sender_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<nlohmann::json> items_;  // oldest first; ids grow
  std::map<std::string, std::pair<std::string, std::string>> payloads_;
  std::deque<std::string> redelivery_queue_;
  std::vector<std::string> redelivered_;
  std::vector<Request> requests_;
  int target_port_ = 0;
  int64_t next_id_ = 12345678;  // the example's first id
};

}  // namespace kgate::testing
