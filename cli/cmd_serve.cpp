// kgate serve: the webhook service. Deliveries are verified, stored and
// answered; jobs run as `kgate <subcommand>` subprocesses on worker threads,
// or are handed to GitHub Actions (--dispatch actions).
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <thread>

#include "bot/app_jwt_credentials.h"
#include "bot/forge_config.h"
#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "webhooks/forge_notifier.h"
#include "webhooks/gate_check_publisher.h"
#include "webhooks/github_permissions.h"
#include "webhooks/job_environment.h"
#include "webhooks/json_log.h"
#include "webhooks/webhook_secrets.h"
#include "webhooks/webhook_service.h"

namespace kgate::cli {
namespace {

int stop_pipe[2] = {-1, -1};

void on_stop_signal(int) {
  char byte = 1;
  ssize_t ignored = write(stop_pipe[1], &byte, 1);  // async-signal-safe
  (void)ignored;
}

// GPUs this host has, as the driver's device nodes show them (no CUDA context needed).
int count_gpus() {
  int n = 0;
  std::error_code ec;
  static const std::regex node("nvidia[0-9]+");
  for (const auto& entry : std::filesystem::directory_iterator("/dev", ec))
    if (std::regex_match(entry.path().filename().string(), node)) ++n;
  return n;
}

// The environment as it was at start: the credentials' values are erased
// from the process once read (webhooks/job_environment.h).
std::string env_or(const char* name, const std::string& fallback) {
  auto value = webhooks::service_env(name);
  return value && !value->empty() ? *value : fallback;
}

struct ServeArgs {
  std::string listen;
  std::string repo;
  std::string state_dir;
  std::string dispatch = "local";
  std::string durability = "auto";  // normal with redelivery recovery, full without
  double recovery_interval_min = 10;
  std::string recovery_hook;  // OWNER/NAME/HOOK_ID: a repository webhook; empty: the App's
  bool no_recovery = false;
  std::string backend = "auto";
  std::string forge;  // empty: notices to STATE/notices.jsonl, permissions from author_association
  double permission_ttl_s = 60;
  int workers = 0;
  webhooks::HttpLimits http;
  std::vector<std::string> job_env;
  std::vector<std::string> job_hide;
  int max_long_jobs = 0;
  int max_preemptions = 2;
  double job_timeout_s = 3600;
  int max_attempts = 3;
  double retry_base_s = 10;
  double drain_timeout_s = 30;
  std::string job_command;
  std::string dispatch_ref = "main";
  std::string gate_workflow = "kgate-gate.yml";
  std::string work_workflow = "kgate-optimize.yml";
};

// The recovery's GitHub access, or null without credentials.
Result<std::unique_ptr<webhooks::DeliveryRecovery>> make_recovery(const ServeArgs& args) {
  using webhooks::DeliveryRecovery;
  std::string api_url =
      env_or("KGATE_GITHUB_API_URL", env_or("GITHUB_API_URL", "https://api.github.com"));
  bot::GitHubClientOptions client;
  client.api_url = api_url;
  // A sweep is bounded: a stopping service waits for one call at most.
  client.timeout_s = 15;
  client.retry.max_attempts = 3;
  client.retry.max_wait_s = 60;
  webhooks::RecoveryOptions recovery;
  std::shared_ptr<bot::GitHubCredentials> credentials;
  if (!args.recovery_hook.empty()) {
    static const std::regex hook_re(R"(^([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/([0-9]+)$)");
    std::smatch m;
    if (!std::regex_match(args.recovery_hook, m, hook_re))
      return Error::bad_input(
          "--recovery-hook must be OWNER/NAME/HOOK_ID (the number in the "
          "webhook's settings URL), got '" +
          args.recovery_hook + "'");
    recovery.hook_path = "/repos/" + m[1].str() + "/" + m[2].str() + "/hooks/" + m[3].str();
    auto found = bot::github_credentials_from_env(webhooks::service_env, api_url, client);
    if (!found.ok()) return found.error().with_context("--recovery-hook");
    credentials = *found;
  } else {
    std::string app_id = env_or("KGATE_APP_ID", "");
    if (app_id.empty()) return std::unique_ptr<DeliveryRecovery>();
    std::string key = env_or("KGATE_APP_PRIVATE_KEY", "");
    std::string key_file = env_or("KGATE_APP_PRIVATE_KEY_FILE", "");
    if (key.empty() && !key_file.empty()) {
      auto text = read_file(key_file);
      if (!text.ok())
        return Error::bad_input("KGATE_APP_PRIVATE_KEY_FILE: cannot read " + key_file);
      key = *text;
    }
    if (key.empty())
      return Error::bad_input(
          "KGATE_APP_ID is set but neither KGATE_APP_PRIVATE_KEY nor KGATE_APP_PRIVATE_KEY_FILE: "
          "delivery recovery signs its requests with the App's key (or pass --no-recovery)");
    credentials = std::make_shared<bot::AppJwtCredentials>(app_id, key);
  }
  return std::make_unique<DeliveryRecovery>(
      std::make_shared<bot::GitHubClient>(credentials, client), recovery);
}

int serve(const ServeArgs& args) {
  using namespace kgate::webhooks;
  ServiceOptions options;
  std::smatch m;
  static const std::regex listen_re(R"(^\[?([^\]]*)\]?:([0-9]{1,5})$)");
  if (!std::regex_match(args.listen, m, listen_re))
    return fail(
        Error::bad_input("--listen must be HOST:PORT (127.0.0.1:8080), got '" + args.listen + "'"));
  options.host = m[1].str().empty() ? "0.0.0.0" : m[1].str();
  options.port = std::stoi(m[2].str());
  if (options.port > 65535) return fail(Error::bad_input("--listen: port above 65535"));
  std::error_code ec;
  if (!std::filesystem::is_directory(args.repo, ec))
    return fail(Error::bad_input("--repo " + args.repo + ": not a folder"));
  options.repo = std::filesystem::absolute(args.repo);
  options.state_dir = args.state_dir.empty() ? options.repo / ".kgate" / "serve"
                                             : std::filesystem::absolute(args.state_dir);
  auto secrets = load_webhook_secrets();
  if (!secrets.ok()) return fail(secrets.error());
  options.secrets = *secrets;
  // Jobs run code nobody reviewed as this user: this process's memory and
  // descriptors (/proc/PID/...) are not theirs to read, the credentials are
  // erased from its environment once read, and every secret value is
  // scrubbed from what kgate logs and keeps.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  seal_service_environment(options.secrets);
  if (args.durability != "auto" && args.durability != "full" && args.durability != "normal")
    return fail(Error::bad_input("--durability must be auto, full or normal"));
  options.http = args.http;

  int gpus = count_gpus();
  options.workers.workers = args.workers > 0 ? args.workers : std::max(1, gpus);
  options.workers.pin_gpus = gpus > 0 && options.workers.workers <= gpus;
  options.workers.max_attempts = args.max_attempts;
  options.workers.retry_base_s = args.retry_base_s;
  options.workers.drain_timeout_s = args.drain_timeout_s;
  options.workers.max_long_jobs = args.max_long_jobs;
  options.workers.max_preemptions = args.max_preemptions;

  if (args.dispatch == "actions") {
    options.dispatch = DispatchMode::kActions;
    options.actions.api_url = env_or("KGATE_GITHUB_API_URL", "https://api.github.com");
    // The GitHub App when configured (it can also queue the gate's check
    // run), else KGATE_GITHUB_TOKEN or GITHUB_TOKEN.
    auto env = [](const std::string& name) -> std::optional<std::string> {
      if (name == "GITHUB_TOKEN" && !env_or("KGATE_GITHUB_TOKEN", "").empty())
        return env_or("KGATE_GITHUB_TOKEN", "");
      return bot::process_env(name);
    };
    bot::GitHubClientOptions client;
    client.api_url = options.actions.api_url;
    auto credentials = bot::github_credentials_from_env(env, options.actions.api_url, client);
    if (!credentials.ok())
      return fail(Error::bad_input(
          "--dispatch actions needs the GitHub App (KGATE_APP_ID, KGATE_APP_PRIVATE_KEY(_FILE), "
          "KGATE_INSTALLATION_ID) or KGATE_GITHUB_TOKEN (or GITHUB_TOKEN) with actions:write on "
          "the repository: " +
          credentials.error().message));
    options.actions.credentials = *credentials;
    options.actions.ref = args.dispatch_ref;
    options.actions.gate_workflow = args.gate_workflow;
    options.actions.work_workflow = args.work_workflow;
  } else if (args.dispatch == "local") {
    options.dispatch = DispatchMode::kLocal;
    if (!args.job_command.empty()) {
      options.command.program = {args.job_command};
    } else {
      auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
      options.command.program = {ec ? std::string("/proc/self/exe") : self.string()};
    }
    options.command.timeout_s = args.job_timeout_s;
    options.command.backend = args.backend;
    options.command.env_extra = args.job_env;
    std::vector<std::filesystem::path> hide(args.job_hide.begin(), args.job_hide.end());
    options.command.hidden_files = secret_files(hide);
  } else {
    return fail(Error::bad_input("--dispatch must be local or actions"));
  }

  // --forge github: notices become check runs and comments, comment commands
  // are checked against GitHub's collaborator permission, and gate jobs
  // publish their verdict. Both objects outlive the service below.
  std::unique_ptr<Notifier> notifier;
  std::unique_ptr<PermissionLookup> permissions;
  std::unique_ptr<GateCheckPublisher> publisher;
  if (args.forge == "github") {
    std::string api_url =
        env_or("KGATE_GITHUB_API_URL", env_or("GITHUB_API_URL", "https://api.github.com"));
    bot::GitHubClientOptions client;
    client.api_url = api_url;
    // Asked off the intake path (webhooks/pending_router.h), which tries
    // again itself: one short attempt per lookup.
    client.timeout_s = 5;
    client.retry.max_attempts = 1;
    auto credentials = bot::github_credentials_from_env(service_env, api_url, client);
    if (!credentials.ok()) return fail(credentials.error().with_context("--forge github"));
    PermissionCacheOptions cache;
    cache.ttl_s = args.permission_ttl_s;
    cache.negative_ttl_s = std::min(args.permission_ttl_s, cache.negative_ttl_s);
    permissions = std::make_unique<GitHubPermissions>(
        std::make_shared<bot::GitHubClient>(*credentials, client), cache);
    options.permissions = permissions.get();
    std::filesystem::path repo_dir = options.repo;
    // Notices and check runs: every call bounded. Notices are tried again by
    // the service itself (one short attempt each, so shutdown waits for one
    // at most); a gate's check run gets a second attempt.
    auto make_forge = [repo_dir, api_url](double timeout_s, int attempts) {
      return [=](const std::string& repository) {
        bot::ForgeConfig config;
        config.kind = "github";
        config.github_repo = repository;
        config.api_url = api_url;
        config.repo_dir = repo_dir;
        config.client.timeout_s = timeout_s;
        config.client.retry.max_attempts = attempts;
        config.client.retry.max_wait_s = 30;
        return bot::make_forge(config, service_env);
      };
    };
    notifier = std::make_unique<ForgeNotifier>(make_forge(5, 1));
    options.notifier = notifier.get();
    publisher = std::make_unique<GateCheckPublisher>(make_forge(10, 2));
    options.command.publisher = publisher.get();
    // Optimize jobs open their pull requests on GitHub only when the operator
    // hands them a token (--job-env GITHUB_TOKEN); otherwise through the
    // local forge in STATE.
    for (const std::string& name : args.job_env)
      if (name == "GITHUB_TOKEN" || name == "GH_TOKEN") options.command.forge = "github";
    // Private repositories: fetching a pull request's head needs the token too.
    std::shared_ptr<bot::GitHubCredentials> git_credentials = *credentials;
    options.command.git_password = [git_credentials] { return git_credentials->git_password(); };
  } else if (!args.forge.empty()) {
    return fail(Error::bad_input("--forge must be github (or left out for the local files)"));
  }

  // Redelivery recovery: with the App's (or a repository webhook's)
  // deliveries readable, answered deliveries a power loss dropped from the
  // last commits are asked for again at start and every few minutes.
  std::unique_ptr<DeliveryRecovery> recovery;
  if (!args.no_recovery) {
    auto made = make_recovery(args);
    if (!made.ok()) return fail(made.error());
    recovery = std::move(*made);
  }
  // auto: an answered delivery must survive a power loss either way. With
  // recovery GitHub holds the copy, so commits need not wait for an fsync;
  // without it every group commit is fsynced.
  std::string durability =
      args.durability != "auto" ? args.durability : (recovery ? "normal" : "full");
  options.durability = durability == "full" ? Durability::kFull : Durability::kNormal;
  if (!recovery)
    json_log(
        {{"msg", "delivery recovery off"},
         {"reason", args.no_recovery ? "--no-recovery"
                                     : "no GitHub credentials: set KGATE_APP_ID and "
                                       "KGATE_APP_PRIVATE_KEY(_FILE) for the App's webhook, or "
                                       "--recovery-hook OWNER/NAME/HOOK_ID with GITHUB_TOKEN"},
         {"durability", durability},
         {"risk", durability == "normal"
                      ? "a power loss can drop the last deliveries answered"
                      : "none for answered deliveries (each commit is fsynced); "
                        "deliveries GitHub could not make while the service was down "
                        "are not asked for again"}});
  options.recovery = recovery.get();
  options.recovery_interval_s = args.recovery_interval_min * 60;

  // Request bodies of up to 25 MB are allocated on many threads: with glibc's
  // adaptive threshold they would end up in per-thread arenas that never
  // shrink. A fixed threshold keeps them in mmap, returned when freed.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  auto service = WebhookService::open(options);
  if (!service.ok()) return fail(service.error());
  if (pipe(stop_pipe) != 0) return fail(Error::infrastructure("pipe failed"));
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  WebhookService* running = service->get();
  std::thread watcher([running] {
    char byte = 0;
    while (read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    if (byte == 1) running->stop();
  });
  progress("serving webhooks on " + options.host + ":" + std::to_string((*service)->port()) +
           " (POST /webhook, GET /healthz, GET /metrics)");
  Status served = (*service)->run();
  char done = 2;  // wakes the watcher if no signal came
  ssize_t ignored = write(stop_pipe[1], &done, 1);
  (void)ignored;
  watcher.join();
  service->reset();
  if (!served.ok()) return fail(served.error());
  return 0;
}

CommandRegistration registration_serve(
    "serve", "Receive GitHub webhooks and run (or dispatch) kgate jobs", [](CLI::App& app) {
      auto args = std::make_shared<ServeArgs>();
      app.add_option("--listen", args->listen, "HOST:PORT to listen on (127.0.0.1:8080)")
          ->required();
      app.add_option("--repo", args->repo, "the checkout of the kernel repository")->required();
      app.add_option("--state-dir", args->state_dir,
                     "queue and job outputs (default REPO/.kgate/serve)");
      app.add_option("--dispatch", args->dispatch,
                     "local: run jobs here; actions: workflow_dispatch")
          ->capture_default_str();
      app.add_option("--backend", args->backend,
                     "backend jobs run with: host, cuda, or auto (cuda when a GPU is found)")
          ->check(CLI::IsMember({"auto", "host", "cuda"}))
          ->capture_default_str();
      app.add_option("--forge", args->forge,
                     "github: notices as check runs and comments, permissions from GitHub's "
                     "API, gate verdicts published (credentials from the environment); "
                     "default: STATE/notices.jsonl and author_association")
          ->check(CLI::IsMember({"github"}));
      app.add_option("--permission-ttl", args->permission_ttl_s,
                     "seconds GitHub's \"write access\" answer is reused (\"no\": at most 15)")
          ->capture_default_str();
      app.add_option("--workers", args->workers, "job threads (default: one per GPU, at least 1)");
      app.add_option("--http-threads", args->http.threads,
                     "connections served at once (more than --max-connections-per-peer)")
          ->capture_default_str();
      app.add_option("--request-timeout", args->http.request_timeout_s,
                     "seconds a request may take to arrive whole (GitHub gives up after 10)")
          ->capture_default_str();
      app.add_option("--max-connections", args->http.max_connections,
                     "connections accepted and not yet closed; more are refused at once")
          ->capture_default_str();
      app.add_option("--max-connections-per-peer", args->http.max_connections_per_peer,
                     "connections of one address served at once (0: no limit; behind a proxy)")
          ->capture_default_str();
      app.add_option("--job-env", args->job_env,
                     "NAME: pass this variable to optimize, baseline and sweep jobs (never to "
                     "gates); repeatable");
      app.add_option("--job-hide", args->job_hide,
                     "PATH: a file or folder jobs must not read, besides the secret files "
                     "kgate knows; repeatable");
      app.add_option("--max-long-jobs", args->max_long_jobs,
                     "optimize and sweep jobs at once (0: workers - 1, at least 1)")
          ->capture_default_str();
      app.add_option("--max-preemptions", args->max_preemptions,
                     "times a long job may be stopped (and queued again) for a gate; 0: never")
          ->capture_default_str();
      app.add_option("--durability", args->durability,
                     "auto: normal when redelivery recovery is on, else full; normal: fsync at "
                     "checkpoints (survives process crashes; a power loss is covered by "
                     "recovery); full: fsync each commit (survives a power loss by itself)")
          ->check(CLI::IsMember({"auto", "full", "normal"}))
          ->capture_default_str();
      app.add_option("--recovery-interval", args->recovery_interval_min,
                     "minutes between redelivery recovery sweeps (0: at start only)")
          ->capture_default_str();
      app.add_option("--recovery-hook", args->recovery_hook,
                     "OWNER/NAME/HOOK_ID: recover a repository webhook's deliveries (default: "
                     "the GitHub App's webhook when KGATE_APP_ID is set)");
      app.add_flag("--no-recovery", args->no_recovery,
                   "never ask GitHub to redeliver deliveries missing here");
      app.add_option("--job-timeout", args->job_timeout_s, "seconds before a job is killed")
          ->capture_default_str();
      app.add_option("--max-attempts", args->max_attempts, "attempts before a job is failed")
          ->capture_default_str();
      app.add_option("--retry-base", args->retry_base_s, "seconds before the first retry (doubles)")
          ->capture_default_str();
      app.add_option("--drain-timeout", args->drain_timeout_s,
                     "on SIGTERM, seconds (from the signal) running jobs and unsent notices get; "
                     "then jobs are queued again and notices kept for the next start")
          ->capture_default_str();
      app.add_option(
          "--job-command", args->job_command,
          "program run instead of kgate itself for jobs (gets the subcommand's arguments)");
      app.add_option("--dispatch-ref", args->dispatch_ref, "branch whose workflows are dispatched")
          ->capture_default_str();
      app.add_option("--gate-workflow", args->gate_workflow, "workflow file for gate jobs")
          ->capture_default_str();
      app.add_option("--work-workflow", args->work_workflow,
                     "workflow file for optimize, baseline and sweep jobs")
          ->capture_default_str();
      return [args] { return serve(*args); };
    });

}  // namespace
}  // namespace kgate::cli
