#include "webhooks/webhook_event.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace kgate::webhooks {
namespace {

using nlohmann::json;

const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string text(const json& object, std::string_view key) {
  const json* value = member(object, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

int64_t integer(const json& object, std::string_view key) {
  const json* value = member(object, key);
  return value && value->is_number_integer() ? value->get<int64_t>() : 0;
}

const json& object_or_null(const json& object, std::string_view key) {
  static const json null_value;
  const json* value = member(object, key);
  return value && value->is_object() ? *value : null_value;
}

// A required field: names the event and the JSON path so a bad sender can be found.
Error missing(std::string_view event, std::string_view path, std::string_view expected) {
  return Error::bad_input("payload of '" + std::string(event) + "' event: " + std::string(path) +
                          " must be " + std::string(expected));
}

// An optional commit id (push "before", a check run's base): absent, or a commit id.
bool empty_or_commit_id(const std::string& text) {
  return text.empty() || is_commit_id(text);
}

Result<PullRequestInfo> parse_pull_request(std::string_view event, const json& pr) {
  if (!pr.is_object()) return missing(event, "pull_request", "an object");
  PullRequestInfo info;
  info.number = integer(pr, "number");
  if (info.number <= 0) return missing(event, "pull_request.number", "a positive integer");
  const json& head = object_or_null(pr, "head");
  const json& base = object_or_null(pr, "base");
  info.head_sha = text(head, "sha");
  info.base_sha = text(base, "sha");
  if (!is_commit_id(info.head_sha))
    return missing(event, "pull_request.head.sha", "a commit id (40 hexadecimal digits)");
  if (!is_commit_id(info.base_sha))
    return missing(event, "pull_request.base.sha", "a commit id (40 hexadecimal digits)");
  info.head_ref = text(head, "ref");
  info.base_ref = text(base, "ref");
  info.head_repo = text(object_or_null(head, "repo"), "full_name");
  info.base_repo = text(object_or_null(base, "repo"), "full_name");
  info.author = text(object_or_null(pr, "user"), "login");
  info.author_association = text(pr, "author_association");
  const json* draft = member(pr, "draft");
  info.draft = draft && draft->is_boolean() && draft->get<bool>();
  return info;
}

Result<PushInfo> parse_push(const json& body) {
  PushInfo info;
  info.ref = text(body, "ref");
  if (info.ref.empty()) return missing("push", "ref", "a string such as refs/heads/main");
  info.before = text(body, "before");
  info.after = text(body, "after");
  if (!empty_or_commit_id(info.before))
    return missing("push", "before", "a commit id (40 hexadecimal digits)");
  if (!empty_or_commit_id(info.after))
    return missing("push", "after", "a commit id (40 hexadecimal digits)");
  const json* deleted = member(body, "deleted");
  info.deleted = deleted && deleted->is_boolean() && deleted->get<bool>();
  std::set<std::string> files;
  if (const json* commits = member(body, "commits"); commits && commits->is_array()) {
    for (const json& commit : *commits) {
      for (const char* key : {"added", "modified", "removed"}) {
        const json* list = member(commit, key);
        if (!list || !list->is_array()) continue;
        for (const json& file : *list)
          if (file.is_string()) files.insert(file.get<std::string>());
      }
    }
  }
  info.changed_files.assign(files.begin(), files.end());
  return info;
}

Result<CommentInfo> parse_comment(const json& body) {
  const json& comment = object_or_null(body, "comment");
  const json& issue = object_or_null(body, "issue");
  if (comment.is_null()) return missing("issue_comment", "comment", "an object");
  if (issue.is_null()) return missing("issue_comment", "issue", "an object");
  CommentInfo info;
  info.issue_number = integer(issue, "number");
  if (info.issue_number <= 0) return missing("issue_comment", "issue.number", "a positive integer");
  info.on_pull_request =
      member(issue, "pull_request") && (*member(issue, "pull_request")).is_object();
  info.body = text(comment, "body");
  info.author = text(object_or_null(comment, "user"), "login");
  info.author_association = text(comment, "author_association");
  info.issue_body = text(issue, "body");
  return info;
}

Result<CheckRunInfo> parse_check_run(const json& body) {
  const json& run = object_or_null(body, "check_run");
  if (run.is_null()) return missing("check_run", "check_run", "an object");
  CheckRunInfo info;
  info.name = text(run, "name");
  info.head_sha = text(run, "head_sha");
  if (!is_commit_id(info.head_sha))
    return missing("check_run", "check_run.head_sha", "a commit id (40 hexadecimal digits)");
  if (const json* pulls = member(run, "pull_requests");
      pulls && pulls->is_array() && !pulls->empty()) {
    info.pull_number = integer((*pulls)[0], "number");
    info.base_sha = text(object_or_null((*pulls)[0], "base"), "sha");
    if (!empty_or_commit_id(info.base_sha))
      return missing("check_run", "check_run.pull_requests[0].base.sha",
                     "a commit id (40 hexadecimal digits)");
  }
  return info;
}

}  // namespace

bool is_commit_id(std::string_view text) {
  return text.size() == 40 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Result<WebhookEvent> parse_webhook_event(std::string_view name, std::string_view body) {
  json root = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Error::bad_input("the body is not valid JSON");
  if (!root.is_object()) return Error::bad_input("the body must be a JSON object");
  WebhookEvent event;
  event.name = std::string(name);
  event.action = text(root, "action");
  const json& repository = object_or_null(root, "repository");
  event.repository = text(repository, "full_name");
  event.default_branch = text(repository, "default_branch");
  event.sender = text(object_or_null(root, "sender"), "login");
  event.installation_id = integer(object_or_null(root, "installation"), "id");

  if (name == "pull_request") {
    auto pr =
        parse_pull_request(name, member(root, "pull_request") ? root["pull_request"] : json());
    if (!pr.ok()) return pr.error();
    event.pull_request = std::move(*pr);
    event.label = text(object_or_null(root, "label"), "name");
  } else if (name == "push") {
    auto push = parse_push(root);
    if (!push.ok()) return push.error();
    event.push = std::move(*push);
  } else if (name == "issue_comment") {
    auto comment = parse_comment(root);
    if (!comment.ok()) return comment.error();
    event.comment = std::move(*comment);
  } else if (name == "check_run") {
    auto run = parse_check_run(root);
    if (!run.ok()) return run.error();
    event.check_run = std::move(*run);
  }
  if ((event.pull_request || event.push || event.comment || event.check_run) &&
      event.repository.empty())
    return missing(name, "repository.full_name", "a string such as owner/name");
  return event;
}

}  // namespace kgate::webhooks
