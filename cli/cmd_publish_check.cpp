// kgate publish-check: publishes the check-run reports that `kgate gate
// --check-report` wrote in another job (workflows/kgate-gate.yml: the GPU
// jobs run pull-request code with no token in reach; this runs in a job that
// runs none, with the App's token). Reports of several GPU models become one
// check run. It completes the check run the kgate service queued on the pull
// request's head when it dispatched the workflow (--check-run), or creates
// one; a gate job that left no report is reported from its result.
#include <algorithm>
#include <cstdio>

#include "bot/check_report_file.h"
#include "bot/check_run_publisher.h"
#include "bot/forge_config.h"
#include "cli/command.h"
#include "cli/forge_options.h"
#include "core/file_util.h"
#include "core/log.h"

namespace kgate::cli {
namespace {

struct PublishCheckArgs {
  bot::ForgeConfig forge;
  std::string head;
  std::string check_run;  // the queued check run's id; empty: create one
  std::vector<std::string> reports;
  std::string details_url;
  std::string job_result;  // needs.<gate>.result: success, failure, cancelled, skipped
  std::string name = "kgate";
};

// "kgate-check-gpu-h100.json" -> "gpu-h100"
std::string label_of(const std::filesystem::path& file) {
  std::string stem = file.stem().string();
  const std::string prefix = "kgate-check-";
  return stem.rfind(prefix, 0) == 0 ? stem.substr(prefix.size()) : stem;
}

Result<std::vector<std::pair<std::string, bot::CheckRunReport>>> load_reports(
    const std::vector<std::string>& paths) {
  std::vector<std::filesystem::path> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (auto it = std::filesystem::recursive_directory_iterator(p, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".json" &&
            it->path().filename().string().rfind("kgate-check-", 0) == 0)
          files.push_back(it->path());
    } else if (std::filesystem::exists(p, ec)) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, bot::CheckRunReport>> out;
  for (const auto& f : files) {
    auto text = read_file(f);
    if (!text.ok()) return text.error();
    auto json = nlohmann::json::parse(*text, nullptr, false);
    auto report = bot::check_report_from_json(json);
    if (!report.ok()) return report.error().with_context(f.string());
    out.emplace_back(label_of(f), std::move(report.value()));
  }
  return out;
}

int run(PublishCheckArgs args) {
  auto reports = load_reports(args.reports);
  if (!reports.ok()) return fail(reports.error());
  bot::CheckRunReport report;
  if (!reports->empty()) {
    report = bot::merge_check_reports(*reports);
    // A gate job that failed after some GPU models reported still fails the check.
    if (args.job_result == "failure" && report.conclusion == "success") {
      report.conclusion = "failure";
      report.title += "; a gate job failed without a report";
    }
  } else if (args.job_result == "cancelled") {
    report = {.title = "kgate: the gate was cancelled",
              .conclusion = "cancelled",
              .summary_markdown = "The gate's run was cancelled (a newer commit, or by hand)."};
  } else {
    // No verdict is not a pass: a commit that stops the gate from reporting fails it.
    report = {.title = "kgate: the gate left no report",
              .conclusion = "failure",
              .summary_markdown = "The gate job ended (" +
                                  (args.job_result.empty() ? "unknown" : args.job_result) +
                                  ") without writing a report; its log says why."};
  }
  report.name = args.name;
  if (!args.details_url.empty()) report.details_url = args.details_url;

  auto forge = bot::make_forge(args.forge);
  if (!forge.ok()) return fail(forge.error().with_context("--forge"));
  Status published;
  if (!args.check_run.empty()) {
    published = (*forge)->finish_check(args.check_run, args.head, report);
  } else {
    published = bot::publish_check_run(**forge, args.head, report);
  }
  if (!published.ok()) return fail(published.error().with_context("publishing the check run"));
  std::printf("%s: %s (%s)\n", report.name.c_str(), report.conclusion.c_str(),
              report.title.c_str());
  return 0;
}

CommandRegistration registration_publish_check(
    "publish-check",
    "Publish check-run reports written by `kgate gate --check-report` (one check run per commit)",
    [](CLI::App& app) {
      auto args = std::make_shared<PublishCheckArgs>();
      add_forge_options(app, args->forge);
      app.add_option("--head", args->head, "The commit the check run is on")->required();
      app.add_option("--check-run", args->check_run,
                     "Complete this check run (queued by the kgate service); default: create one");
      app.add_option("--report", args->reports,
                     "Report files, or folders searched for kgate-check-*.json (several: one per "
                     "GPU model, labelled by the file name after 'kgate-check-')");
      app.add_option("--details-url", args->details_url,
                     "Where the check run links to (the Actions run)");
      app.add_option("--job-result", args->job_result,
                     "The gate job's result (success, failure, cancelled, skipped): with no "
                     "report, cancelled is reported as cancelled and anything else as a failure");
      app.add_option("--name", args->name, "The check's name")->capture_default_str();
      return [args] { return run(*args); };
    });

}  // namespace
}  // namespace kgate::cli
