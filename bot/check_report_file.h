#pragma once
// A check-run report written to a file by the job that measured
// (`kgate gate --check-report FILE`) and published by another that holds the
// token (`kgate publish-check`): in GitHub Actions the job that runs pull-
// request code on a GPU runner has no token in reach, and a job that runs no
// pull-request code reports its verdict.
//
// Several reports of one check (the same gate on several GPU models) become
// one: the most severe conclusion, every title, each summary under its label.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bot/check_run_report.h"
#include "core/status.h"

namespace kgate::bot {

nlohmann::json check_report_to_json(const CheckRunReport& report);
Result<CheckRunReport> check_report_from_json(const nlohmann::json& value);

// failure and timed_out outrank action_required, cancelled, neutral, skipped, success.
int conclusion_severity(const std::string& conclusion);

// (label, report) pairs; one report is returned as it is (labelled in the title).
CheckRunReport merge_check_reports(
    const std::vector<std::pair<std::string, CheckRunReport>>& labelled);

}  // namespace kgate::bot
