#include "bot/check_report_file.h"

namespace kgate::bot {

using nlohmann::json;

json check_report_to_json(const CheckRunReport& r) {
  json annotations = json::array();
  for (const Annotation& a : r.annotations)
    annotations.push_back({{"path", a.path},
                           {"line", a.line},
                           {"end_line", a.end_line},
                           {"level", a.level},
                           {"title", a.title},
                           {"message", a.message}});
  return {{"name", r.name},
          {"title", r.title},
          {"conclusion", r.conclusion},
          {"summary", r.summary_markdown},
          {"details", r.details_markdown},
          {"details_url", r.details_url},
          {"annotations", annotations}};
}

Result<CheckRunReport> check_report_from_json(const json& v) {
  if (!v.is_object()) return Error::bad_input("a check report is a JSON object");
  try {
    CheckRunReport r;
    r.name = v.value("name", "kgate");
    r.title = v.value("title", "");
    r.conclusion = v.value("conclusion", "");
    r.summary_markdown = v.value("summary", "");
    r.details_markdown = v.value("details", "");
    r.details_url = v.value("details_url", "");
    for (const json& a : v.value("annotations", json::array()))
      r.annotations.push_back({.path = a.value("path", ""),
                               .line = a.value("line", 1),
                               .end_line = a.value("end_line", 0),
                               .level = a.value("level", "failure"),
                               .title = a.value("title", ""),
                               .message = a.value("message", "")});
    if (!is_valid_conclusion(r.conclusion))
      return Error::bad_input("'" + r.conclusion + "' is not a check-run conclusion");
    return r;
  } catch (const json::exception& e) {
    return Error::bad_input(std::string("a check report: ") + e.what());
  }
}

int conclusion_severity(const std::string& c) {
  if (c == "failure") return 6;
  if (c == "timed_out") return 5;
  if (c == "action_required") return 4;
  if (c == "cancelled") return 3;
  if (c == "neutral") return 2;
  if (c == "skipped") return 1;
  return 0;  // success
}

CheckRunReport merge_check_reports(
    const std::vector<std::pair<std::string, CheckRunReport>>& labelled) {
  CheckRunReport out;
  if (labelled.empty()) return out;
  out.name = labelled.front().second.name;
  out.conclusion = "success";
  for (const auto& [label, r] : labelled) {
    if (conclusion_severity(r.conclusion) > conclusion_severity(out.conclusion))
      out.conclusion = r.conclusion;
    const std::string tagged = label.empty() ? r.title : r.title + " [" + label + "]";
    out.title += (out.title.empty() ? "" : "; ") + tagged;
    if (labelled.size() == 1) {
      out.summary_markdown = r.summary_markdown;
      out.details_markdown = r.details_markdown;
    } else {
      out.summary_markdown +=
          "## " + (label.empty() ? r.title : label) + "\n\n" + r.summary_markdown + "\n\n";
      if (!r.details_markdown.empty())
        out.details_markdown += "## " + label + "\n\n" + r.details_markdown + "\n\n";
    }
    for (Annotation a : r.annotations) {
      if (!label.empty() && labelled.size() > 1) a.title += " [" + label + "]";
      out.annotations.push_back(std::move(a));
    }
    if (out.details_url.empty()) out.details_url = r.details_url;
  }
  return out;
}

}  // namespace kgate::bot
