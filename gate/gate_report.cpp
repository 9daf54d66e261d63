#include "gate/gate_report.h"

#include "gate/workload_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/number_format.h"

namespace kgate {
namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

// Markdown table cells: no pipes or newlines.
std::string cell(std::string s) {
  for (char& c : s)
    if (c == '|' || c == '\n' || c == '\r') c = c == '|' ? '/' : ' ';
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return s;
}

// Workflow-command data: %, CR and LF escaped as GitHub documents.
std::string command_escape(const std::string& s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

std::string seconds_or_dash(double s) {
  return std::isfinite(s) && s > 0 ? format_seconds(s) : "-";
}

std::string verdict_cell(const ShapeGate& s) {
  std::string v(to_string(s.verdict));
  if (s.fails) return "**" + v + " (fail)**";
  if (s.accepted_regression) return v + " (regression accepted)";
  if (s.verdict == Verdict::kChecked) return s.reason.empty() ? "checked, not timed" : s.reason;
  // Timed, but its change does not count (gate/shape_decision.h).
  if (!s.counts && !s.reason.empty()) {
    if (s.timing != ShapeTiming::kGate) return v + " (" + s.reason + ")";
    return v + (s.verdict == Verdict::kSlower ? ", not failing: " : ", not counted: ") + s.reason;
  }
  if (s.verdict == Verdict::kSlower) return v + " (within policy)";
  if ((s.verdict == Verdict::kSame || s.verdict == Verdict::kNew) && !s.reason.empty())
    return v + " (" + s.reason + ")";
  return v;
}

// "- **rmsnorm**: host reference (decode-b1, edge-1x1); cuda reference
// (prefill-8k)", for kernels where something other than the host reference
// judged a shape (docs/gate.md, "Oracles").
std::string oracle_lines(const GateReport& report) {
  std::string out;
  for (const KernelGate& k : report.kernels) {
    std::vector<std::pair<std::string, std::string>> groups;  // oracle, shapes
    for (const ShapeGate& s : k.shapes) {
      if (s.oracle.empty()) continue;
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& g) { return g.first == s.oracle; });
      if (it == groups.end()) {
        groups.push_back({s.oracle, s.shape});
      } else {
        it->second += ", " + s.shape;
      }
    }
    if (groups.empty() || (groups.size() == 1 && groups[0].first == "host reference")) continue;
    out += "- **" + k.kernel + "**: ";
    for (size_t i = 0; i < groups.size(); ++i)
      out += (i ? "; " : "") + cell(groups[i].first) + " (" + cell(groups[i].second) + ")";
    out += "\n";
  }
  return out;
}

std::string repo_path(const GateReport& r, const std::string& source) {
  if (r.manifest_dir.empty()) return source;
  return (std::filesystem::path(r.manifest_dir) / source).lexically_normal().generic_string();
}

}  // namespace

std::string format_change(const RatioInterval& r) {
  if (r.pairs == 0) return "-";
  std::string out = format_percent(r.estimate - 1);
  if (std::isfinite(r.high) && r.low > 0)
    out += " [" + format_percent(r.low - 1, false) + ", " + format_percent(r.high - 1, false) + "]";
  else
    out += " [no interval]";
  return out;
}

bool GateReport::passed() const {
  if (!manifest_error.empty()) return false;
  for (const KernelGate& k : kernels)
    if (!k.passed()) return false;
  if (workload.is_object() && !workload.value("passed", false)) return false;
  return true;
}

nlohmann::json GateReport::to_json() const {
  nlohmann::json j = {{"repository", repository},
                      {"base", base},
                      {"head", head},
                      {"base_commit", base_commit},
                      {"head_commit", head_commit},
                      {"manifest_dir", manifest_dir},
                      {"pull_request", pull_number},
                      {"passed", passed()},
                      {"notes", notes},
                      {"kernels", nlohmann::json::array()}};
  if (!manifest_error.empty()) {
    j["manifest_error"] = manifest_error;
    j["manifest_file"] = manifest_file;
  }
  for (const KernelGate& k : kernels) j["kernels"].push_back(k.to_json());
  if (!workload.is_null()) j["workload"] = workload;
  return j;
}

GateReport GateReport::from_json(const nlohmann::json& j) {
  GateReport r;
  r.repository = j.value("repository", "");
  r.base = j.value("base", "");
  r.head = j.value("head", "");
  r.base_commit = j.value("base_commit", "");
  r.head_commit = j.value("head_commit", "");
  r.manifest_dir = j.value("manifest_dir", "");
  r.pull_number = j.value("pull_request", int64_t{0});
  r.notes = j.value("notes", std::vector<std::string>{});
  r.manifest_error = j.value("manifest_error", "");
  r.manifest_file = j.value("manifest_file", "kgate.json");
  r.workload = j.value("workload", nlohmann::json());
  for (const auto& k : j.value("kernels", nlohmann::json::array()))
    r.kernels.push_back(KernelGate::from_json(k));
  return r;
}

int accept_regressions(GateReport& report, const std::string& accepted_by) {
  int accepted = 0;
  for (KernelGate& k : report.kernels)
    for (ShapeGate& s : k.shapes)
      if (s.fails && s.verdict == Verdict::kSlower) {
        s.fails = false;
        s.accepted_regression = true;
        ++accepted;
      }
  if (accepted > 0)
    report.notes.push_back(std::to_string(accepted) + " slower shape" + (accepted == 1 ? "" : "s") +
                           " accepted as a regression by " + accepted_by);
  return accepted;
}

std::string render_markdown(const GateReport& report, size_t max_chars) {
  std::string out = std::string("## kgate: ") + (report.passed() ? "passed" : "failed") + "\n\n";
  std::string line;
  if (report.pull_number > 0) line += "Pull request #" + std::to_string(report.pull_number) + ": ";
  if (!report.base.empty())
    line += "`" + report.base + "` (" + report.base_commit.substr(0, 12) + ") → `" + report.head +
            "` (" + report.head_commit.substr(0, 12) + ")";
  std::string device;
  for (const KernelGate& k : report.kernels)
    if (!k.device.name.empty()) {
      // Which GPU of the host, where it has an identity beyond its model.
      const std::string id = k.device.identity();
      device = k.device.name + (id.empty() || id == "host" ? "" : " (" + id + ")");
    }
  if (!device.empty())
    line += (line.empty() ? "On " : " on ") + device + ".";
  else if (!line.empty())
    line += ".";
  if (!report.kernels.empty()) {
    const GatePolicy& p = report.kernels.front().policy;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "Policy: fail above %+.1f%%, report faster beyond %.1f%%, %.0f%% confidence, "
                  "%.2g s per shape.",
                  p.max_regression * 100, p.min_improvement * 100, p.confidence * 100, p.budget_s);
    line += (line.empty() ? "" : " ") + std::string(buf);
  }
  out += line;
  out += "\n\n";
  if (!report.manifest_error.empty())
    out += "**The head's kgate.json does not load**, so no kernel was gated:\n\n```\n" +
           report.manifest_error + "\n```\n\n";
  size_t listed = report.notes.size();
  for (const std::string& n : report.notes) out += "- " + n + "\n";
  for (const KernelGate& k : report.kernels)
    for (const std::string& n : k.notes) out += "- " + k.kernel + ": " + n + "\n", ++listed;
  if (listed > 0) out += "\n";
  if (!report.workload.is_null()) out += workload_validation_markdown(report.workload);
  if (report.kernels.empty()) return out;

  struct Row {
    int rank;
    std::string text;
  };
  std::vector<Row> rows;
  for (const KernelGate& k : report.kernels) {
    if (!k.head_compiled) {
      rows.push_back(
          {0, "| " + cell(k.kernel) + " | - | - | - | - | - | - | **does not compile** |\n"});
      continue;
    }
    for (const ShapeGate& s : k.shapes) {
      std::string base_col = seconds_or_dash(s.base_median_s),
                  head_col = seconds_or_dash(s.head_median_s);
      if (s.baseline)
        head_col += " (stored " + seconds_or_dash(s.baseline->median_s) + ", " +
                    format_percent(s.baseline->ratio - 1) + ")";
      int rank = s.fails                                                                ? 0
                 : s.verdict == Verdict::kSlower || s.verdict == Verdict::kInconclusive ? 1
                                                                                        : 2;
      rows.push_back(
          {rank, "| " + cell(k.kernel) + " | " + cell(s.shape) + " | " + cell(s.phase) + " | " +
                     base_col + " | " + head_col + " | " + format_change(s.interval) + " | " +
                     format_error(s.check.max_abs_error) + " / " +
                     format_error(s.check.max_rel_error) + " | " + verdict_cell(s) + " |\n"});
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.rank < b.rank; });
  std::string table =
      "| kernel | shape | phase | base | head | change [interval] | max abs / rel error | verdict "
      "|\n"
      "|---|---|---|---|---|---|---|---|\n";
  size_t shown = 0;
  std::string details;
  for (const KernelGate& k : report.kernels) {
    if (!k.head_compiled)
      details += "\n<details><summary>" + k.kernel + ": head does not compile</summary>\n\n```\n" +
                 k.head_compile_error + "```\n</details>\n";
    for (const ShapeGate& s : k.shapes)
      if (s.fails && !s.reason.empty())
        details += "- **" + k.kernel + " / " + s.shape + "**: " + cell(s.reason) + "\n";
  }
  std::string base_notes;
  for (const KernelGate& k : report.kernels)
    for (const ShapeGate& s : k.shapes)
      if (!s.base_note.empty())
        base_notes += "- **" + k.kernel + " / " + s.shape + "**: " + cell(s.base_note) + "\n";
  if (!base_notes.empty()) details += "\n### The base\n" + base_notes;
  size_t reserve = out.size() + details.size() + 200;
  for (const Row& r : rows) {
    if (reserve + table.size() + r.text.size() > max_chars) break;
    table += r.text;
    ++shown;
  }
  out += table;
  if (shown < rows.size())
    out += "\n_" + std::to_string(rows.size() - shown) +
           " more rows left out (see the JSON report)._\n";
  if (!details.empty())
    out += details.rfind("\n### The base\n", 0) == 0 ? details : "\n### Failures\n" + details;
  std::string oracles = oracle_lines(report);
  if (!oracles.empty()) out += "\n### What judged correctness\n" + oracles;
  out +=
      "\nChange is head/base − 1: Hodges–Lehmann estimate over interleaved rounds, with its "
      "signed-rank "
      "interval.\n";
  if (out.size() > max_chars) out.resize(max_chars);
  return out;
}

std::string render_junit(const GateReport& report) {
  int tests = 0, failures = 0, errors = 0;
  std::string suites;
  for (const KernelGate& k : report.kernels) {
    int kt = 0, kf = 0, ke = 0;
    std::string cases;
    if (!k.head_compiled) {
      ++kt, ++kf;
      cases += "    <testcase classname=\"kgate." + xml_escape(k.kernel) +
               "\" name=\"compile\">\n"
               "      <failure message=\"head does not compile\">" +
               xml_escape(k.head_compile_error) + "</failure>\n    </testcase>\n";
    }
    for (const ShapeGate& s : k.shapes) {
      ++kt;
      cases += "    <testcase classname=\"kgate." + xml_escape(k.kernel) + "\" name=\"" +
               xml_escape(s.shape) + "\" time=\"" + std::to_string(s.timing_seconds) + "\">\n";
      std::string summary = std::string(to_string(s.verdict)) + " " + format_change(s.interval);
      if (s.verdict == Verdict::kError) {
        ++ke;
        cases += "      <error message=\"" + xml_escape(s.reason) + "\"/>\n";
      } else if (s.fails) {
        ++kf;
        cases += "      <failure message=\"" + xml_escape(summary) + "\">" + xml_escape(s.reason) +
                 "</failure>\n";
      }
      if (!s.reason.empty()) summary += ": " + s.reason;
      if (!s.base_note.empty()) summary += " (base: " + s.base_note + ")";
      cases += "      <system-out>" + xml_escape(summary) + "</system-out>\n    </testcase>\n";
    }
    tests += kt, failures += kf, errors += ke;
    suites += "  <testsuite name=\"" + xml_escape(k.kernel) + "\" tests=\"" + std::to_string(kt) +
              "\" failures=\"" + std::to_string(kf) + "\" errors=\"" + std::to_string(ke) +
              "\">\n" + cases + "  </testsuite>\n";
  }
  if (!report.manifest_error.empty()) {
    ++tests, ++failures;
    suites +=
        "  <testsuite name=\"kgate.json\" tests=\"1\" failures=\"1\" errors=\"0\">\n"
        "    <testcase classname=\"kgate.manifest\" name=\"" +
        xml_escape(report.manifest_file) +
        "\">\n      <failure message=\"the head's kgate.json does not load\">" +
        xml_escape(report.manifest_error) + "</failure>\n    </testcase>\n  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kgate gate\" tests=\"" +
         std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
         std::to_string(errors) + "\">\n" + suites + "</testsuites>\n";
}

std::string render_github_annotations(const GateReport& report) {
  std::string out;
  if (!report.manifest_error.empty())
    out += "::error file=" + command_escape(repo_path(report, report.manifest_file), true) +
           ",line=1,title=" + command_escape("kgate: the head's kgate.json does not load", true) +
           "::" + command_escape(report.manifest_error, false) + "\n";
  for (const KernelGate& k : report.kernels) {
    std::string file = command_escape(repo_path(report, k.source), true);
    if (!k.head_compiled) {
      out += "::error file=" + file + ",line=" + std::to_string(k.source_line) +
             ",title=" + command_escape("kgate: " + k.kernel + " does not compile", true) +
             "::" + command_escape(k.head_compile_error, false) + "\n";
      continue;
    }
    for (const ShapeGate& s : k.shapes) {
      if (!s.fails) continue;
      std::string title =
          "kgate: " + k.kernel + " " + std::string(to_string(s.verdict)) + " on " + s.shape;
      std::string message = s.reason.empty() ? format_change(s.interval) : s.reason;
      out += "::error file=" + file + ",line=" + std::to_string(k.source_line) +
             ",title=" + command_escape(title, true) + "::" + command_escape(message, false) + "\n";
    }
  }
  return out;
}

namespace {

void rewrite(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

void rewrite(nlohmann::json& j, const std::string& from, const std::string& to) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    rewrite(s, from, to);
    j = s;
  } else if (j.is_structured()) {
    for (auto& item : j) rewrite(item, from, to);
  }
}

void rewrite(CheckReport& check, const std::string& from, const std::string& to) {
  rewrite(check.reason, from, to);
}

}  // namespace

void rewrite_paths(GateReport& report, const std::string& from, const std::string& to) {
  rewrite(report.manifest_error, from, to);
  for (std::string& n : report.notes) rewrite(n, from, to);
  rewrite(report.workload, from, to);
  for (KernelGate& k : report.kernels) {
    rewrite(k.why, from, to);
    rewrite(k.head_compile_error, from, to);
    rewrite(k.base_compile_error, from, to);
    for (std::string& n : k.notes) rewrite(n, from, to);
    for (ShapeGate& s : k.shapes) {
      rewrite(s.reason, from, to);
      rewrite(s.base_note, from, to);
      rewrite(s.check, from, to);
      if (s.base_check) rewrite(*s.base_check, from, to);
    }
  }
}

}  // namespace kgate
