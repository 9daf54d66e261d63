#include "agent/tuner_provider.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

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

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// What a tunable's name says it controls.
enum class Knob { kWorkPerThread, kBlock, kOther };
Knob knob_of(const std::string& name) {
  std::string n = upper(name);
  for (const char* w :
       {"VEC", "UNROLL", "ACCUM", "ELEM", "ITEMS", "PER_THREAD", "WIDTH", "TILE", "ILP"})
    if (n.find(w) != std::string::npos) return Knob::kWorkPerThread;
  if (n.find("BLOCK") != std::string::npos || n.find("THREADS") != std::string::npos ||
      n.find("WARPS") != std::string::npos)
    return Knob::kBlock;
  return Knob::kOther;
}

struct Move {
  Settings settings;
  int priority = 0;  // lower first
  std::string change;
  std::string why;
  std::string expected;
  std::string risks;
};

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

class Tuner : public AgentProvider {
 public:
  explicit Tuner(uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "tuner"; }

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
    std::map<std::string, int64_t> defaults;
    std::map<std::string, std::vector<int64_t>> declared;
    if (ctx.contains("tunables"))
      for (const auto& [k, v] : ctx["tunables"].items()) {
        declared[k] = v.get<std::vector<int64_t>>();
        if (!declared[k].empty()) defaults[k] = declared[k].front();
      }
    const auto& best_j = ctx.value("best", nlohmann::json::object());
    Settings best = settings_from(best_j.value("tunables", nlohmann::json::object()),
                                  best_j.value("flags", nlohmann::json::array()), defaults);
    std::set<std::string> tried = {key_of(best)};
    for (const auto& t : ctx.value("tried", nlohmann::json::array()))
      tried.insert(key_of(settings_from(t.value("tunables", nlohmann::json::object()),
                                        t.value("flags", nlohmann::json::array()), defaults)));
    std::string backend = ctx.value("backend", "host");
    std::string bottleneck =
        ctx.value("profile", nlohmann::json::object()).value("bottleneck", "unknown");

    std::vector<Move> moves;
    // Lessons first: settings that improved a kernel of this family.
    static const std::regex setting(R"(\b([A-Z_][A-Z0-9_]*)=(-?\d+)\b)");
    for (const auto& l : ctx.value("lessons", nlohmann::json::array())) {
      if (l.value("outcome", "") != "improved") continue;
      std::string change = l.value("change", "");
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
      moves.push_back({s, -10, "",
                       "the family's lesson \"" + change + "\" (" + l.value("kernel", "") + ", " +
                           std::to_string(l.value("speedup", 0.0)).substr(0, 4) + "x)",
                       "a similar gain",
                       "the lesson came from another kernel; its shapes may differ"});
    }
    // Neighbours of the best in each tunable.
    for (const auto& [name, values] : declared) {
      auto at = std::find(values.begin(), values.end(), best.first[name]);
      if (at == values.end()) continue;
      size_t i = at - values.begin();
      // Values are listed in the manifest's order; sort a copy so "up" is larger.
      std::vector<int64_t> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      size_t si = std::find(sorted.begin(), sorted.end(), values[i]) - sorted.begin();
      Knob knob = knob_of(name);
      for (int dir : {+1, -1})
        for (int step : {1, 2}) {
          long j = static_cast<long>(si) + dir * step;
          if (j < 0 || j >= static_cast<long>(sorted.size())) continue;
          Settings s = best;
          s.first[name] = sorted[j];
          int p = 5 + step;
          std::string why, expected = "5-30%",
                           risks = "none for correctness (the gate checks every shape)";
          if (bottleneck == "memory-bound" || bottleneck == "unknown") {
            if (knob == Knob::kWorkPerThread && dir > 0) {
              p = step;
              why =
                  "more independent work per thread keeps more memory requests (and partial sums) "
                  "in flight";
              expected = step == 1 ? "up to 2x" : "up to 4x";
              risks = "more registers; tail handling on odd shapes";
            } else if (knob == Knob::kBlock && dir > 0) {
              p = 2 + step;
              why = "larger blocks give each multiprocessor more resident warps to hide latency";
            }
          } else if (bottleneck == "register-limited") {
            if ((knob == Knob::kWorkPerThread || knob == Knob::kBlock) && dir < 0) {
              p = step;
              why = "less work per thread needs fewer registers, so occupancy rises and spills go";
            }
          } else if (bottleneck == "launch-bound") {
            if ((knob == Knob::kBlock || knob == Knob::kWorkPerThread) && dir > 0) {
              p = step;
              why = "fewer, larger blocks amortize launch and scheduling overhead on small shapes";
            }
          }
          if (why.empty()) why = "explores " + name + " around the best";
          moves.push_back({s, p, "", why, expected, risks});
        }
    }
    // Compiler options, added to the best's.
    std::vector<std::pair<std::string, std::string>> flag_options;
    if (backend == "cuda") {
      flag_options = {{"--extra-device-vectorization", "wider vectorized memory accesses"}};
      if (bottleneck == "register-limited")
        flag_options.insert(flag_options.begin(),
                            {"--maxrregcount=64", "a register cap raises occupancy"});
    } else {
      flag_options = {{"-O3", "more aggressive vectorization and unrolling"},
                      {"-march=native", "the host's full vector width"},
                      {"-funroll-loops", "unrolled inner loops"}};
    }
    for (const auto& [flag, why] : flag_options) {
      if (std::find(best.second.begin(), best.second.end(), flag) != best.second.end()) continue;
      Settings s = best;
      s.second.push_back(flag);
      moves.push_back({s, 8, "", why, "0-20%",
                       "a compiler option that changes no numerics (the policy checks)"});
    }
    // Deterministic order: priority, then a seeded hash.
    auto tiebreak = [&](const Move& m) {
      return sha256_hex(std::to_string(seed_) + key_of(m.settings));
    };
    std::stable_sort(moves.begin(), moves.end(), [&](const Move& a, const Move& b) {
      if (a.priority != b.priority) return a.priority < b.priority;
      return tiebreak(a) < tiebreak(b);
    });
    const Move* pick = nullptr;
    for (const Move& m : moves)
      if (!tried.count(key_of(m.settings))) {
        pick = &m;
        break;
      }
    if (!pick)
      return std::string("STOP: every neighbour of the best settings (" + settings_text(best) +
                         ") in the declared tunables and compiler options has been tried.\n");
    std::string change = describe_changes(best, pick->settings);
    std::ostringstream out;
    out << "BOTTLENECK: The profile classes this kernel as " << bottleneck << ".\n";
    out << "CHANGE: " << change << ": " << pick->why << ".\n";
    out << "EXPECTED GAIN: " << pick->expected << ".\n";
    out << "RISKS: " << pick->risks << ".\n\n";
    std::string lang = backend == "cuda" ? "cuda" : "cpp";
    out << "```" << lang << "\n" << best_j.value("source", "");
    std::string src = best_j.value("source", "");
    if (!src.empty() && src.back() != '\n') out << "\n";
    out << "```\n\n```json\n";
    nlohmann::json settings = {{"tunables", nlohmann::json::object()},
                               {"flags", pick->settings.second}};
    for (const auto& [n, v] : pick->settings.first) settings["tunables"][n] = v;
    out << settings.dump() << "\n```\n";
    return out.str();
  }

  Result<std::string> reflect(const nlohmann::json& ctx) {
    std::string outcome = ctx.value("outcome", "");
    std::string bottleneck = ctx.value("bottleneck", "unknown");
    std::string change = ctx.value("plan", nlohmann::json::object()).value("change", "");
    size_t colon = change.find(':');
    std::string what = colon == std::string::npos ? change : change.substr(0, colon);
    const auto& gate = ctx.value("gate", nlohmann::json());
    double ratio = gate.is_object() ? gate.value("geomean_ratio", 1.0) : 1.0;
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
      out << what << " gave wrong results: " << ctx.value("failure", "") << "; avoid this setting.";
    else
      out << what << " failed (" << outcome << "): " << ctx.value("failure", "") << ".";
    return out.str();
  }

  uint64_t seed_;
};

}  // namespace

std::unique_ptr<AgentProvider> make_tuner_provider(uint64_t seed) {
  return std::make_unique<Tuner>(seed);
}

}  // namespace kgate
