// Routing and trust, on real payloads from @octokit/webhooks-examples with
// the fields each case is about changed.
#include "webhooks/router.h"

#include <set>

#include <gtest/gtest.h>

#include "serve_fixture.h"
#include "webhooks/webhook_event.h"

namespace kgate::webhooks {
namespace {

using kgate::testing::example_payload;
using nlohmann::json;

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kgate::testing::have_octokit_examples())
        << "run scripts/setup (npm ci in tests/) to install @octokit/webhooks-examples";
    context.kernels = {{"rmsnorm", {"csrc/rmsnorm.cu", "csrc/ref/rmsnorm_ref.cpp"}},
                       {"softmax", {"csrc/softmax.cu"}}};
    context.known_pull = [this](const std::string& repo, int64_t n) -> std::optional<PullState> {
      auto it = pulls.find({repo, n});
      if (it == pulls.end()) return std::nullopt;
      return it->second;
    };
    context.is_approved = [this](const std::string& repo, const std::string& sha) {
      return approved.count({repo, sha}) > 0;
    };
    context.pull_with_head = [this](const std::string& repo,
                                    const std::string& sha) -> std::optional<PullState> {
      for (const auto& [key, pull] : pulls)
        if (key.first == repo && pull.head_sha == sha) return pull;
      return std::nullopt;
    };
  }
  Routing route_payload(const std::string& event, const json& payload) {
    auto parsed = parse_webhook_event(event, payload.dump());
    EXPECT_TRUE(parsed.ok()) << parsed.error().message;
    if (!parsed.ok()) return {};
    Routing r = route(*parsed, context);
    // Apply what the queue would store, so sequences of deliveries can be tested.
    if (r.pull_update) pulls[{r.pull_update->repository, r.pull_update->number}] = *r.pull_update;
    for (const Approval& a : r.approvals) approved.insert({a.repository, a.head_sha});
    return r;
  }
  static json fork_pr(const std::string& action) {
    json p = example_payload("pull_request", action);
    p["pull_request"]["head"]["repo"]["full_name"] = "stranger/Hello-World";
    p["pull_request"]["author_association"] = "CONTRIBUTOR";
    return p;
  }
  static json comment(const std::string& body, const std::string& association = "OWNER") {
    json p = example_payload("issue_comment", "created");
    p["comment"]["body"] = body;
    p["comment"]["author_association"] = association;
    p["issue"]["number"] = 2;  // the example pull request's number
    p["issue"]["pull_request"] = {
        {"url", "https://api.github.com/repos/Codertocat/Hello-World/pulls/2"}};
    return p;
  }

  RoutingContext context;
  std::map<std::pair<std::string, int64_t>, PullState> pulls;
  std::set<std::pair<std::string, std::string>> approved;
};

TEST_F(RouterTest, PullRequestActionsThatGate) {
  for (const char* action : {"opened", "synchronize", "reopened", "ready_for_review"}) {
    Routing r = route_payload("pull_request", example_payload("pull_request", action));
    ASSERT_EQ(r.jobs.size(), 1u) << action;
    EXPECT_EQ(r.jobs[0].kind, JobKind::kGate);
    EXPECT_EQ(r.jobs[0].repository, "Codertocat/Hello-World");
    EXPECT_EQ(r.jobs[0].pull_number, 2);
    EXPECT_EQ(r.jobs[0].head, "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
    EXPECT_FALSE(r.jobs[0].base.empty());
  }
  for (const char* action : {"closed", "assigned", "locked", "review_requested"}) {
    Routing r = route_payload("pull_request", example_payload("pull_request", action));
    EXPECT_TRUE(r.jobs.empty()) << action;
    EXPECT_FALSE(r.ignored.empty()) << action;
  }
}

TEST_F(RouterTest, DraftWaitsForReadyForReview) {
  json p = example_payload("pull_request", "opened");
  p["pull_request"]["draft"] = true;
  Routing r = route_payload("pull_request", p);
  EXPECT_TRUE(r.jobs.empty());
}

TEST_F(RouterTest, ForkPullRequestWaitsUntilApprovedForThatCommitOnly) {
  Routing opened = route_payload("pull_request", fork_pr("opened"));
  EXPECT_TRUE(opened.jobs.empty());
  ASSERT_EQ(opened.notices.size(), 1u);
  EXPECT_EQ(opened.notices[0].kind, "waiting-for-approval");

  // A non-maintainer cannot approve.
  Routing refused = route_payload("issue_comment", comment("/kgate approve", "CONTRIBUTOR"));
  EXPECT_TRUE(refused.jobs.empty());
  EXPECT_TRUE(refused.approvals.empty());

  Routing approval = route_payload("issue_comment", comment("LGTM\n/kgate approve"));
  ASSERT_EQ(approval.jobs.size(), 1u);
  EXPECT_EQ(approval.jobs[0].head, "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
  ASSERT_EQ(approval.approvals.size(), 1u);

  // A new push: the approval does not carry to the new head.
  json pushed = fork_pr("synchronize");
  pushed["pull_request"]["head"]["sha"] = "1111111111111111111111111111111111111111";
  Routing sync = route_payload("pull_request", pushed);
  EXPECT_TRUE(sync.jobs.empty());
  ASSERT_EQ(sync.notices.size(), 1u);
  EXPECT_EQ(sync.notices[0].head_sha, "1111111111111111111111111111111111111111");

  // /kgate rerun on the unapproved head waits too.
  EXPECT_TRUE(route_payload("issue_comment", comment("/kgate rerun")).jobs.empty());

  // Re-synchronizing the approved commit runs again (approval is per commit).
  Routing back = route_payload("pull_request", fork_pr("synchronize"));
  EXPECT_EQ(back.jobs.size(), 1u);
}

// GitHub's permission answers for a few users (the API itself is exercised
// in github_trust_test.cpp).
class KnownWriters : public PermissionLookup {
 public:
  explicit KnownWriters(std::set<std::string> writers) : writers_(std::move(writers)) {}
  std::optional<bool> has_write(const std::string&, const std::string& user,
                                const std::string&) const override {
    return writers_.count(user) > 0;
  }

 private:
  std::set<std::string> writers_;
};

TEST_F(RouterTest, ApprovalLabelApprovesTheLabelledHead) {
  KnownWriters writers({"Codertocat"});
  context.permissions = &writers;
  route_payload("pull_request", fork_pr("opened"));
  json labeled = fork_pr("labeled");
  labeled["label"]["name"] = "kgate:approved";
  Routing r = route_payload("pull_request", labeled);
  ASSERT_EQ(r.approvals.size(), 1u);
  EXPECT_EQ(r.approvals[0].head_sha, "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
  EXPECT_EQ(r.jobs.size(), 1u);
  labeled["label"]["name"] = "bug";
  EXPECT_TRUE(route_payload("pull_request", labeled).approvals.empty());
}

TEST_F(RouterTest, SameRepositoryHeadRunsWhoeverOpenedIt) {
  // Only people with write access push branches of the repository: its
  // head's code runs, whether the author is a first-timer or a bot (kgate's
  // own pull requests, Dependabot's) that GitHub's permission API does not know.
  json p = example_payload("pull_request", "opened");
  p["pull_request"]["author_association"] = "FIRST_TIME_CONTRIBUTOR";
  EXPECT_EQ(route_payload("pull_request", p).jobs.size(), 1u);
  p["pull_request"]["user"]["login"] = "dependabot[bot]";
  p["pull_request"]["author_association"] = "NONE";
  p["action"] = "synchronize";
  EXPECT_EQ(route_payload("pull_request", p).jobs.size(), 1u);
  // The same bot from a fork waits like anyone.
  json fork = fork_pr("synchronize");
  fork["pull_request"]["user"]["login"] = "dependabot[bot]";
  Routing waits = route_payload("pull_request", fork);
  EXPECT_TRUE(waits.jobs.empty());
  ASSERT_EQ(waits.notices.size(), 1u);
  EXPECT_EQ(waits.notices[0].kind, "waiting-for-approval");
  // A deleted head repository counts as a fork.
  json orphan = example_payload("pull_request", "opened");
  orphan["pull_request"]["head"]["repo"] = nullptr;
  EXPECT_TRUE(route_payload("pull_request", orphan).jobs.empty());
}

TEST_F(RouterTest, WithoutGitHubOnlyTheOwnerMayCommand) {
  // author_association cannot tell a MEMBER or COLLABORATOR with read access
  // from one with write: without the permission API they are refused, and told why.
  route_payload("pull_request", example_payload("pull_request", "opened"));
  for (const char* association : {"MEMBER", "COLLABORATOR", "CONTRIBUTOR", "NONE", ""}) {
    Routing r = route_payload("issue_comment", comment("/kgate rerun", association));
    EXPECT_TRUE(r.jobs.empty()) << association;
    ASSERT_EQ(r.notices.size(), 1u) << association;
    EXPECT_EQ(r.notices[0].kind, "command-refused");
    if (std::string(association) == "MEMBER") {
      EXPECT_NE(r.notices[0].message.find("--forge github"), std::string::npos)
          << r.notices[0].message;
    }
  }
  EXPECT_EQ(route_payload("issue_comment", comment("/kgate rerun", "OWNER")).jobs.size(), 1u);
}

TEST_F(RouterTest, ApprovalLabelFromAnUnknownSenderDoesNotApprove) {
  // A label event carries no association: without GitHub's answer the
  // sender may have triage access only, which is enough to label.
  route_payload("pull_request", fork_pr("opened"));
  json labeled = fork_pr("labeled");
  labeled["label"]["name"] = "kgate:approved";
  labeled["sender"]["login"] = "tess";
  AuthorAssociationPermissions association_only;
  context.permissions = &association_only;
  Routing r = route_payload("pull_request", labeled);
  EXPECT_TRUE(r.approvals.empty());
  EXPECT_TRUE(r.jobs.empty());
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_EQ(r.notices[0].kind, "command-refused");
  EXPECT_NE(r.notices[0].message.find("tess"), std::string::npos) << r.notices[0].message;
}

TEST_F(RouterTest, PushToDefaultBranchTouchingKernels) {
  json p = example_payload("push");
  for (const auto& entry : kgate::testing::octokit_examples())
    if (entry["name"] == "push")
      for (const auto& e : entry["examples"])
        if (e["ref"] == "refs/heads/master") p = e;
  ASSERT_EQ(p["ref"], "refs/heads/master");
  EXPECT_TRUE(route_payload("push", p).jobs.empty());  // README.md only

  p["commits"][0]["modified"] = {"csrc/ref/rmsnorm_ref.cpp", "docs/x.md"};
  Routing r = route_payload("push", p);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].kind, JobKind::kOptimize);
  EXPECT_EQ(r.jobs[0].kernel, "rmsnorm");
  EXPECT_EQ(r.jobs[1].kind, JobKind::kBaseline);
  EXPECT_EQ(r.jobs[1].kernel, "rmsnorm");

  p["commits"][0]["modified"] = {"kgate.json"};  // the manifest: re-record every baseline
  r = route_payload("push", p);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].kind, JobKind::kBaseline);
  EXPECT_EQ(r.jobs[1].kind, JobKind::kBaseline);

  p["commits"][0]["modified"] = {"csrc/softmax.cu"};
  p["ref"] = "refs/heads/feature";
  EXPECT_TRUE(route_payload("push", p).jobs.empty());
  // Tag pushes from the package are ignored.
  EXPECT_TRUE(route_payload("push", example_payload("push")).jobs.empty());
}

TEST_F(RouterTest, CommentCommands) {
  route_payload("pull_request", example_payload("pull_request", "opened"));
  Routing opt = route_payload("issue_comment", comment("/kgate optimize softmax"));
  ASSERT_EQ(opt.jobs.size(), 1u);
  EXPECT_EQ(opt.jobs[0].kind, JobKind::kOptimize);
  EXPECT_EQ(opt.jobs[0].kernel, "softmax");
  EXPECT_TRUE(route_payload("issue_comment", comment("/kgate optimize nosuch")).jobs.empty());

  Routing rerun = route_payload("issue_comment", comment("/kgate rerun"));
  ASSERT_EQ(rerun.jobs.size(), 1u);
  EXPECT_EQ(rerun.jobs[0].kind, JobKind::kGate);
  EXPECT_EQ(rerun.jobs[0].pull_number, 2);

  Routing accept = route_payload("issue_comment", comment("/kgate accept-regression"));
  ASSERT_EQ(accept.jobs.size(), 1u);
  EXPECT_EQ(accept.jobs[0].kind, JobKind::kAcceptRegression);

  EXPECT_TRUE(route_payload("issue_comment", comment("/kgate rerun", "NONE")).jobs.empty());
  EXPECT_TRUE(route_payload("issue_comment", comment("please /kgate rerun")).jobs.empty());
  EXPECT_TRUE(route_payload("issue_comment", comment("/kgate dance")).jobs.empty());
  // The unchanged example comment has no command.
  EXPECT_TRUE(
      route_payload("issue_comment", example_payload("issue_comment", "created")).jobs.empty());
  json edited = comment("/kgate rerun");
  edited["action"] = "edited";
  EXPECT_TRUE(route_payload("issue_comment", edited).jobs.empty());
}

// `/kgate rebase` and `/kgate ignore` on kgate's own pull request: the kernel
// comes from the result marker of its description; the login travels with the job.
TEST_F(RouterTest, RebaseAndIgnoreOnKgatesPullRequest) {
  json rebase = comment("/kgate rebase");
  rebase["issue"]["body"] =
      "kgate found a faster version...\n<!-- kgate:result=0123abcd kernel=rmsnorm base=" +
      std::string(40, 'b') + " head=" + std::string(40, 'c') + " -->\n";
  rebase["comment"]["user"]["login"] = "alice";
  Routing r = route_payload("issue_comment", rebase);
  ASSERT_EQ(r.jobs.size(), 1u) << r.ignored;
  EXPECT_EQ(r.jobs[0].kind, JobKind::kRebase);
  EXPECT_EQ(r.jobs[0].kernel, "rmsnorm");
  EXPECT_EQ(r.jobs[0].pull_number, 2);
  EXPECT_EQ(r.jobs[0].requested_by, "alice");
  EXPECT_FALSE(r.jobs[0].base.empty());  // the default branch

  json ignore = rebase;
  ignore["comment"]["body"] = "/kgate ignore";
  r = route_payload("issue_comment", ignore);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].kind, JobKind::kIgnore);
  EXPECT_EQ(r.jobs[0].kernel, "rmsnorm");
  // The JSON the queue stores (and workflow_dispatch receives) keeps all of it.
  auto back = JobSpec::from_json(r.jobs[0].to_json());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, r.jobs[0]);

  // Someone without write access: refused, as every command.
  json outsider = ignore;
  outsider["comment"]["author_association"] = "NONE";
  r = route_payload("issue_comment", outsider);
  EXPECT_TRUE(r.jobs.empty());
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_EQ(r.notices[0].kind, "command-refused");

  // A pull request that is not kgate's (no result marker): refused with a notice.
  r = route_payload("issue_comment", comment("/kgate ignore"));
  EXPECT_TRUE(r.jobs.empty());
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_NE(r.notices[0].message.find("kgate's own pull requests"), std::string::npos);

  // `/kgate optimize` names who asked: it overrides an earlier `/kgate ignore`.
  json optimize = comment("/kgate optimize rmsnorm");
  optimize["comment"]["user"]["login"] = "bob";
  r = route_payload("issue_comment", optimize);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].requested_by, "bob");
}

TEST_F(RouterTest, CheckRunRerequested) {
  json p = example_payload("check_run", "rerequested");
  EXPECT_TRUE(route_payload("check_run", p).jobs.empty());  // another app's check run
  p["check_run"]["name"] = "kgate / gate";
  // GitHub's example names no pull request (what it sends for a fork's
  // commit): a head kgate knows no pull request of is anyone's code, and waits.
  ASSERT_TRUE(p["check_run"]["pull_requests"].empty());
  Routing unknown = route_payload("check_run", p);
  EXPECT_TRUE(unknown.jobs.empty());
  ASSERT_EQ(unknown.notices.size(), 1u);
  EXPECT_EQ(unknown.notices[0].kind, "waiting-for-approval");
  // Once a same-repository pull request with that head is known, it is gated.
  json pr = example_payload("pull_request", "opened");
  pr["repository"]["full_name"] = pr["pull_request"]["base"]["repo"]["full_name"] =
      pr["pull_request"]["head"]["repo"]["full_name"] = p["repository"]["full_name"];
  pr["pull_request"]["head"]["sha"] = p["check_run"]["head_sha"];
  route_payload("pull_request", pr);
  Routing r = route_payload("check_run", p);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].head, "d6fde92930d4715a2b49857d24b940956b26d2d3");
  EXPECT_EQ(r.jobs[0].pull_number, 2);
  EXPECT_TRUE(route_payload("check_run", example_payload("check_run", "completed")).jobs.empty());
}

TEST_F(RouterTest, RerequestedCheckOfAForkIsFoundByItsHeadAndWaits) {
  // The approval bypass: a fork's check run arrives with pull_requests
  // empty, and was gated as if it were a branch commit of the repository.
  json fork = fork_pr("opened");
  route_payload("pull_request", fork);
  json p = example_payload("check_run", "rerequested");
  p["check_run"]["name"] = "kgate";
  p["repository"] = fork["repository"];
  p["check_run"]["head_sha"] = fork["pull_request"]["head"]["sha"];
  p["check_run"]["pull_requests"] = json::array();
  Routing r = route_payload("check_run", p);
  EXPECT_TRUE(r.jobs.empty());
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_EQ(r.notices[0].kind, "waiting-for-approval");
  EXPECT_EQ(r.notices[0].pull_number, 2);  // found by its head
  // Approved for that commit, the re-requested check gates the pull request.
  route_payload("issue_comment", comment("/kgate approve"));
  Routing approved = route_payload("check_run", p);
  ASSERT_EQ(approved.jobs.size(), 1u);
  EXPECT_EQ(approved.jobs[0].pull_number, 2);
  EXPECT_EQ(approved.jobs[0].head, fork["pull_request"]["head"]["sha"]);
}

TEST_F(RouterTest, EveryOctokitExampleRoutesWithoutError) {
  size_t parsed = 0;
  for (const auto& entry : kgate::testing::octokit_examples())
    for (const auto& payload : entry["examples"]) {
      auto event = parse_webhook_event(entry["name"].get<std::string>(), payload.dump());
      ASSERT_TRUE(event.ok()) << entry["name"] << ": " << event.error().message;
      Routing r = route(*event, context);
      if (entry["name"] != "pull_request") {
        EXPECT_TRUE(r.jobs.empty()) << entry["name"];
      }
      ++parsed;
    }
  EXPECT_GT(parsed, 200u);
}

TEST(WebhookEvent, MalformedBodies) {
  EXPECT_FALSE(parse_webhook_event("push", "").ok());
  EXPECT_FALSE(parse_webhook_event("push", "{").ok());
  EXPECT_FALSE(parse_webhook_event("push", "[1,2]").ok());
  EXPECT_FALSE(parse_webhook_event("push", "{}").ok());  // no ref
  EXPECT_FALSE(parse_webhook_event("pull_request", R"({"pull_request": 3})").ok());
  EXPECT_FALSE(parse_webhook_event("pull_request",
                                   R"({"pull_request": {"number": 1, "head": {}, "base": {}}})")
                   .ok());
  EXPECT_TRUE(parse_webhook_event("star", R"({"action": "created"})").ok());
}

TEST(CommentCommand, Parsing) {
  auto c = parse_comment_command("Thanks!\n  /kgate optimize rmsnorm  \n/kgate rerun");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->verb, "optimize");
  EXPECT_EQ(c->argument, "rmsnorm");
  EXPECT_FALSE(parse_comment_command("/kgateoptimize x"));
  EXPECT_FALSE(parse_comment_command("no command"));
}

TEST_F(RouterTest, ApprovalNamesTheHeadByAtLeastSevenHexDigits) {
  route_payload("pull_request", fork_pr("opened"));
  const std::string head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
  for (const std::string& prefix :
       {std::string("c"), std::string("e"), std::string("ec26c3"), std::string("EC26C3E5"),
        head + "0", std::string("HEAD"), std::string("ec26c3e!"), std::string("f95f852")}) {
    Routing r = route_payload("issue_comment", comment("/kgate approve " + prefix));
    EXPECT_TRUE(r.approvals.empty()) << prefix;
    EXPECT_TRUE(r.jobs.empty()) << prefix;
    ASSERT_EQ(r.notices.size(), 1u) << prefix;
    EXPECT_EQ(r.notices[0].kind, "command-refused") << prefix;
  }
  Routing approval = route_payload("issue_comment", comment("/kgate approve ec26c3e"));
  ASSERT_EQ(approval.approvals.size(), 1u);
  ASSERT_EQ(approval.jobs.size(), 1u);
  // An approved head: another approval, with or without its id, queues no second gate.
  for (const std::string& again : {std::string("/kgate approve"), "/kgate approve " + head,
                                   std::string("/kgate approve ec26c3e57")}) {
    Routing r = route_payload("issue_comment", comment(again));
    EXPECT_TRUE(r.jobs.empty()) << again;
    EXPECT_TRUE(r.approvals.empty()) << again;
  }
  EXPECT_EQ(route_payload("issue_comment", comment("/kgate rerun")).jobs.size(), 1u);
}

TEST_F(RouterTest, AnApprovalPrefixThatAlsoStartsTheBaseIsAmbiguous) {
  json p = fork_pr("opened");
  p["pull_request"]["base"]["sha"] = "ec26c3e5" + std::string(32, '0');
  route_payload("pull_request", p);
  Routing r = route_payload("issue_comment", comment("/kgate approve ec26c3e5"));
  EXPECT_TRUE(r.approvals.empty());
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_NE(r.notices[0].message.find("ambiguous"), std::string::npos) << r.notices[0].message;
  EXPECT_EQ(route_payload("issue_comment", comment("/kgate approve ec26c3e57")).approvals.size(),
            1u);
}

TEST_F(RouterTest, CommitIdsAreCheckedAtIntake) {
  const std::string traversal = "../../../../etc/passwd000000000000000000";
  ASSERT_EQ(traversal.size(), 40u);
  for (const std::string& bad : {traversal, std::string("EC26C3E57CA3A959CA5AAD62DE7213C562F8C821"),
                                 std::string("ec26c3e"), std::string(41, 'a'), std::string()}) {
    json pr = example_payload("pull_request", "opened");
    pr["pull_request"]["head"]["sha"] = bad;
    auto head = parse_webhook_event("pull_request", pr.dump());
    ASSERT_FALSE(head.ok()) << bad;
    EXPECT_NE(head.error().message.find("pull_request.head.sha"), std::string::npos);
    pr = example_payload("pull_request", "opened");
    pr["pull_request"]["base"]["sha"] = bad;
    EXPECT_FALSE(parse_webhook_event("pull_request", pr.dump()).ok()) << bad;
    json run = example_payload("check_run", "rerequested");
    run["check_run"]["head_sha"] = bad;
    EXPECT_FALSE(parse_webhook_event("check_run", run.dump()).ok()) << bad;
    if (bad.empty()) continue;  // a push's ids may be absent
    json push = example_payload("push");
    push["after"] = bad;
    EXPECT_FALSE(parse_webhook_event("push", push.dump()).ok()) << bad;
  }
  EXPECT_TRUE(
      parse_webhook_event("pull_request", example_payload("pull_request", "opened").dump()).ok());
  EXPECT_TRUE(parse_webhook_event("push", example_payload("push").dump()).ok());
}

}  // namespace
}  // namespace kgate::webhooks
