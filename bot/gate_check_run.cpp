#include "bot/gate_check_run.h"

#include <filesystem>

namespace kgate::bot {

CheckRunReport gate_check_run(const GateReport& report, const std::string& summary_markdown) {
  CheckRunReport check;
  check.summary_markdown = summary_markdown;
  int failed = 0, errors = 0, shapes = 0;
  if (!report.manifest_error.empty()) {
    // The change broke its own kgate.json: a failed check, pointed at the file.
    ++failed;
    std::filesystem::path file =
        report.manifest_dir.empty()
            ? std::filesystem::path(report.manifest_file)
            : std::filesystem::path(report.manifest_dir) / report.manifest_file;
    check.annotations.push_back({.path = file.lexically_normal().generic_string(),
                                 .line = 1,
                                 .title = "kgate: the head's kgate.json does not load",
                                 .message = report.manifest_error});
  }
  for (const KernelGate& k : report.kernels) {
    std::string path = k.source;
    if (!report.manifest_dir.empty())
      path = (std::filesystem::path(report.manifest_dir) / k.source)
                 .lexically_normal()
                 .generic_string();
    if (!k.head_compiled) {
      ++failed;
      check.annotations.push_back({.path = path,
                                   .line = k.source_line,
                                   .title = "kgate: " + k.kernel + " does not compile",
                                   .message = k.head_compile_error});
    }
    for (const ShapeGate& s : k.shapes) {
      ++shapes;
      if (s.verdict == Verdict::kError) {
        ++errors;
        continue;
      }
      if (!s.fails) continue;
      ++failed;
      check.annotations.push_back(
          {.path = path,
           .line = k.source_line,
           .title =
               "kgate: " + k.kernel + " " + std::string(to_string(s.verdict)) + " on " + s.shape,
           .message = s.reason.empty() ? format_change(s.interval) : s.reason});
    }
  }
  if (failed > 0) {
    check.conclusion = "failure";
    check.title = "kgate: " + std::to_string(failed) + " failure" + (failed == 1 ? "" : "s");
  } else if (errors > 0) {
    check.conclusion = "neutral";
    check.title = "kgate: " + std::to_string(errors) + " shape" + (errors == 1 ? "" : "s") +
                  " could not be measured";
  } else {
    check.conclusion = "success";
    check.title = report.kernels.empty() ? "kgate: no kernel changed"
                                         : "kgate: passed (" + std::to_string(shapes) + " shape" +
                                               (shapes == 1 ? "" : "s") + ")";
  }
  if (!report.manifest_error.empty()) check.title = "kgate: the head's kgate.json does not load";
  bool accepted = false;
  for (const KernelGate& k : report.kernels)
    for (const ShapeGate& s : k.shapes) accepted |= s.accepted_regression;
  if (accepted && check.conclusion == "success") check.title += " (regression accepted)";
  if (report.pull_number > 0) check.title += " (#" + std::to_string(report.pull_number) + ")";
  return check;
}

}  // namespace kgate::bot
