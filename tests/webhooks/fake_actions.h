#pragma once
// GitHub's Actions and Checks endpoints on 127.0.0.1, for --dispatch actions:
//   POST .../actions/workflows/{file}/dispatches   200 with the run's details (or `status`)
//   POST .../check-runs                            201, the run kept (or `check_status`)
//   PATCH .../check-runs/{id}                      the run updated
//   GET .../commits/{sha}/check-runs?check_name=   the head's runs of that name
// Every request is recorded with its body and Authorization header.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

namespace kgate::testing {

using nlohmann::json;

// A port of 127.0.0.1 nothing listens on: bound and closed again without a
// listen(), so a connection to it is refused before a byte is sent.
inline int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0)
    ADD_FAILURE() << "no free port on 127.0.0.1";
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct Request {
  std::string method, path;
  json body;
  std::string auth;
};

struct FakeActions {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::mutex mutex;
  std::vector<Request> requests;
  std::map<long long, json> check_runs;
  long long next_id = 7000;
  std::atomic<int> fail_first{0};
  std::atomic<int> status{200};
  std::atomic<int> check_status{201};        // 403: a token that cannot create check runs
  std::atomic<int> check_lost{0};            // create this many check runs and answer 502
  std::atomic<int> list_status{200};         // the answer to a listing of a commit's check runs
  std::vector<std::string> looked_up_names;  // check_name of each check-run listing
  std::optional<json> dispatch_answer;       // instead of the run's details (a 200)
  std::optional<json> listing_answer;        // instead of the head's check runs
  std::atomic<int> dispatch_delay_ms{0};     // answer dispatches this late

  FakeActions() {
    auto record = [this](const httplib::Request& req) {
      std::lock_guard lock(mutex);
      requests.push_back({req.method, req.path, json::parse(req.body, nullptr, false),
                          req.get_header_value("Authorization")});
    };
    server.Post(
        R"(.*/dispatches)", [this, record](const httplib::Request& req, httplib::Response& res) {
          record(req);
          std::this_thread::sleep_for(std::chrono::milliseconds(dispatch_delay_ms.load()));
          if (fail_first > 0) {
            --fail_first;
            res.status = 502;
            return;
          }
          res.status = status;
          std::lock_guard lock(mutex);
          if (res.status == 200 && dispatch_answer)
            res.set_content(dispatch_answer->dump(), "application/json");
          else if (res.status == 200)
            res.set_content(
                json{{"workflow_run_id", 4242},
                     {"run_url", "https://api.github.com/repos/o/r/actions/runs/4242"},
                     {"html_url", "https://github.com/Codertocat/Hello-World/actions/runs/4242"}}
                    .dump(),
                "application/json");
          else if (res.status != 204)
            res.set_content(R"({"message":"Unexpected inputs provided"})", "application/json");
        });
    server.Post(R"(.*/check-runs)",
                [this, record](const httplib::Request& req, httplib::Response& res) {
                  record(req);
                  res.status = check_status;
                  if (res.status != 201) {
                    res.set_content(R"({"message":"You must authenticate via a GitHub App."})",
                                    "application/json");
                    return;
                  }
                  std::lock_guard lock(mutex);
                  json run = json::parse(req.body);
                  run["id"] = next_id++;
                  check_runs[run["id"]] = run;
                  if (check_lost > 0) {  // created, but the answer is a gateway's error
                    --check_lost;
                    res.status = 502;
                    return;
                  }
                  res.set_content(run.dump(), "application/json");
                });
    // GitHub's listing of a commit's check runs, filtered by name as GitHub does.
    server.Get(R"(.*/commits/([^/]+)/check-runs)", [this, record](const httplib::Request& req,
                                                                  httplib::Response& res) {
      record(req);
      std::lock_guard lock(mutex);
      looked_up_names.push_back(req.get_param_value("check_name"));
      res.status = list_status;
      if (res.status != 200) return;
      if (listing_answer) {
        res.set_content(listing_answer->dump(), "application/json");
        return;
      }
      json listed = json::array();
      for (const auto& [id, run] : check_runs)
        if (run["head_sha"] == req.matches[1].str() &&
            run["name"] == req.get_param_value("check_name"))
          listed.push_back(run);
      res.set_content(json{{"total_count", listed.size()}, {"check_runs", listed}}.dump(),
                      "application/json");
    });
    server.Patch(R"(.*/check-runs/(\d+))",
                 [this, record](const httplib::Request& req, httplib::Response& res) {
                   record(req);
                   std::lock_guard lock(mutex);
                   long long id = std::stoll(req.matches[1]);
                   json update = json::parse(req.body);
                   for (auto& [k, v] : update.items()) check_runs[id][k] = v;
                   res.set_content(check_runs[id].dump(), "application/json");
                 });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeActions() {
    server.stop();
    thread.join();
  }
  std::string api() const { return "http://127.0.0.1:" + std::to_string(port) + "/api/v3"; }
  std::vector<Request> all() {
    std::lock_guard lock(mutex);
    return requests;
  }
  std::vector<Request> dispatches() {
    std::vector<Request> out;
    for (const auto& r : all())
      if (r.path.ends_with("/dispatches")) out.push_back(r);
    return out;
  }
  std::vector<Request> check_run_posts() {
    std::vector<Request> out;
    for (const auto& r : all())
      if (r.method == "POST" && r.path.ends_with("/check-runs")) out.push_back(r);
    return out;
  }
};

}  // namespace kgate::testing
