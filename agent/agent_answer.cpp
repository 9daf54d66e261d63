#include "agent/agent_answer.h"

#include <algorithm>
#include <cctype>

namespace kgate {
namespace {

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Fence {
  std::string language;
  std::string body;
};

// Every ``` fenced block, in order. An unclosed last fence runs to the end
// (models cut off by a token limit).
std::vector<Fence> fences(const std::string& text) {
  std::vector<Fence> out;
  size_t pos = 0;
  while (true) {
    size_t open = text.find("```", pos);
    if (open == std::string::npos) break;
    size_t line_end = text.find('\n', open);
    if (line_end == std::string::npos) break;
    Fence f;
    f.language = lower(trim(text.substr(open + 3, line_end - open - 3)));
    size_t close = text.find("\n```", line_end);
    if (close == std::string::npos) {
      f.body = text.substr(line_end + 1);
      out.push_back(f);
      break;
    }
    f.body = text.substr(line_end + 1, close + 1 - (line_end + 1));
    out.push_back(f);
    size_t after = text.find('\n', close + 1);
    pos = after == std::string::npos ? text.size() : after;
  }
  return out;
}

bool is_json_language(const std::string& lang) {
  return lang == "json" || lang == "jsonc";
}

// Code without fences: from the first preprocessor or declaration line to the
// last closing brace.
std::optional<std::string> bare_code(const std::string& text) {
  size_t start = text.find("#include");
  if (start == std::string::npos) start = text.find("extern \"C\"");
  if (start == std::string::npos) return std::nullopt;
  size_t line_start = text.rfind('\n', start);
  start = line_start == std::string::npos ? 0 : line_start + 1;
  size_t end = text.rfind('}');
  if (end == std::string::npos || end < start) return std::nullopt;
  return text.substr(start, end - start + 1) + "\n";
}

void read_settings(const nlohmann::json& j, AgentAnswer& a) {
  if (j.contains("tunables") && j["tunables"].is_object())
    for (const auto& [k, v] : j["tunables"].items())
      if (v.is_number_integer()) a.tunables[k] = v.get<int64_t>();
  if (j.contains("flags") && j["flags"].is_array())
    for (const auto& f : j["flags"])
      if (f.is_string()) a.flags.push_back(f.get<std::string>());
  if (j.contains("launch") && !j["launch"].is_null()) a.launch = j["launch"];
}

// A number comes back as its JSON text (persisted_json.h's string_field gives "" for one).
std::string text_or_number_field(const nlohmann::json& j, const char* name) {
  if (!j.contains(name)) return "";
  if (j[name].is_string()) return j[name].get<std::string>();
  if (j[name].is_number()) return j[name].dump();
  return "";
}

bool from_json_object(const nlohmann::json& j, AgentAnswer& a) {
  if (!j.is_object()) return false;
  bool any = false;
  for (const char* k : {"bottleneck", "change", "plan", "expected_gain", "risks", "code"})
    any |= j.contains(k);
  if (!any) return false;
  a.bottleneck = text_or_number_field(j, "bottleneck");
  a.change = text_or_number_field(j, "change");
  if (a.change.empty()) a.change = text_or_number_field(j, "plan");
  a.expected_gain = text_or_number_field(j, "expected_gain");
  a.risks = text_or_number_field(j, "risks");
  std::string code = text_or_number_field(j, "code");
  if (!trim(code).empty()) {
    // Some models fence the code inside the JSON string too.
    auto inner = fences(code);
    a.code = inner.empty() ? code : inner.front().body;
  }
  read_settings(j, a);
  return true;
}

// "BOTTLENECK: ..." style sections; headings may be bold or markdown headers.
void read_sections(const std::string& text, AgentAnswer& a) {
  struct Heading {
    const char* word;
    std::string* field;
  };
  Heading headings[] = {{"bottleneck", &a.bottleneck},
                        {"change", &a.change},
                        {"plan", &a.change},
                        {"expected gain", &a.expected_gain},
                        {"expected_gain", &a.expected_gain},
                        {"risks", &a.risks},
                        {"risk", &a.risks}};
  std::string* current = nullptr;
  bool in_fence = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("```", 0) == 0) {
      in_fence = !in_fence;
      current = nullptr;
      continue;
    }
    if (in_fence) continue;
    std::string bare = line;
    bare.erase(std::remove(bare.begin(), bare.end(), '*'), bare.end());
    size_t first = bare.find_first_not_of("# \t-");
    bare = first == std::string::npos ? "" : bare.substr(first);
    std::string low = lower(bare);
    bool matched = false;
    for (const Heading& h : headings) {
      std::string w = h.word;
      if (low.rfind(w, 0) == 0 && low.size() > w.size() && (low[w.size()] == ':')) {
        current = h.field;
        if (!current->empty()) *current += " ";
        *current += trim(bare.substr(w.size() + 1));
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (current && !trim(line).empty())
      *current += (current->empty() ? "" : " ") + trim(line);
    else if (trim(line).empty())
      current = nullptr;
  }
}

}  // namespace

std::string first_sentences(const std::string& text, int max_sentences) {
  int count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((text[i] == '.' || text[i] == '!' || text[i] == '?') &&
        (i + 1 == text.size() || std::isspace(static_cast<unsigned char>(text[i + 1])))) {
      if (++count == max_sentences) return trim(text.substr(0, i + 1));
    }
  }
  return trim(text);
}

AgentAnswer parse_agent_answer(const std::string& text) {
  AgentAnswer a;
  auto blocks = fences(text);
  bool structured = false;
  // Whole answer as JSON (structured output), or a JSON fence holding it.
  auto whole = nlohmann::json::parse(text, nullptr, false);
  if (!whole.is_discarded()) structured = from_json_object(whole, a);
  if (!structured)
    for (const Fence& f : blocks)
      if (is_json_language(f.language) || f.language.empty()) {
        auto j = nlohmann::json::parse(f.body, nullptr, false);
        if (j.is_discarded()) continue;
        if (from_json_object(j, a))
          structured = a.code.has_value();
        else
          read_settings(j, a);  // a settings block: {"tunables": ..., "flags": ...}
        if (structured) break;
      }
  if (!structured) {
    read_sections(text, a);
    // The longest non-JSON fence is the kernel.
    const Fence* best = nullptr;
    for (const Fence& f : blocks) {
      if (is_json_language(f.language)) continue;
      if (f.language.empty() && !nlohmann::json::parse(f.body, nullptr, false).is_discarded())
        continue;
      if (!best || f.body.size() > best->body.size()) best = &f;
    }
    if (best && !trim(best->body).empty())
      a.code = best->body;
    else if (blocks.empty())
      a.code = bare_code(text);
  }
  a.bottleneck = first_sentences(a.bottleneck, 3);
  return a;
}

nlohmann::json AgentAnswer::to_json() const {
  nlohmann::json t = nlohmann::json::object();
  for (const auto& [k, v] : tunables) t[k] = v;
  return {{"bottleneck", bottleneck},
          {"change", change},
          {"expected_gain", expected_gain},
          {"risks", risks},
          {"has_code", code.has_value()},
          {"tunables", t},
          {"flags", flags},
          {"launch", launch}};
}

std::string AgentAnswer::plan_text() const {
  std::string s;
  if (!bottleneck.empty()) s += "bottleneck: " + bottleneck;
  if (!change.empty()) s += (s.empty() ? "" : "; ") + std::string("change: ") + change;
  if (!tunables.empty()) {
    s += s.empty() ? "tunables:" : "; tunables:";
    for (const auto& [k, v] : tunables) s += " " + k + "=" + std::to_string(v);
  }
  if (!flags.empty()) {
    s += s.empty() ? "flags:" : "; flags:";
    for (const auto& f : flags) s += " " + f;
  }
  if (!launch.is_null()) s += (s.empty() ? "launch: " : "; launch: ") + launch.dump();
  return s;
}

nlohmann::json agent_answer_schema() {
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"bottleneck", "change", "expected_gain", "risks", "code", "tunables", "flags"}},
      {"properties",
       {{"bottleneck", {{"type", "string"}, {"description", "At most three sentences."}}},
        {"change", {{"type", "string"}}},
        {"expected_gain", {{"type", "string"}}},
        {"risks", {{"type", "string"}}},
        {"code", {{"type", "string"}, {"description", "The complete kernel source file."}}},
        {"tunables",
         {{"type", "object"},
          {"description", "Values for the manifest's tunables; {} to keep the current ones."},
          {"additionalProperties", {{"type", "integer"}}}}},
        {"flags", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"launch",
         {{"type", {"object", "null"}},
          {"description",
           "Only when the code needs another launch (e.g. one warp per row): grid and block "
           "(1 to 3 dimensions each) and shared_bytes (dynamic shared memory), each an integer "
           "or an expression over the shape's variables and the tunables, e.g. "
           "\"ceil_div(rows, 8)\"; null keeps the current launch."},
          {"properties",
           {{"grid", {{"type", "array"}, {"items", {{"type", {"integer", "string"}}}}}},
            {"block", {{"type", "array"}, {"items", {{"type", {"integer", "string"}}}}}},
            {"shared_bytes", {{"type", {"integer", "string"}}}}}},
          {"required", {"grid", "block"}}}}}}};
}

std::string reflection_in(const std::string& answer) {
  size_t at = answer.rfind("REFLECTION:", 0) == 0 ? 0 : answer.find("\nREFLECTION:");
  if (at == std::string::npos) return "";
  if (answer[at] == '\n') ++at;
  std::string out;
  size_t line = at + std::string("REFLECTION:").size();
  while (line < answer.size()) {
    size_t end = answer.find('\n', line);
    if (end == std::string::npos) end = answer.size();
    std::string text = answer.substr(line, end - line);
    const bool blank = text.find_first_not_of(" \t\r") == std::string::npos;
    const bool section = text.rfind("BOTTLENECK:", 0) == 0 || text.rfind("CHANGE:", 0) == 0 ||
                         text.rfind("```", 0) == 0 || text.rfind("STOP:", 0) == 0;
    if (!out.empty() && (blank || section)) break;
    if (!blank) out += (out.empty() ? "" : " ") + text.substr(text.find_first_not_of(" \t"));
    line = end + 1;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace kgate
