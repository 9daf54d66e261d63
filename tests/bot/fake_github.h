#pragma once
// A small GitHub on 127.0.0.1 for the endpoints kgate's forge uses that
// @octokit/fixtures has no recordings of (check runs, pull requests,
// comments, App installation tokens). Responses have GitHub's shapes and
// GitHub's rules that matter here: one open pull request per head branch
// (422 otherwise), labels appended, list endpoints paginated with Link,
// comments carry their author (the token's user; tests plant others'), the
// App's bot user is public (GET /users/<slug>[bot]).
// Every request is recorded so tests can validate bodies against OpenAPI.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgate::testing {

struct RecordedRequest {
  std::string method;
  std::string path;  // with query
  std::string authorization;
  std::string body;
};

class FakeGitHub {
 public:
  // `token` is what Authorization must carry ("token X"); anything else gets
  // a 401 whose body echoes the header, as a careless server might.
  explicit FakeGitHub(std::string owner, std::string repo, std::string token)
      : owner_(std::move(owner)), repo_(std::move(repo)), token_(std::move(token)) {
    const std::string base = "/repos/" + owner_ + "/" + repo_;
    auto guarded = [this](auto handler) {
      return [this, handler](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(mutex_);
        std::string target = req.path;
        if (!req.params.empty()) {
          target += "?";
          for (const auto& [k, v] : req.params) target += k + "=" + v + "&";
          target.pop_back();
        }
        requests_.push_back({req.method, target, req.get_header_value("Authorization"), req.body});
        if (req.path.rfind("/app", 0) != 0 &&
            req.get_header_value("Authorization") != "token " + current_token()) {
          res.status = 401;
          res.set_content(nlohmann::json{{"message", "Bad credentials: " +
                                                         req.get_header_value("Authorization")}}
                              .dump(),
                          "application/json");
          return;
        }
        handler(req, res);
      };
    };
    auto json_body = [](const httplib::Request& req) {
      return nlohmann::json::parse(req.body.empty() ? "{}" : req.body);
    };
    auto reply = [](httplib::Response& res, int status, const nlohmann::json& j) {
      res.status = status;
      res.set_content(j.dump(), "application/json; charset=utf-8");
    };

    server_.Post(base + "/check-runs",
                 guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                   auto b = json_body(req);
                   nlohmann::json run = {{"id", next_id_++},
                                         {"name", b["name"]},
                                         {"head_sha", b["head_sha"]},
                                         {"status", b.value("status", "queued")},
                                         {"conclusion", nullptr},
                                         {"details_url", b.value("details_url", "")},
                                         {"external_id", b.value("external_id", "")},
                                         {"annotations", nlohmann::json::array()},
                                         {"updates", 0}};
                   check_runs_[run["id"].get<long long>()] = run;
                   reply(res, 201, run);
                 }));
    server_.Patch(base + R"(/check-runs/(\d+))",
                  guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                    long long id = std::stoll(req.matches[1]);
                    if (!check_runs_.count(id)) return reply(res, 404, {{"message", "Not Found"}});
                    auto b = json_body(req);
                    auto& run = check_runs_[id];
                    run["updates"] = run["updates"].get<int>() + 1;
                    if (b.contains("status")) run["status"] = b["status"];
                    if (b.contains("details_url")) run["details_url"] = b["details_url"];
                    if (b.contains("conclusion")) {
                      run["conclusion"] = b["conclusion"];
                      run["status"] = "completed";
                    }
                    if (b.contains("output")) {
                      run["output_title"] = b["output"]["title"];
                      run["output_summary"] = b["output"]["summary"];
                      if (b["output"].contains("annotations"))
                        for (const auto& a : b["output"]["annotations"])
                          run["annotations"].push_back(a);
                    }
                    reply(res, 200, run);
                  }));
    server_.Post(base + R"(/statuses/([0-9a-f]+))",
                 guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                   auto b = json_body(req);
                   b["sha"] = std::string(req.matches[1]);
                   b["id"] = next_id_++;
                   statuses_.push_back(b);
                   reply(res, 201, b);
                 }));
    server_.Get(
        base + "/pulls", guarded([=, this](const httplib::Request& req, httplib::Response& res) {
          std::string head = req.get_param_value("head");
          std::string state = req.has_param("state") ? req.get_param_value("state") : "open";
          nlohmann::json all = nlohmann::json::array();
          for (const auto& [n, pr] : pulls_) {
            if (!head.empty() && owner_ + ":" + pr["head"]["ref"].get<std::string>() != head)
              continue;
            if (state != "all" && pr["state"] != state) continue;
            all.push_back(pr);
          }
          paginate(req, res, all, base + "/pulls");
        }));
    server_.Post(
        base + "/pulls", guarded([=, this](const httplib::Request& req, httplib::Response& res) {
          auto b = json_body(req);
          for (const auto& [n, pr] : pulls_)
            if (pr["state"] == "open" && pr["head"]["ref"] == b["head"])
              return reply(res, 422,
                           {{"message", "Validation Failed"},
                            {"errors",
                             {{{"resource", "PullRequest"},
                               {"code", "custom"},
                               {"message", "A pull request already exists for " + owner_ + ":" +
                                               b["head"].get<std::string>() + "."}}}}});
          int number = next_number_++;
          nlohmann::json pr = {{"number", number},
                               {"state", "open"},
                               {"title", b["title"]},
                               {"body", b.value("body", "")},
                               {"merged_at", nullptr},
                               {"html_url", "https://github.com/" + owner_ + "/" + repo_ +
                                                "/pull/" + std::to_string(number)},
                               {"head", {{"ref", b["head"]}}},
                               {"base", {{"ref", b["base"]}}},
                               {"labels", nlohmann::json::array()}};
          pulls_[number] = pr;
          reply(res, 201, pr);
        }));
    server_.Patch(base + R"(/pulls/(\d+))",
                  guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                    int n = std::stoi(req.matches[1]);
                    if (!pulls_.count(n)) return reply(res, 404, {{"message", "Not Found"}});
                    auto b = json_body(req);
                    for (const char* k : {"title", "body", "state"})
                      if (b.contains(k)) pulls_[n][k] = b[k];
                    reply(res, 200, pulls_[n]);
                  }));
    server_.Post(base + R"(/issues/(\d+)/labels)",
                 guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                   int n = std::stoi(req.matches[1]);
                   if (!pulls_.count(n)) return reply(res, 404, {{"message", "Not Found"}});
                   auto b = json_body(req);
                   for (const auto& l : b["labels"]) {
                     bool have = false;
                     for (const auto& x : pulls_[n]["labels"]) have = have || x["name"] == l;
                     if (!have) pulls_[n]["labels"].push_back({{"name", l}});
                   }
                   reply(res, 200, pulls_[n]["labels"]);
                 }));
    server_.Get(base + R"(/issues/(\d+)/comments)",
                guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                  int n = std::stoi(req.matches[1]);
                  nlohmann::json list = nlohmann::json::array();
                  for (const auto& [id, c] : comments_)
                    if (c["issue"] == n) list.push_back(c);
                  paginate(req, res, list, base + "/issues/" + std::to_string(n) + "/comments");
                }));
    server_.Post(base + R"(/issues/(\d+)/comments)",
                 guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                   int n = std::stoi(req.matches[1]);
                   long long id = next_id_++;
                   comments_[id] = {{"id", id},
                                    {"issue", n},
                                    {"body", json_body(req)["body"]},
                                    {"user", {{"login", token_user_}}}};
                   reply(res, 201, comments_[id]);
                 }));
    server_.Get("/user", guarded([=, this](const httplib::Request&, httplib::Response& res) {
                  if (token_user_.ends_with("[bot]"))  // an installation token has no user
                    return reply(res, 403, {{"message", "Resource not accessible by integration"}});
                  reply(res, 200, {{"login", token_user_}, {"id", 583231}, {"type", "User"}});
                }));
    server_.Get(R"(/users/([^/]+))",
                guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                  std::string login = req.matches[1];
                  if (login.find("%5B") != std::string::npos)
                    login = httplib::detail::decode_url(login, false);
                  auto it = users_.find(login);
                  if (it == users_.end()) return reply(res, 404, {{"message", "Not Found"}});
                  reply(res, 200, {{"login", login}, {"id", it->second}, {"type", "Bot"}});
                }));
    server_.Patch(base + R"(/issues/comments/(\d+))",
                  guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                    long long id = std::stoll(req.matches[1]);
                    if (!comments_.count(id)) return reply(res, 404, {{"message", "Not Found"}});
                    comments_[id]["body"] = json_body(req)["body"];
                    reply(res, 200, comments_[id]);
                  }));
    server_.Get("/app", guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                  std::string auth = req.get_header_value("Authorization");
                  if (auth.rfind("Bearer ", 0) != 0 || (jwt_check_ && !jwt_check_(auth.substr(7))))
                    return reply(res, 401, {{"message", "A JSON web token could not be decoded"}});
                  reply(res, 200, {{"id", 777}, {"slug", app_slug_}, {"name", app_slug_}});
                }));
    server_.Post(R"(/app/installations/(\d+)/access_tokens)",
                 guarded([=, this](const httplib::Request& req, httplib::Response& res) {
                   std::string auth = req.get_header_value("Authorization");
                   if (auth.rfind("Bearer ", 0) != 0 || (jwt_check_ && !jwt_check_(auth.substr(7))))
                     return reply(res, 401, {{"message", "A JSON web token could not be decoded"}});
                   ++token_exchanges_;
                   issued_token_ =
                       "ghs_installation" + std::to_string(token_exchanges_) + "XXXXXXXXXXXXXXXX";
                   reply(res, 201, {{"token", issued_token_}, {"expires_at", token_expires_at_}});
                 }));

    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ~FakeGitHub() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<RecordedRequest> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  nlohmann::json pulls() {
    std::lock_guard lock(mutex_);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [n, pr] : pulls_) out.push_back(pr);
    return out;
  }
  nlohmann::json comments(int issue) {
    std::lock_guard lock(mutex_);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [id, c] : comments_)
      if (c["issue"] == issue) out.push_back(c);
    return out;
  }
  nlohmann::json check_runs() {
    std::lock_guard lock(mutex_);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [id, r] : check_runs_) out.push_back(r);
    return out;
  }
  nlohmann::json statuses() {
    std::lock_guard lock(mutex_);
    return statuses_;
  }
  // App mode: REST calls must carry the last issued installation token.
  void use_app_tokens(std::function<bool(const std::string& jwt)> jwt_check,
                      std::string expires_at) {
    std::lock_guard lock(mutex_);
    app_mode_ = true;
    jwt_check_ = std::move(jwt_check);
    token_expires_at_ = std::move(expires_at);
  }
  int token_exchanges() {
    std::lock_guard lock(mutex_);
    return token_exchanges_;
  }
  void set_page_size(size_t n) { page_size_ = n; }
  // The login comments made with the token are written by.
  void set_token_user(std::string login) {
    std::lock_guard lock(mutex_);
    token_user_ = std::move(login);
  }
  // The App's slug (GET /app, with the App's JWT).
  void set_app_slug(std::string slug) {
    std::lock_guard lock(mutex_);
    app_slug_ = std::move(slug);
  }
  // A public user (GET /users/<login>), e.g. an App's bot user.
  void add_user(const std::string& login, long long id) {
    std::lock_guard lock(mutex_);
    users_[login] = id;
  }
  // A comment written by someone else (anyone can write a marker).
  long long plant_comment(int issue, const std::string& login, const std::string& body) {
    std::lock_guard lock(mutex_);
    long long id = next_id_++;
    comments_[id] = {{"id", id}, {"issue", issue}, {"body", body}, {"user", {{"login", login}}}};
    return id;
  }
  nlohmann::json check_run(long long id) {
    std::lock_guard lock(mutex_);
    return check_runs_.count(id) ? check_runs_[id] : nlohmann::json();
  }

 private:
  std::string current_token() const { return app_mode_ ? issued_token_ : token_; }

  // Pages of page_size_ items with a Link header, as GitHub does.
  void paginate(const httplib::Request& req, httplib::Response& res, const nlohmann::json& all,
                const std::string& path) {
    size_t page = req.has_param("page") ? std::stoul(req.get_param_value("page")) : 1;
    nlohmann::json slice = nlohmann::json::array();
    for (size_t i = (page - 1) * page_size_; i < std::min(all.size(), page * page_size_); ++i)
      slice.push_back(all[i]);
    if (page * page_size_ < all.size()) {
      std::string query;
      for (const auto& [k, v] : req.params)
        if (k != "page") query += k + "=" + httplib::detail::encode_query_param(v) + "&";
      res.set_header("Link", "<" + url() + path + "?" + query + "page=" + std::to_string(page + 1) +
                                 ">; rel=\"next\"");
    }
    res.status = 200;
    res.set_content(slice.dump(), "application/json; charset=utf-8");
  }

  std::string owner_, repo_, token_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<RecordedRequest> requests_;
  std::map<int, nlohmann::json> pulls_;
  std::map<long long, nlohmann::json> check_runs_;
  std::map<long long, nlohmann::json> comments_;
  nlohmann::json statuses_ = nlohmann::json::array();
  long long next_id_ = 1000;
  int next_number_ = 1;
  size_t page_size_ = 2;
  bool app_mode_ = false;
  std::function<bool(const std::string&)> jwt_check_;
  std::string token_expires_at_;
  std::string issued_token_;
  int token_exchanges_ = 0;
  std::string token_user_ = "kgate[bot]";
  std::string app_slug_ = "kgate";
  std::map<std::string, long long> users_ = {{"kgate[bot]", 190874231}};
};

}  // namespace kgate::testing
