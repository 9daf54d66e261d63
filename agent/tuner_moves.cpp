#include "agent/tuner_moves.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "agent/persisted_json.h"
#include "core/entry_name.h"

namespace kgate {
namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Whether `word` occurs in `text` as a whole token (not inside a longer
// identifier or number).
bool has_token(const std::string& text, const std::string& word) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !ident_char(text[at - 1]);
    const size_t end = at + word.size();
    const bool right = end >= text.size() || !ident_char(text[end]);
    if (left && right) return true;
  }
  return false;
}

std::string strip_spaces(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// The index of the bracket matching the one at `open` in `code`; npos if none.
size_t matching(const std::string& code, size_t open) {
  const char o = code[open], c = o == '(' ? ')' : o == '{' ? '}' : o == '[' ? ']' : '>';
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    if (code[i] == o) ++depth;
    if (code[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

// A `__global__` function of the source named `name`: where the keyword is,
// and its body's braces (npos for a declaration without a body).
struct KernelDef {
  size_t global_at = 0;
  size_t body_open = std::string::npos, body_close = std::string::npos;
};

std::vector<KernelDef> kernel_defs(const std::string& code, const std::string& name) {
  std::vector<KernelDef> out;
  for (size_t at = code.find("__global__"); at != std::string::npos;
       at = code.find("__global__", at + 1)) {
    // The name is the identifier just before the parameter list's '('
    // (skipping __launch_bounds__(...)).
    size_t i = at + 10;
    size_t paren = std::string::npos;
    while (i < code.size()) {
      size_t p = code.find('(', i);
      if (p == std::string::npos) break;
      size_t e = p;
      while (e > i && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
      size_t b = e;
      while (b > i && ident_char(code[b - 1])) --b;
      if (code.substr(b, e - b) == "__launch_bounds__") {
        i = matching(code, p);
        if (i == std::string::npos) break;
        ++i;
        continue;
      }
      if (code.substr(b, e - b) == name) paren = p;
      break;
    }
    if (paren == std::string::npos) continue;
    KernelDef d;
    d.global_at = at;
    size_t close = matching(code, paren);
    if (close == std::string::npos) continue;
    size_t next = code.find_first_not_of(" \t\r\n", close + 1);
    if (next != std::string::npos && code[next] == '{') {
      d.body_open = next;
      d.body_close = matching(code, next);
    }
    out.push_back(d);
  }
  return out;
}

std::string entry_name(const std::string& entry) {
  auto e = EntryName::parse(entry);
  return e.ok() ? e->unqualified() : entry;
}

bool positive_integer(const std::string& s, int64_t& value) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  value = std::stoll(s);
  return value > 0;
}

// The block's size when it is one literal dimension (B, or B, 1, 1).
std::optional<int64_t> literal_block(const CandidateLaunch& launch) {
  if (launch.block.empty()) return std::nullopt;
  int64_t b = 0;
  if (!positive_integer(strip_spaces(launch.block[0]), b)) return std::nullopt;
  for (size_t i = 1; i < launch.block.size(); ++i)
    if (strip_spaces(launch.block[i]) != "1") return std::nullopt;
  return b;
}

}  // namespace

std::string code_only(const std::string& s) {
  std::string out = s;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') out[i++] = ' ';
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? s.size() : e + 2;
      for (; i < e; ++i)
        if (s[i] != '\n') out[i] = ' ';
      --i;
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i];
      for (++i; i < s.size() && s[i] != q && s[i] != '\n'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) out[i++] = ' ';
        out[i] = ' ';
      }
    }
  }
  return out;
}

ProfileGuidance ProfileGuidance::from_context(const nlohmann::json& profile) {
  ProfileGuidance g;
  const nlohmann::json data = object_field(profile, "data");
  std::string cls =
      string_field(data, "bottleneck", string_field(profile, "bottleneck", "unknown"));
  if (cls == "memory_poor_coalescing" || cls == "memory_efficient" || cls == "memory-bound")
    g.bottleneck = "memory-bound";
  else if (cls == "compute_bound" || cls == "compute-bound")
    g.bottleneck = "compute-bound";
  else if (cls == "latency_low_occupancy" || cls == "latency-low-occupancy")
    g.bottleneck = "latency-low-occupancy";
  else if (cls == "latency_bound" || cls == "latency-bound")
    g.bottleneck = "latency-bound";
  else if (cls == "register_limited" || cls == "register-limited")
    g.bottleneck = "register-limited";
  else if (cls == "launch_bound" || cls == "launch-bound")
    g.bottleneck = "launch-bound";
  const nlohmann::json derived = object_field(data, "derived");
  const double spr = number_field(derived, "ld_sectors_per_request", -1);
  const double used = number_field(derived, "ld_coalescing_pct", -1);
  // Narrow or poorly coalesced loads matter whenever the kernel waits on
  // memory: memory-bound, and latency-bound too, where few bytes in flight
  // per request is why it waits (on the H200 a naive rmsnorm profiled
  // latency-bound at 2 sectors per request gained most from 16-byte loads;
  // docs/BENCHMARKS.md, "Profile-guided plans").
  if (g.bottleneck == "memory-bound" || g.bottleneck == "latency-bound" ||
      g.bottleneck == "latency-low-occupancy") {
    g.narrow_accesses = spr > 0 && spr < 4;
    g.poor_coalescing = cls == "memory_poor_coalescing" || (used >= 0 && used < 60);
  }
  const nlohmann::json occ = object_field(data, "theoretical_occupancy");
  g.occupancy_limiter = string_field(occ, "limiter");
  g.registers_limit_occupancy =
      g.occupancy_limiter == "registers" && number_field(occ, "pct", 100) < 100;
  g.registers = static_cast<int>(
      integer_field(object_field(data, "resources"), "registers",
                    integer_field(object_field(profile, "resources"), "registers", -1)));
  g.evidence = string_field(data, "evidence");
  return g;
}

std::string block_size_blocker(const MoveInput& in) {
  if (in.backend != "cuda") return "the host backend has no block";
  auto b = literal_block(in.launch);
  if (!b) return "the block is not one literal size";
  const std::string code = code_only(in.source);
  const std::string name = entry_name(in.entry);
  auto defs = kernel_defs(code, name);
  const KernelDef* def = nullptr;
  for (const KernelDef& d : defs)
    if (d.body_close != std::string::npos) def = &d;
  if (!def) return "the entry's definition is not in the source";
  const std::string body = code.substr(def->body_open, def->body_close - def->body_open + 1);
  if (body.find("blockDim") == std::string::npos) return "the kernel does not read blockDim";
  const std::string B = std::to_string(*b);
  if (has_token(body, B)) return "the kernel's body uses the literal " + B;
  if (code.find("__launch_bounds__") != std::string::npos)
    return "the source has __launch_bounds__";
  // Static shared arrays sized with the literal, or with a macro that is it.
  std::vector<std::string> sizes = {B};
  static const std::regex define(R"(#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*(\d+)\s*\)?\s*\n)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), define);
       it != std::sregex_iterator(); ++it)
    if ((*it)[2] == B) sizes.push_back((*it)[1]);
  static const std::regex shared(R"(__shared__[^;\[]*\[([^\]]+)\])");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), shared);
       it != std::sregex_iterator(); ++it)
    for (const std::string& s : sizes)
      if (has_token((*it)[1], s)) return "a __shared__ array is sized by " + s;
  // The body may use a macro that is the block size.
  for (size_t i = 1; i < sizes.size(); ++i)
    if (has_token(body, sizes[i])) return "the kernel's body uses " + sizes[i] + " (" + B + ")";
  auto e = EntryName::parse(in.entry);
  if (e.ok())
    for (const std::string& a : e->template_args())
      if (has_token(a, B)) return "the entry's template argument " + a + " is the block size";
  for (const std::string& a : in.arg_expressions)
    if (has_token(a, B)) return "the argument size \"" + a + "\" depends on the block size";
  for (const std::string& g : in.launch.grid)
    if (!rescale_over_block(g, *b, *b * 2)) return "the grid \"" + g + "\" uses " + B;
  if (!rescale_over_block(in.launch.shared_bytes, *b, *b * 2) &&
      strip_spaces(in.launch.shared_bytes) != "0")
    return "the shared memory \"" + in.launch.shared_bytes + "\" uses " + B;
  return "";
}

std::optional<std::string> rescale_over_block(const std::string& expr, int64_t from, int64_t to) {
  const std::string F = std::to_string(from), T = std::to_string(to);
  std::string e = strip_spaces(expr);
  if (!has_token(e, F)) return expr;
  // ceil_div(X, F) -> ceil_div(X, T)
  std::string out;
  size_t pos = 0;
  for (size_t at = e.find("ceil_div("); at != std::string::npos; at = e.find("ceil_div(", pos)) {
    size_t open = at + 8, close = matching(e, open);
    if (close == std::string::npos) return std::nullopt;
    int depth = 0;
    size_t comma = std::string::npos;
    for (size_t i = open + 1; i < close; ++i) {
      if (e[i] == '(') ++depth;
      if (e[i] == ')') --depth;
      if (e[i] == ',' && depth == 0) comma = i;
    }
    out += e.substr(pos, at - pos);
    if (comma != std::string::npos && e.substr(comma + 1, close - comma - 1) == F)
      out += "ceil_div(" + e.substr(open + 1, comma - open - 1) + ", " + T + ")";
    else
      out += e.substr(at, close - at + 1);
    pos = close + 1;
  }
  out += e.substr(pos);
  // (X + F - 1) / F and (X + (F - 1)) / F -> (X + T - 1) / T
  const std::regex round_up("\\((.+)\\+" + F + "-1\\)/" + F);
  out = std::regex_replace(out, round_up, "($1 + " + T + " - 1) / " + T);
  const std::regex round_up2("\\((.+)\\+\\(" + F + "-1\\)\\)/" + F);
  out = std::regex_replace(out, round_up2, "($1 + " + T + " - 1) / " + T);
  // (X + F-1) / F written with the literal F-1 (255 for 256).
  const std::regex round_up3("\\((.+)\\+" + std::to_string(from - 1) + "\\)/" + F);
  out = std::regex_replace(out, round_up3, "($1 + " + T + " - 1) / " + T);
  if (has_token(out, F)) return std::nullopt;
  return out;
}

std::optional<std::string> with_launch_bounds(const std::string& source, const std::string& entry,
                                              const std::string& bounds) {
  const std::string code = code_only(source);
  if (code.find("__launch_bounds__") != std::string::npos) return std::nullopt;
  auto defs = kernel_defs(code, entry_name(entry));
  if (defs.size() != 1 || defs[0].body_close == std::string::npos) return std::nullopt;
  std::string out = source;
  out.insert(defs[0].global_at + 10, " __launch_bounds__(" + bounds + ")");
  return out;
}

std::optional<std::string> with_unroll_pragmas(const std::string& source, const std::string& entry,
                                               int factor) {
  const std::string code = code_only(source);
  auto defs = kernel_defs(code, entry_name(entry));
  const KernelDef* def = nullptr;
  for (const KernelDef& d : defs)
    if (d.body_close != std::string::npos) def = &d;
  if (!def) return std::nullopt;
  std::vector<size_t> inserts;
  for (size_t at = code.find("for", def->body_open);
       at != std::string::npos && at < def->body_close; at = code.find("for", at + 3)) {
    if ((at > 0 && ident_char(code[at - 1])) || ident_char(code[at + 3])) continue;
    size_t open = code.find_first_not_of(" \t\r\n", at + 3);
    if (open == std::string::npos || code[open] != '(') continue;
    size_t close = matching(code, open);
    if (close == std::string::npos) continue;
    // Innermost: no loop in its body.
    size_t body = code.find_first_not_of(" \t\r\n", close + 1);
    size_t body_end = body != std::string::npos && code[body] == '{' ? matching(code, body)
                                                                     : code.find(';', close);
    if (body_end == std::string::npos) continue;
    const std::string inner = code.substr(close, body_end - close);
    if (has_token(inner, "for") || has_token(inner, "while")) continue;
    // A bound the compiler cannot see as a constant: the condition reads a
    // name other than the loop variable.
    const std::string header = code.substr(open + 1, close - open - 1);
    size_t s1 = header.find(';'), s2 = header.find(';', s1 == std::string::npos ? 0 : s1 + 1);
    if (s1 == std::string::npos || s2 == std::string::npos) continue;
    const std::string init = header.substr(0, s1), cond = header.substr(s1 + 1, s2 - s1 - 1);
    static const std::regex ident(R"([A-Za-z_]\w*)");
    std::set<std::string> names;
    for (auto it = std::sregex_iterator(cond.begin(), cond.end(), ident);
         it != std::sregex_iterator(); ++it)
      names.insert(it->str());
    std::string var;
    if (std::smatch m; std::regex_search(init, m, std::regex(R"(([A-Za-z_]\w*)\s*=)"))) var = m[1];
    names.erase(var);
    if (names.empty()) continue;
    // Already has a pragma on the line before.
    size_t line = source.rfind('\n', at);
    size_t prev_end = line == std::string::npos ? 0 : line;
    size_t prev = prev_end == 0 ? 0 : source.rfind('\n', prev_end - 1);
    std::string before = source.substr(prev == std::string::npos ? 0 : prev, prev_end - prev);
    if (before.find("#pragma") != std::string::npos) continue;
    inserts.push_back(at);
  }
  if (inserts.empty()) return std::nullopt;
  std::string out = source;
  for (auto it = inserts.rbegin(); it != inserts.rend(); ++it) {
    size_t line = out.rfind('\n', *it);
    size_t start = line == std::string::npos ? 0 : line + 1;
    std::string indent = out.substr(start, *it - start);
    const bool at_line_start = indent.find_first_not_of(" \t") == std::string::npos;
    const std::string pragma = "#pragma unroll " + std::to_string(factor) + "\n";
    if (at_line_start)
      out.insert(start, indent + pragma);
    else
      out.insert(*it, "\n" + pragma + indent.substr(0, indent.find_first_not_of(" \t")));
  }
  return out;
}

std::vector<SourceMove> untuned_moves(const MoveInput& in) {
  std::vector<SourceMove> moves;
  const ProfileGuidance& g = in.guidance;
  const bool registers = g.bottleneck == "register-limited" || g.registers_limit_occupancy;
  const bool low_occupancy = g.bottleneck == "latency-low-occupancy";
  const bool latency = g.bottleneck == "latency-bound";
  const bool memory = g.bottleneck == "memory-bound" || g.bottleneck == "unknown";
  const bool launch_bound = g.bottleneck == "launch-bound";
  auto has_flag = [&](const std::string& f) {
    return std::find(in.flags.begin(), in.flags.end(), f) != in.flags.end();
  };
  const std::string safe = "none for correctness (the gate checks every shape)";
  if (in.backend != "cuda") {
    auto add = [&](std::vector<std::string> flags, int priority, std::string why) {
      for (const std::string& f : flags)
        if (has_flag(f)) return;
      SourceMove m;
      m.name = flags.front();
      m.add_flags = flags;
      m.priority = priority;
      m.why = std::move(why);
      m.expected = "0-50% on loops the default -O2 leaves scalar";
      m.risks = "none: the options change no result (no fast math, no contraction)";
      moves.push_back(m);
    };
    add({"-O3"}, 3, "-O3 vectorizes and unrolls loops the default -O2 leaves alone");
    add({"-march=native", "-ffp-contract=off"}, 4,
        "the CPU's full vector width; -ffp-contract=off keeps a*b+c unfused, as the original "
        "rounds it");
    add({"-funroll-loops"}, 5, "unrolled inner loops: fewer branches, more independent work");
    return moves;
  }
  const std::optional<int64_t> block = literal_block(in.launch);
  const std::string name = entry_name(in.entry);

  // The block size.
  if (block && block_size_blocker(in).empty()) {
    std::vector<int64_t> sizes;
    for (int64_t s : {*block * 2, *block / 2, *block * 4, *block / 4, int64_t{128}, int64_t{256},
                      int64_t{512}, int64_t{1024}})
      if (s >= 32 && s <= 1024 && s % 32 == 0 && s != *block &&
          std::find(sizes.begin(), sizes.end(), s) == sizes.end())
        sizes.push_back(s);
    for (size_t i = 0; i < sizes.size(); ++i) {
      const int64_t s = sizes[i];
      CandidateLaunch l = in.launch;
      l.block = {std::to_string(s)};
      for (size_t d = 1; d < in.launch.block.size(); ++d) l.block.push_back("1");
      bool ok = true;
      for (std::string& e : l.grid) {
        auto r = rescale_over_block(e, *block, s);
        ok = ok && r.has_value();
        if (r) e = *r;
      }
      auto shared = rescale_over_block(in.launch.shared_bytes, *block, s);
      if (!ok || !shared) continue;
      l.shared_bytes = *shared;
      const bool larger = s > *block;
      int priority = 4 + static_cast<int>(i);
      if ((low_occupancy || launch_bound) && larger) priority -= 3;
      if (registers && !larger) priority -= 3;
      if (memory && i < 2) priority -= 1;
      SourceMove m;
      m.name = "block " + std::to_string(s);
      m.launch = l;
      m.priority = priority;
      m.why = larger ? "larger blocks: more warps per block to hide latency, fewer blocks to "
                       "schedule"
                     : "smaller blocks: more blocks per multiprocessor, finer tail, fewer "
                       "registers per block";
      if (g.occupancy_limiter == "blocks per SM" && larger)
        m.why += "; occupancy is limited by blocks per SM";
      m.expected = "5-30%";
      m.risks = "the launch changes (grid " + l.text() + "): launchers outside kgate must follow";
      moves.push_back(m);
    }
  }

  // Register caps.
  if (block) {
    const std::string B = std::to_string(*block);
    if (auto src = with_launch_bounds(in.source, in.entry, B)) {
      SourceMove m;
      m.name = "__launch_bounds__(" + B + ")";
      m.source = *src;
      m.priority = registers ? 0 : 6;
      m.why = "tells the compiler the block is " + B +
              " threads, so it may use registers up to what such a block allows";
      m.expected = "0-20%";
      m.risks = safe;
      moves.push_back(m);
    }
    const int64_t min_blocks = std::max<int64_t>(1, 2048 / *block);
    if (min_blocks > 1)
      if (auto src =
              with_launch_bounds(in.source, in.entry, B + ", " + std::to_string(min_blocks))) {
        SourceMove m;
        m.name = "__launch_bounds__(" + B + ", " + std::to_string(min_blocks) + ")";
        m.source = *src;
        m.priority = registers ? 0 : 7;
        m.why = "caps registers so " + std::to_string(min_blocks) +
                " blocks fit on a multiprocessor (full occupancy)";
        m.expected = "0-30% where occupancy is limited by registers";
        m.risks = "spills if the cap is too tight";
        moves.push_back(m);
      }
  }
  for (int cap : {128, 64, 32}) {
    if (g.registers >= 0 && g.registers <= cap) continue;
    const std::string f = "--maxrregcount=" + std::to_string(cap);
    if (has_flag(f)) continue;
    SourceMove m;
    m.name = f;
    m.add_flags = {f};
    m.priority = registers ? 1 : 8;
    m.why = "a register cap of " + std::to_string(cap) + " raises occupancy";
    m.expected = "0-30% where registers limit occupancy";
    m.risks = "spills to local memory if the cap is too tight";
    moves.push_back(m);
    if (g.registers < 0) break;  // unknown: one cap only
  }
  // Unrolling.
  for (int factor : {4, 8}) {
    if (auto src = with_unroll_pragmas(in.source, name, factor)) {
      SourceMove m;
      m.name = "#pragma unroll " + std::to_string(factor);
      m.source = *src;
      m.priority = (latency ? 2 : 6) + (factor == 8 ? 1 : 0);
      m.why =
          "unrolls the inner loops whose bound is not a constant (the compiler leaves them "
          "rolled): more independent loads in flight";
      m.expected = "0-30%";
      m.risks = "more registers";
      moves.push_back(m);
    }
  }
  // Cache hints.
  for (const auto& [flag, why] :
       {std::pair<std::string, std::string>{"--ptxas-options=-dlcm=cg",
                                            "global loads cached in L2 only: streaming data "
                                            "does not evict what L1 holds"},
        {"--ptxas-options=-dlcm=ca", "global loads cached in L1 and L2"}}) {
    if (has_flag(flag)) continue;
    SourceMove m;
    m.name = flag;
    m.add_flags = {flag};
    m.priority = memory ? 7 : 9;
    m.why = why;
    m.expected = "0-10%";
    m.risks = safe;
    moves.push_back(m);
  }
  return moves;
}

}  // namespace kgate
