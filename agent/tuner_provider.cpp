#include "agent/tuner_provider.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agent/persisted_json.h"
#include "agent/tunable_space.h"
#include "agent/tuner_moves.h"
#include "core/hash.h"

namespace kgate {
namespace {

using Settings = std::pair<std::map<std::string, int64_t>, std::vector<std::string>>;

std::string key_of(const Settings& s) {
  std::string k = "T:";
  for (const auto& [n, v] : s.first) k += n + "=" + std::to_string(v) + ",";
  std::vector<std::string> flags = s.second;
  std::sort(flags.begin(), flags.end());
  k += "|F:";
  for (const auto& f : flags) k += f + ",";
  return k;
}

Settings settings_from(const nlohmann::json& tunables, const nlohmann::json& flags,
                       const std::map<std::string, int64_t>& defaults) {
  Settings s;
  s.first = defaults;
  if (tunables.is_object())
    for (const auto& [k, v] : tunables.items())
      if (v.is_number_integer() && defaults.count(k)) s.first[k] = v.get<int64_t>();
  if (flags.is_array())
    for (const auto& f : flags)
      if (f.is_string()) s.second.push_back(f.get<std::string>());
  return s;
}

struct Move {
  Settings settings;
  int priority = 0;  // lower first
  std::string change;
  std::string why;
  std::string expected;
  std::string risks;
  std::optional<std::string> source;  // an edited source (tuner_moves.h); nullopt: the best's
  nlohmann::json launch;              // its own launch; null: the best's
};

// What was tried: settings, launch and source together (the tuner's source
// moves keep the settings and change the text).
std::string full_key(const Settings& s, const nlohmann::json& launch, const std::string& sha) {
  return key_of(s) + "|L:" + (launch.is_object() && !launch.empty() ? launch.dump() : "") +
         "|S:" + sha;
}
// The source as the answer's code block gives it back: a fenced block ends
// its body with a newline, so a file without a final one comes back with one.
// Keys hash this text, the one the candidate's record hashes.
std::string as_answered(const std::string& source) {
  return source.empty() || source.back() == '\n' ? source : source + "\n";
}
std::string sha16(const std::string& text) {
  return sha256_hex(as_answered(text)).substr(0, 16);
}

std::string describe_changes(const Settings& from, const Settings& to) {
  std::string s;
  for (const auto& [n, v] : to.first) {
    auto it = from.first.find(n);
    if (it == from.first.end() || it->second != v)
      s += (s.empty() ? "" : ", ") + n + " " +
           (it == from.first.end() ? "?" : std::to_string(it->second)) + " -> " + std::to_string(v);
  }
  for (const auto& f : to.second)
    if (std::find(from.second.begin(), from.second.end(), f) == from.second.end())
      s += (s.empty() ? "" : ", ") + std::string("add flag ") + f;
  return s;
}

std::string settings_text(const Settings& s) {
  std::string t;
  for (const auto& [n, v] : s.first) t += (t.empty() ? "" : " ") + n + "=" + std::to_string(v);
  for (const auto& f : s.second) t += (t.empty() ? "" : " ") + f;
  return t.empty() ? "defaults" : t;
}

// The moves from the best in the declared tunables, each with a priority
// (lower first) from the bottleneck class:
//   memory-bound (or unknown): the widest access first (VEC to its largest
//     value: one 16-byte load instead of eight 2-byte ones), reuse to its
//     largest (BATCH_TILE: each weight load serves more batch rows), rows
//     split over the most blocks (SPLIT: a cluster per row), then more
//     accesses in flight one step at a time (UNROLL, ELEMS), then coordinated
//     pairs (more work per thread with a smaller block: the same threads'
//     worth of work in fewer, busier threads, where one-at-a-time steps stall),
//     then rows per block and block sizes;
//   register-limited: less work per thread, narrower accesses, smaller blocks;
//   launch-bound: fewer, larger blocks (BLOCK, ROWS up) and more work per
//     thread.
//   latency-bound with low occupancy: more parallel work first (rows split
//     over more blocks, fewer rows per block, larger blocks), then more
//     loads in flight per thread;
//   latency-bound (warps resident): more independent work per thread first.
// A profile's counters refine it: narrow or poorly coalesced loads
// (memory-bound or latency-bound: waiting on few bytes per request) put the
// widest access before anything else; occupancy limited by registers puts
// less work per thread first.
std::vector<Move> tunable_moves(const TunableSpace& space, const Settings& best,
                                const ProfileGuidance& guidance) {
  const std::string& bottleneck = guidance.bottleneck;
  const bool memory = bottleneck == "memory-bound" || bottleneck == "unknown";
  const bool registers = bottleneck == "register-limited" || guidance.registers_limit_occupancy;
  const bool launch = bottleneck == "launch-bound";
  const bool low_occ = bottleneck == "latency-low-occupancy";
  const bool latency = bottleneck == "latency-bound";
  const bool wide_first = guidance.narrow_accesses || guidance.poor_coalescing;
  struct Axis {
    std::string name;
    Knob knob;
    std::vector<int64_t> sorted;
    long at;  // index of the best's value in sorted
  };
  std::vector<Axis> axes;
  for (const auto& [name, values] : space.declared()) {
    std::vector<int64_t> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    auto it = best.first.find(name);
    if (it == best.first.end()) continue;
    auto at = std::find(sorted.begin(), sorted.end(), it->second);
    if (at == sorted.end()) continue;
    axes.push_back(
        {name, knob_of(name, space.role(name)), sorted, static_cast<long>(at - sorted.begin())});
  }
  std::vector<Move> moves;
  const std::string safe = "none for correctness (the gate checks every shape)";
  auto add = [&](std::vector<std::pair<const Axis*, long>> steps, int priority, std::string why,
                 std::string expected, std::string risks) {
    Settings s = best;
    for (const auto& [axis, to] : steps) {
      if (to < 0 || to >= static_cast<long>(axis->sorted.size()) || to == axis->at) return;
      s.first[axis->name] = axis->sorted[to];
    }
    moves.push_back({s, priority, "", std::move(why), std::move(expected), std::move(risks)});
  };
  for (const Axis& a : axes) {
    const long top = static_cast<long>(a.sorted.size()) - 1;
    switch (a.knob) {
      case Knob::kWidth:
        add({{&a, top}},
            wide_first          ? -1
            : memory            ? 1
            : launch || latency ? 3
            : low_occ           ? 4
                                : 9,
            "the widest access moves the most bytes per load instruction (16-byte vectors) and "
            "keeps more bytes in flight per thread",
            "up to 2-4x on memory-bound shapes",
            "more registers; shapes that do not allow wide accesses take the scalar path");
        add({{&a, a.at + 1}}, memory ? 3 : 6, "wider accesses move more bytes per instruction",
            "10-100%", "more registers");
        add({{&a, a.at - 1}}, registers ? 2 : 8, "narrower accesses need fewer registers",
            "some occupancy back", safe);
        break;
      case Knob::kReuse:
        add({{&a, top}},
            memory   ? 2
            : launch ? 3
                     : 9,
            "each load serves the most rows of the tile, so fewer bytes are read in total",
            "up to the tile size on shapes with several rows", "more registers for the partials");
        add({{&a, a.at + 1}}, memory ? 4 : 6, "more reuse of each load", "10-100%",
            "more registers");
        add({{&a, a.at - 1}}, registers ? 2 : 8, "fewer partials per thread free registers",
            "some occupancy back", safe);
        break;
      case Knob::kSplit:
        add({{&a, top}},
            low_occ  ? 1
            : memory ? 2
            : launch ? 4
                     : 9,
            "each row spread over the most blocks (one cluster): a few rows keep many more "
            "multiprocessors busy, and a slice small enough to stay in registers is read once",
            "up to the split on shapes with few rows; up to 2x where a row was read twice",
            "a cluster reduction per row; needs thread-block clusters (sm_90)");
        add({{&a, a.at + 1}}, memory ? 4 : 6, "each row spread over more blocks", "10-100%",
            "a cluster reduction per row");
        add({{&a, a.at - 1}}, 7, "fewer blocks per row: less combining across blocks", "5-20%",
            safe);
        break;
      case Knob::kWork:
        add({{&a, a.at + 1}},
            latency                       ? 1
            : memory || launch || low_occ ? 3
                                          : 8,
            "more independent accesses per thread keep more memory requests (and partial sums) in "
            "flight",
            "up to 2x", "more registers; tail handling on odd shapes");
        add({{&a, a.at + 2}}, memory ? 5 : 8, "much more work in flight per thread", "up to 4x",
            "more registers");
        add({{&a, a.at - 1}}, registers ? 1 : 7,
            "less work per thread needs fewer registers, so occupancy rises and spills go", "5-30%",
            safe);
        break;
      case Knob::kRows:
        add({{&a, a.at + 1}},
            launch   ? 1
            : memory ? 4
                     : 7,
            "more rows per block: fewer, larger blocks and a cheaper reduction per row", "5-50%",
            safe);
        add({{&a, a.at + 2}}, launch ? 2 : 6, "many more rows per block", "5-50%", safe);
        add({{&a, a.at - 1}},
            low_occ     ? 1
            : registers ? 3
                        : 7,
            "fewer rows per block: more blocks to spread", "5-30%", safe);
        break;
      case Knob::kBlock:
        add({{&a, a.at + 1}},
            launch    ? 1
            : low_occ ? 2
            : memory  ? 5
                      : 7,
            "larger blocks give each multiprocessor more resident warps per block to hide latency",
            "5-30%", safe);
        add({{&a, a.at - 1}},
            registers ? 3
            : memory  ? 5
                      : 7,
            "smaller blocks: more blocks per multiprocessor and less waiting at barriers", "5-30%",
            safe);
        add({{&a, a.at + 2}}, launch ? 2 : 7, "much larger blocks", "5-30%", safe);
        add({{&a, a.at - 2}}, 7, "much smaller blocks", "5-30%", safe);
        break;
      case Knob::kOther:
        add({{&a, a.at + 1}}, 6, "explores " + a.name + " around the best", "5-30%", safe);
        add({{&a, a.at - 1}}, 6, "explores " + a.name + " around the best", "5-30%", safe);
        break;
    }
  }
  // Coordinated pairs: the same work in fewer, busier threads (work or width
  // up one step, block down one), and the reverse.
  for (const Axis& w : axes) {
    if (w.knob != Knob::kWork && w.knob != Knob::kWidth) continue;
    for (const Axis& b : axes) {
      if (b.knob != Knob::kBlock) continue;
      add({{&w, w.at + 1}, {&b, b.at - 1}}, memory ? 4 : 7,
          "more work per thread with a smaller block: as many bytes in flight per block, more "
          "blocks per multiprocessor (one-at-a-time moves stall here)",
          "10-50%", "more registers");
      add({{&w, w.at - 1}, {&b, b.at + 1}}, registers ? 2 : 7,
          "less work per thread with a larger block: fewer registers per thread", "5-30%", safe);
    }
  }
  return moves;
}

// Where constraints tie tunables together (BK up only with TN down), moves
// of 2-3 tunables at once that meet them: first in line when no single step
// does, else after the single steps and compiler options.
void add_coordinated_moves(const TunableSpace& space, const Settings& best,
                           std::vector<Move>& moves) {
  if (space.constraint_texts().empty()) return;
  const bool stuck = space.valid_single_steps(best.first).empty();
  std::string constraints;
  for (const std::string& c : space.constraint_texts())
    constraints += (constraints.empty() ? "" : ", ") + c;
  for (const TunableSettings& to : space.coordinated_steps(best.first)) {
    Move m;
    m.settings = {to, best.second};
    m.priority = stuck ? 1 : 9;
    m.why = std::string(stuck ? "no single step meets the constraints" : "a coordinated step") +
            " (" + constraints + "); these tunables move together";
    m.expected = "unknown: a region single steps cannot reach";
    m.risks = "none for correctness (the gate checks every shape)";
    moves.push_back(std::move(m));
  }
}

// The first sentence of `text`, without its full stop.
std::string first_sentence(const std::string& text) {
  size_t end = text.find(". ");
  std::string s = end == std::string::npos ? text : text.substr(0, end);
  while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
  return s;
}

// Whether a and b are neighbours among the declared values.
bool adjacent(std::vector<int64_t> values, int64_t a, int64_t b) {
  std::sort(values.begin(), values.end());
  auto ia = std::find(values.begin(), values.end(), a);
  auto ib = std::find(values.begin(), values.end(), b);
  return ia != values.end() && ib != values.end() && std::abs(ia - ib) == 1;
}

// The direction (+1 up, -1 down) of each tunable in the last kept change:
// from the accepted iteration before it (or the defaults) to it.
std::map<std::string, int> last_kept_direction(const nlohmann::json& ctx,
                                               const std::map<std::string, int64_t>& defaults) {
  std::vector<std::map<std::string, int64_t>> kept = {defaults};
  std::vector<std::pair<int, std::map<std::string, int64_t>>> accepted;
  for (const auto& t : array_field(ctx, "tried"))
    if (bool_field(t, "accepted", false))
      accepted.push_back(
          {static_cast<int>(integer_field(t, "iteration", 0)),
           settings_from(object_field(t, "tunables"), nlohmann::json::array(), defaults).first});
  std::sort(accepted.begin(), accepted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [i, t] : accepted) kept.push_back(t);
  std::map<std::string, int> dir;
  if (kept.size() < 2) return dir;
  const auto& to = kept.back();
  const auto& from = kept[kept.size() - 2];
  for (const auto& [n, v] : to) {
    auto f = from.find(n);
    if (f != from.end() && f->second != v) dir[n] = v > f->second ? 1 : -1;
  }
  return dir;
}

// "prefill-8k 3871 GB/s (33.1 us), decode-b1 ...": the best's bandwidth per
// shape, highest first, from the profile's timing.
std::string bandwidth_text(const nlohmann::json& ctx) {
  std::vector<std::pair<double, std::string>> rows;
  const auto profile = object_field(ctx, "profile");
  for (const auto& s : array_field(profile, "timing")) {
    double t = number_field(s, "best_s", 0.0);
    double bytes = number_field(s, "bytes_moved", 0.0);
    if (t <= 0) continue;
    char text[160];
    std::snprintf(text, sizeof text, " %.0f GB/s (%.2f us)", bytes / t / 1e9, t * 1e6);
    rows.push_back({bytes / t / 1e9, string_field(s, "shape") + text});
  }
  if (rows.empty()) return "no per-shape timing in the profile";
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (size_t i = 0; i < rows.size() && i < 4; ++i) out += (i ? ", " : "") + rows[i].second;
  return out;
}

class Tuner : public AgentProvider {
 public:
  explicit Tuner(uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "tuner"; }
  bool records_turns() const override { return false; }

  Result<std::string> ask(const AgentRequest& request) override {
    switch (request.task) {
      case AgentTask::kPropose:
        return propose(request.context);
      case AgentTask::kReplan:
        return std::string(
            "BOTTLENECK: The candidates did not compile.\nCHANGE: go back to the current best "
            "source and change "
            "only tunables and compiler options, which the manifest declares and the compiler "
            "accepts.\n");
      case AgentTask::kReflect:
        return reflect(request.context);
    }
    return std::string();
  }

 private:
  Result<std::string> propose(const nlohmann::json& ctx) {
    // Values, roles and constraints as the manifest declares them (tunable_space.h).
    const TunableSpace space = TunableSpace::from_context(ctx);
    std::map<std::string, std::vector<int64_t>> declared = space.declared();
    const std::map<std::string, int64_t> defaults = space.defaults();
    const nlohmann::json best_j = object_field(ctx, "best");
    Settings best =
        settings_from(object_field(best_j, "tunables"), array_field(best_j, "flags"), defaults);
    const std::string best_source = string_field(best_j, "source");
    const std::string best_sha = sha16(best_source);
    const nlohmann::json best_launch = object_field(best_j, "launch");
    std::set<std::string> tried = {full_key(best, best_launch, best_sha)};
    for (const auto& t : array_field(ctx, "tried")) {
      // Records written before sources were hashed count as the best's source.
      const std::string sha = string_field(t, "source_sha256", best_sha);
      tried.insert(
          full_key(settings_from(object_field(t, "tunables"), array_field(t, "flags"), defaults),
                   object_field(t, "launch"), sha.empty() ? best_sha : sha));
    }
    std::string backend = string_field(ctx, "backend", "host");
    const ProfileGuidance guidance = ProfileGuidance::from_context(object_field(ctx, "profile"));
    const std::string& bottleneck = guidance.bottleneck;

    std::vector<Move> moves;
    // Lessons first: settings that improved a kernel of this family.
    static const std::regex setting(R"(\b([A-Z_][A-Z0-9_]*)=(-?\d+)\b)");
    for (const auto& l : array_field(ctx, "lessons")) {
      if (string_field(l, "outcome") != "improved") continue;
      std::string change = string_field(l, "change");
      Settings s = best;
      bool any = false;
      for (auto it = std::sregex_iterator(change.begin(), change.end(), setting);
           it != std::sregex_iterator(); ++it) {
        std::string n = (*it)[1];
        int64_t v = std::stoll((*it)[2]);
        auto d = declared.find(n);
        if (d == declared.end() ||
            std::find(d->second.begin(), d->second.end(), v) == d->second.end())
          continue;
        s.first[n] = v;
        any = true;
      }
      if (!any) continue;
      Move m;
      m.settings = s;
      m.priority = -10;
      m.why = "the family's lesson \"" + change + "\" (" + string_field(l, "kernel") + ", " +
              std::to_string(number_field(l, "speedup", 0.0)).substr(0, 4) + "x)";
      m.expected = "a similar gain";
      m.risks = "the lesson came from another kernel; its shapes may differ";
      moves.push_back(m);
    }
    // Neighbours of the best: single steps, jumps, and coordinated pairs,
    // ordered by the profile (tunable_moves).
    for (Move& m : tunable_moves(space, best, guidance)) moves.push_back(std::move(m));
    add_coordinated_moves(space, best, moves);
    // Momentum: one more step in the direction of the last kept change goes first.
    std::map<std::string, int> last_dir = last_kept_direction(ctx, defaults);
    if (!last_dir.empty())
      for (Move& m : moves) {
        if (m.priority < 0) continue;
        bool continues = true, any = false;
        for (const auto& [n, v] : m.settings.first) {
          int64_t from = best.first[n];
          if (v == from) continue;
          any = true;
          auto d = last_dir.find(n);
          if (d == last_dir.end() || (v > from ? 1 : -1) != d->second ||
              !adjacent(declared[n], from, v))
            continues = false;
        }
        if (any && continues) {
          m.priority = 0;
          m.why += "; it continues the last kept change";
        }
      }
    if (declared.empty()) {
      // A kernel nobody prepared: moves that need no tunable (tuner_moves.h).
      MoveInput in;
      in.backend = backend;
      in.source = best_source;
      in.entry = string_field(ctx, "entry");
      auto launch = CandidateLaunch::from_json(best_launch);
      if (!launch) launch = CandidateLaunch::from_json(object_field(ctx, "launch"));
      if (launch) in.launch = *launch;
      for (const auto& a : array_field(ctx, "arg_expressions"))
        if (a.is_string()) in.arg_expressions.push_back(a.get<std::string>());
      in.flags = best.second;
      in.guidance = guidance;
      for (const SourceMove& sm : untuned_moves(in)) {
        Move m;
        m.settings = best;
        for (const std::string& f : sm.add_flags) m.settings.second.push_back(f);
        m.priority = sm.priority;
        m.change = sm.name;
        m.why = sm.why;
        m.expected = sm.expected;
        m.risks = sm.risks;
        m.source = sm.source;
        if (sm.launch) m.launch = sm.launch->to_json();
        moves.push_back(m);
      }
    } else {
      // Compiler options, added to the best's.
      std::vector<std::pair<std::vector<std::string>, std::string>> flag_options;
      if (backend == "cuda") {
        flag_options = {{{"--extra-device-vectorization"}, "wider vectorized memory accesses"}};
        if (bottleneck == "register-limited" || guidance.registers_limit_occupancy)
          flag_options.insert(flag_options.begin(),
                              {{"--maxrregcount=64"}, "a register cap raises occupancy"});
      } else {
        flag_options = {{{"-O3"}, "more aggressive vectorization and unrolling"},
                        {{"-march=native", "-ffp-contract=off"},
                         "the host's full vector width (a*b+c stays unfused, as the original "
                         "rounds it)"},
                        {{"-funroll-loops"}, "unrolled inner loops"}};
      }
      for (const auto& [flags, why] : flag_options) {
        if (std::find(best.second.begin(), best.second.end(), flags.front()) != best.second.end())
          continue;
        Move m;
        m.settings = best;
        for (const std::string& f : flags) m.settings.second.push_back(f);
        m.priority = 8;
        m.why = why;
        m.expected = "0-20%";
        m.risks = "a compiler option that changes no numerics (the policy checks)";
        moves.push_back(m);
      }
    }
    // Never a setting the manifest's constraints rule out.
    std::erase_if(moves, [&](const Move& m) { return !space.valid(m.settings.first); });
    auto key = [&](const Move& m) {
      return full_key(m.settings, m.launch.is_null() ? best_launch : m.launch,
                      m.source ? sha16(*m.source) : best_sha);
    };
    // Deterministic order: priority, then a seeded hash.
    auto tiebreak = [&](const Move& m) { return sha256_hex(std::to_string(seed_) + key(m)); };
    std::stable_sort(moves.begin(), moves.end(), [&](const Move& a, const Move& b) {
      if (a.priority != b.priority) return a.priority < b.priority;
      return tiebreak(a) < tiebreak(b);
    });
    const Move* pick = nullptr;
    for (const Move& m : moves)
      if (!tried.count(key(m))) {
        pick = &m;
        break;
      }
    if (!pick)
      return "STOP: every neighbour of the best settings (" + settings_text(best) +
             ") in the declared tunables, compiler options and source moves has been tried; "
             "what bounds the best (" +
             bottleneck + "): " + bandwidth_text(ctx) + ".\n";
    std::string change = describe_changes(best, pick->settings);
    if (!pick->change.empty()) change = pick->change;
    std::ostringstream out;
    out << "BOTTLENECK: The profile classes this kernel as " << bottleneck;
    if (!guidance.evidence.empty()) out << ": " << first_sentence(guidance.evidence);
    out << ".\n";
    out << "CHANGE: " << change << ": " << pick->why << ".\n";
    out << "EXPECTED GAIN: " << pick->expected << ".\n";
    out << "RISKS: " << pick->risks << ".\n\n";
    std::string lang = backend == "cuda" ? "cuda" : "cpp";
    const std::string& src = pick->source ? *pick->source : best_source;
    out << "```" << lang << "\n" << as_answered(src) << "```\n\n```json\n";
    nlohmann::json settings = {{"tunables", nlohmann::json::object()},
                               {"flags", pick->settings.second}};
    for (const auto& [n, v] : pick->settings.first) settings["tunables"][n] = v;
    if (!pick->launch.is_null()) settings["launch"] = pick->launch;
    out << settings.dump() << "\n```\n";
    return out.str();
  }

  Result<std::string> reflect(const nlohmann::json& ctx) {
    std::string outcome = string_field(ctx, "outcome");
    std::string bottleneck = string_field(ctx, "bottleneck", "unknown");
    std::string change = string_field(object_field(ctx, "plan"), "change");
    size_t colon = change.find(':');
    std::string what = colon == std::string::npos ? change : change.substr(0, colon);
    const auto& gate = (ctx.contains("gate") ? ctx["gate"] : nlohmann::json());
    double ratio = gate.is_object() ? number_field(gate, "geomean_ratio", 1.0) : 1.0;
    std::ostringstream out;
    out.precision(3);
    if (outcome == "improved")
      out << what << " made the kernel " << 1 / ratio << "x faster (geomean over shapes): the "
          << bottleneck
          << " kernel was short of independent work, and this setting supplied it. Keep moving in "
             "this direction.";
    else if (outcome == "no-gain")
      out << what << " changed nothing beyond noise (time ratio " << ratio
          << "): this dimension is saturated for the " << bottleneck << " kernel; try another one.";
    else if (outcome == "slower")
      out << what << " made it slower (time ratio " << ratio
          << "): past this point the extra work per thread costs more than it hides; go the other "
             "way.";
    else if (outcome == "wrong")
      out << what << " gave wrong results: " << string_field(ctx, "failure")
          << "; avoid this setting.";
    else
      out << what << " failed (" << outcome << "): " << string_field(ctx, "failure") << ".";
    // The numbers that bound the kernel now: bandwidth per shape of the kept version.
    nlohmann::json timing = nlohmann::json::array();
    if (outcome == "improved" && gate.is_object())
      for (const auto& s : array_field(gate, "shapes")) {
        nlohmann::json t = s;
        t["best_s"] = number_field(s, "candidate_s", 0.0);
        timing.push_back(t);
      }
    else
      timing = array_field(ctx, "best_timing");
    out << " Bandwidth of the best version: " << bandwidth_text({{"profile", {{"timing", timing}}}})
        << ".";
    return out.str();
  }

  uint64_t seed_;
};

}  // namespace

std::unique_ptr<AgentProvider> make_tuner_provider(uint64_t seed) {
  return std::make_unique<Tuner>(seed);
}

}  // namespace kgate
