#include "runner/compile_diagnostics.h"

#include <regex>
#include <sstream>

namespace kgate {
namespace {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_boundary(char c) {
  return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '`' || c == '(' || c == '[';
}

// Replaces `from` by `to` where it stands as a file name: at the start of
// the line or after a space or quote, and followed by ':' '(' ',' a quote or
// the end.
void replace_file_name(std::string& line, const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return;
  for (size_t p = line.find(from); p != std::string::npos; p = line.find(from, p)) {
    const size_t end = p + from.size();
    const bool starts = p == 0 || is_boundary(line[p - 1]);
    const bool ends = end == line.size() || line[end] == ':' || line[end] == '(' ||
                      line[end] == ',' || line[end] == '"' || line[end] == '\'' || line[end] == ' ';
    if (starts && ends) {
      line.replace(p, from.size(), to);
      p += to.size();
    } else {
      p = end;
    }
  }
}

// gcc and clang print "error:", nvcc and NVRTC "error:" or "error #20-D:".
enum class LineKind { kError, kWarning, kNote, kContext, kOther };

LineKind kind_of(const std::string& line) {
  static const std::regex main_line(
      R"(^(?:.+?)(?::\d+(?::\d+)?|\(\d+\)):?\s*(fatal error|catastrophic error|error|warning|note|remark)\b)");
  std::smatch m;
  if (std::regex_search(line, m, main_line)) {
    const std::string k = m[1];
    if (k == "warning" || k == "remark") return LineKind::kWarning;
    if (k == "note") return LineKind::kNote;
    return LineKind::kError;
  }
  // Lines that introduce the next diagnostic: include chains, the function
  // or template instantiation it is in.
  if (line.rfind("In file included from", 0) == 0 || line.rfind("                 from ", 0) == 0 ||
      line.find(": In function") != std::string::npos ||
      line.find(": In member function") != std::string::npos ||
      line.find(": In instantiation of") != std::string::npos ||
      line.find(": In lambda function") != std::string::npos ||
      line.find(": At global scope") != std::string::npos ||
      line.find("required from") != std::string::npos ||
      line.find("detected during") != std::string::npos)
    return LineKind::kContext;
  return LineKind::kOther;
}

// One diagnostic: the context lines before it, its main line, and what
// follows until the next one (code excerpt, caret, notes).
struct Group {
  std::vector<std::string> lines;
  bool error = false, warning = false;
};

}  // namespace

std::vector<CompileDiagnostic> parse_compile_diagnostics(std::string_view log) {
  static const std::regex gcc_style(
      R"(^(.+?):(\d+):(?:(\d+):)?\s*(fatal error|error|warning|note|catastrophic error):\s*(.*)$)");
  static const std::regex nvcc_style(
      R"(^(.+?)\((\d+)\):\s*(fatal error|error|warning|note|catastrophic error)\s*(?:#\w+-\w+)?:?\s*(.*)$)");
  std::vector<CompileDiagnostic> out;
  std::istringstream lines{std::string(log)};
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    CompileDiagnostic d;
    if (std::regex_match(line, m, gcc_style)) {
      d.file = m[1];
      d.line = std::stoi(m[2]);
      d.column = m[3].matched ? std::stoi(m[3]) : 0;
      d.kind = m[4];
      d.message = m[5];
    } else if (std::regex_match(line, m, nvcc_style)) {
      d.file = m[1];
      d.line = std::stoi(m[2]);
      d.kind = m[3];
      d.message = m[4];
    } else {
      continue;
    }
    if (d.kind == "catastrophic error") d.kind = "fatal error";
    out.push_back(std::move(d));
  }
  return out;
}

std::string normalize_compiler_line(const std::string& line, const DigestNames& names) {
  const std::string shown = names.shown_as.empty() ? base_name(names.source) : names.shown_as;
  // The host backend compiles a copy of the source in a work folder of its
  // cache: <cache>/work/<key>.<pid>.<n>/source.<ext>.
  static const std::regex work_copy(R"((/[^\s:'"`()]*)?/work/[0-9a-f]+\.\d+\.\d+/source\.\w+)");
  std::string out = std::regex_replace(line, work_copy, shown);
  replace_file_name(out, names.source, shown);
  replace_file_name(out, base_name(names.source), shown);
  // Any other absolute path: its file name only (a header of the toolkit,
  // kgate's own host header in the work folder).
  static const std::regex absolute(
      R"((^|[\s'"`(\[‘])/(?:[^\s:'"`()\[\]‘’/]+/)+([^\s:'"`()\[\]‘’/]+))");
  out = std::regex_replace(out, absolute, "$1$2");
  return out;
}

std::string compile_error_digest(std::string_view log, const DigestNames& names, size_t max_lines) {
  std::vector<Group> groups;
  Group pending;  // context lines waiting for their diagnostic
  bool any_error = false;
  int errors = 0;
  std::string first_error;
  for (std::string line : split_lines(log)) {
    // The host trampoline includes the source from its first line: that
    // include is kgate's, not the candidate's.
    if (line.rfind("In file included from " + names.source + ":1", 0) == 0) continue;
    if (line.find("The warnings can be suppressed with") != std::string::npos) continue;
    const LineKind kind = kind_of(line);
    line = normalize_compiler_line(line, names);
    if (kind == LineKind::kContext) {
      // A context line after a main line starts the next group.
      if (!pending.lines.empty() && (pending.error || pending.warning)) {
        groups.push_back(std::move(pending));
        pending = Group{};
      }
      pending.lines.push_back(line);
    } else if (kind == LineKind::kError || kind == LineKind::kWarning) {
      if (pending.error || pending.warning) {
        groups.push_back(std::move(pending));
        pending = Group{};
      }
      pending.lines.push_back(line);
      (kind == LineKind::kError ? pending.error : pending.warning) = true;
      if (kind == LineKind::kError) {
        any_error = true;
        if (errors++ == 0) first_error = line;
      }
    } else {
      pending.lines.push_back(line);  // notes, code excerpts, carets, summaries
    }
  }
  if (!pending.lines.empty()) groups.push_back(std::move(pending));

  std::vector<std::string> kept;
  for (const Group& g : groups) {
    if (any_error && g.warning && !g.error) continue;
    for (const std::string& l : g.lines) kept.push_back(l);
  }
  while (!kept.empty() && kept.back().find_first_not_of(" \t") == std::string::npos)
    kept.pop_back();
  std::string out;
  if (errors > 0)
    out = std::to_string(errors) + (errors == 1 ? " error" : " errors") +
          (errors > 1 ? "; the first: " + first_error : "") + "\n";
  const size_t first = kept.size() > max_lines ? kept.size() - max_lines : 0;
  if (first > 0) out += "[... " + std::to_string(first) + " earlier lines left out]\n";
  for (size_t i = first; i < kept.size(); ++i) out += kept[i] + "\n";
  return out;
}

}  // namespace kgate
