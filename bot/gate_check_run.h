#pragma once
// The gate's report as a check run: a title that says what happened, the
// conclusion (failure when a head does not compile or a shape fails the
// policy, neutral when only measuring failed, success otherwise), the
// Markdown summary, and an annotation on the kernel's source for every
// failure so the reviewer sees it in the diff.
#include <string>

#include "bot/check_run_report.h"
#include "gate/gate_report.h"

namespace kgate::bot {

CheckRunReport gate_check_run(const GateReport& report, const std::string& summary_markdown);

}  // namespace kgate::bot
