#include "bot/proposal_import.h"

#include <cmath>

#include "bot/manifest_edit.h"
#include "bot/source_defaults.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/number_format.h"
#include "core/version.h"
#include "gate/git_repository.h"
#include "runner/device.h"
#include "runner/profile_model/profile_comparison.h"

namespace kgate::bot {
namespace {

std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

double number(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

// Achieved bandwidth of a shape, bytes per second; 0 when unknown.
double bandwidth(const nlohmann::json& shape, const char* time_key) {
  double bytes = number(shape, "bytes_moved"), t = number(shape, time_key);
  return bytes > 0 && t > 0 ? bytes / t : 0;
}

std::string gbps(double bytes_per_s) {
  return format_number(bytes_per_s / 1e9) + " GB/s";
}

// The compiler's resource numbers that differ between before and after.
void resource_lines(const nlohmann::json& p, std::string& before, std::string& after) {
  const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json& b = p.contains("resources_before") ? p["resources_before"] : none;
  const nlohmann::json& a = p.contains("resources_after") ? p["resources_after"] : none;
  const std::pair<const char*, const char*> keys[] = {
      {"registers", "registers/thread"},           {"spill_store_bytes", "spill stores (bytes)"},
      {"spill_load_bytes", "spill loads (bytes)"}, {"shared_bytes", "static shared memory (bytes)"},
      {"stack_bytes", "stack frame (bytes)"},      {"local_bytes", "local memory (bytes)"}};
  std::string same;
  for (const auto& [key, label] : keys) {
    double x = number(b, key), y = number(a, key);
    if (!b.contains(key) || !a.contains(key) || x < 0 || y < 0) continue;
    if (x == y) {
      same += std::string(same.empty() ? "" : ", ") + label + " " + format_number(x, 6);
      continue;
    }
    before += std::string(label) + ": " + format_number(x, 6) + "\n";
    after +=
        std::string(label) + ": " + format_number(y, 6) + " (was " + format_number(x, 6) + ")\n";
  }
  if (!same.empty()) after += "unchanged: " + same + "\n";
}

std::string roofline_text(const nlohmann::json& shapes, const std::string& device, double ceiling) {
  std::string out;
  if (ceiling > 0) {
    out =
        "Memory-bound position against the bandwidth this GPU really reaches (a measured "
        "device-to-device copy, " +
        gbps(ceiling) + "):\n\n| shape | before | after |\n|---|---:|---:|\n";
    for (const auto& s : shapes) {
      double b = bandwidth(s, "before_s"), a = bandwidth(s, "after_s");
      if (b <= 0 || a <= 0) continue;
      out += "| " + text(s, "shape") + " | " + format_number(100 * b / ceiling) + "% | " +
             format_number(100 * a / ceiling) + "% |\n";
    }
    return out;
  }
  double best = 0;
  std::string best_shape;
  for (const auto& s : shapes)
    if (double a = bandwidth(s, "after_s"); a > best) {
      best = a;
      best_shape = text(s, "shape");
    }
  if (best <= 0) return "";
  return "Highest achieved memory bandwidth: " + gbps(best) + " on " + best_shape +
         " (every buffer counted once). No measured bandwidth ceiling is stored for " +
         (device.empty() ? "this device" : device) +
         ", so the distance to the roof is not stated; `kgate profile` on that GPU measures one.";
}

std::string launch_dims(const nlohmann::json& dims) {
  std::string s = "[";
  if (dims.is_array())
    for (size_t i = 0; i < dims.size(); ++i)
      s += (i ? ", " : "") + (dims[i].is_string() ? dims[i].get<std::string>() : dims[i].dump());
  return s + "]";
}

std::string launch_expression_text(const nlohmann::json& l) {
  const nlohmann::json shared = l.value("shared_bytes", nlohmann::json(0));
  return "grid " + launch_dims(l.value("grid", nlohmann::json())) + ", block " +
         launch_dims(l.value("block", nlohmann::json())) + ", shared_bytes " +
         (shared.is_string() ? shared.get<std::string>() : shared.dump());
}

// Said plainly: kgate launches from kgate.json, but code that launches the
// kernel itself (the deployed workload's host code) must follow.
std::string launch_change_text(const nlohmann::json& after, const nlohmann::json& before) {
  std::string s = "**This changes the launch: " + launch_expression_text(after) +
                  "; your launcher must change too.**";
  if (before.is_object()) s += " It was " + launch_expression_text(before) + ".";
  s += "\n\nThe expressions are over the shape's variables and the tunables, as in "
       "`kgate.json` (which this pull request updates: kgate launches from it). Host code that "
       "launches the kernel itself must compute the same grid, block and dynamic shared memory "
       "(bytes) for every size it runs, or the kernel runs with the wrong geometry.";
  return s;
}

// The profiles of the original and of the best (agent/episode_profile.h):
// the counters side by side, and each full summary under "before"/"after".
void add_profiles(const nlohmann::json& profiles, PullRequestProposal& out) {
  auto data = [](const nlohmann::json& o) -> std::optional<profile_model::ProfileData> {
    if (!o.is_object() || !o.contains("data") || !o["data"].is_object()) return std::nullopt;
    try {
      return profile_model::ProfileData::from_json(o["data"]);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  const nlohmann::json before = profiles.value("before", nlohmann::json());
  const nlohmann::json after = profiles.value("after", nlohmann::json());
  auto b = data(before), a = data(after);
  if (b && a) {
    out.profile_comparison = render_comparison(*b, *a);
    out.profile_where = "shape `" + a->shape + "`" + (a->device.empty() ? "" : ", " + a->device) +
                        " (" + a->backend + ")";
  }
  auto summary = [](const nlohmann::json& o) {
    if (!o.is_object()) return std::string();
    std::string s = text(o, "summary");
    if (s.empty() && !text(o, "error").empty()) s = "No profile: " + text(o, "error") + "\n";
    return s.empty() ? s : "\n" + s;
  };
  out.profile_before += summary(before);
  out.profile_after += summary(after);
}

}  // namespace

Result<nlohmann::json> read_proposal_file(const std::filesystem::path& file) {
  Result<std::string> content = read_file(file);
  if (!content.ok()) return content.error();
  try {
    nlohmann::json j = nlohmann::json::parse(*content);
    if (!j.is_object() || !j.contains("kernel") || !j.contains("candidate"))
      return Error::bad_input(file.string() + " is not a kgate proposal (no kernel or candidate)");
    return j;
  } catch (const std::exception& e) {
    return Error::bad_input(file.string() + " is not valid JSON: " + e.what());
  }
}

Result<PullRequestProposal> import_proposal(const nlohmann::json& p,
                                            const ProposalImportOptions& options) {
  PullRequestProposal out;
  out.kernel = text(p, "kernel");
  const std::string backend = text(p, "backend");
  const nlohmann::json candidate = p.value("candidate", nlohmann::json::object());
  std::filesystem::path manifest = options.manifest_path.empty()
                                       ? std::filesystem::path(text(p, "manifest"))
                                       : options.manifest_path;
  if (out.kernel.empty() || text(p, "source").empty() || manifest.empty())
    return Error::bad_input("the proposal names no kernel, source or manifest");

  auto repo = GitRepository::open(options.repo_dir);
  if (!repo.ok()) return repo.error();
  std::error_code ec;
  const std::filesystem::path workdir = std::filesystem::weakly_canonical((*repo)->workdir(), ec);
  const std::filesystem::path manifest_abs = std::filesystem::weakly_canonical(manifest, ec);
  auto in_repo = [&](const std::filesystem::path& file) -> Result<std::string> {
    std::string rel =
        std::filesystem::weakly_canonical(file, ec).lexically_relative(workdir).generic_string();
    if (rel.empty() || rel.starts_with(".."))
      return Error::bad_input(file.string() + " is not inside the git repository " +
                              workdir.string() + " that pull requests are made from (--repo)");
    return rel;
  };
  // Sources are relative to the manifest's folder, or to the folder above .github/.
  std::filesystem::path root = manifest_abs.parent_path();
  if (root.filename() == ".github") root = root.parent_path();
  Result<std::string> source = in_repo(root / text(p, "source"));
  if (!source.ok()) return source.error();
  Result<std::string> manifest_rel = in_repo(manifest_abs);
  if (!manifest_rel.ok()) return manifest_rel.error();
  out.source_path = *source;

  out.base_branch = options.base_branch;
  if (out.base_branch.empty()) {
    Result<std::string> branch = (*repo)->current_branch();
    if (!branch.ok()) return branch.error();
    out.base_branch = *branch;
  }
  Result<std::string> base_rev =
      (*repo)->resolve(options.base_rev.empty() ? out.base_branch : options.base_rev);
  if (!base_rev.ok()) return base_rev.error();
  out.base_rev = *base_rev;

  Result<std::string> base_source = (*repo)->read_file_at(out.base_rev, out.source_path);
  if (!base_source.ok()) return base_source.error();
  if (Result<std::string> measured = read_file(root / text(p, "source"));
      measured.ok() && *measured != *base_source)
    warn(out.source_path + " in the working tree differs from " + out.base_branch +
         ": the pull request's \"before\" is what was measured, the working tree's version");
  out.candidate_source = candidate.value("source_changed", false)
                             ? candidate.value("source_text", std::string())
                             : *base_source;

  ManifestEdit edit;
  edit.kernel = out.kernel;
  edit.backend = backend;
  const nlohmann::json defaults =
      candidate.value("tunable_defaults_changed", nlohmann::json::object());
  for (const auto& [name, value] : defaults.items()) edit.tunable_defaults[name] = value;
  // The source's own guarded defaults change too, so builds outside kgate
  // (the deployed workload) run the tuned values once this is merged.
  if (!edit.tunable_defaults.empty())
    out.candidate_source = set_source_defaults(out.candidate_source, edit.tunable_defaults).text;
  for (const auto& flag : candidate.value("flags", nlohmann::json::array()))
    if (flag.is_string()) edit.extra_flags.push_back(flag.get<std::string>());
  if (auto l = candidate.find("launch"); l != candidate.end() && l->is_object()) {
    edit.launch = *l;
    out.launch_change = launch_change_text(*l, candidate.value("launch_before", nlohmann::json()));
  }
  if (!edit.tunable_defaults.empty() || !edit.extra_flags.empty() || !edit.launch.is_null()) {
    Result<std::string> base_manifest = (*repo)->read_file_at(out.base_rev, *manifest_rel);
    if (!base_manifest.ok()) return base_manifest.error();
    Result<std::string> edited = edit_manifest_text(*base_manifest, edit);
    if (!edited.ok()) return edited.error().with_context(*manifest_rel + " at " + out.base_branch);
    if (*edited != *base_manifest) out.other_files.push_back({*manifest_rel, *edited});
  }

  const nlohmann::json device = p.value("device", nlohmann::json::object());
  // The model and which GPU of its host measured it (DeviceInfo's identity).
  const DeviceInfo measured_on = DeviceInfo::from_json(device);
  const std::string identity = measured_on.identity();
  out.gpu = measured_on.name + (identity.empty() || identity == "host" || measured_on.name.empty()
                                    ? ""
                                    : " (" + identity + ")");
  out.speedup = number(p, "speedup_geomean") > 0 ? number(p, "speedup_geomean") : 1;
  const nlohmann::json shapes = p.value("shapes", nlohmann::json::array());
  std::string moved_before, moved_after;
  for (const auto& s : shapes) {
    ShapeRow row;
    row.shape = text(s, "shape");
    row.phase = text(s, "phase");
    row.before_s = number(s, "before_s");
    row.after_s = number(s, "after_s");
    double ratio = number(s, "ratio");
    row.change = ratio > 0 ? ratio - 1 : 0;
    if (auto ci = s.find("ratio_ci"); ci != s.end() && ci->is_array() && ci->size() == 2 &&
                                      (*ci)[0].is_number() && (*ci)[0].get<double>() > 0) {
      row.ci_low = (*ci)[0].get<double>() - 1;
      row.ci_high = (*ci)[1].get<double>() - 1;
    }
    row.max_error = number(s, "max_abs_error");
    row.verdict = text(s, "verdict");
    // Why a change does not count ("+6 ns, below the 100 ns floor (min_change_s)",
    // "report only: edge shape", "both sides at the launch floor (...)").
    const std::string note = text(s, "note");
    if (row.verdict == "checked")
      row.verdict = note.empty() ? "checked, not timed" : note;
    else if (!note.empty() && row.verdict != "wrong" && row.verdict != "error")
      row.verdict += " (" + note + ")";
    out.shapes.push_back(row);
    double b = bandwidth(s, "before_s"), a = bandwidth(s, "after_s");
    moved_before += row.shape + ": " + format_seconds(row.before_s) +
                    (b > 0 ? ", " + gbps(b) : std::string()) + "\n";
    moved_after += row.shape + ": " + format_seconds(row.after_s) +
                   (a > 0 ? ", " + gbps(a) : std::string()) + " (" + format_percent(row.change) +
                   ")\n";
  }
  std::string res_before, res_after;
  resource_lines(p, res_before, res_after);
  const std::string where = "time and achieved bandwidth per shape (" + backend + "):\n";
  out.profile_before = where + moved_before + (res_before.empty() ? "" : "\n" + res_before);
  out.profile_after = where + moved_after + (res_after.empty() ? "" : "\n" + res_after);
  add_profiles(p.value("profiles", nlohmann::json::object()), out);
  out.roofline = roofline_text(shapes, out.gpu, options.bandwidth_ceiling);

  // Every iteration: its plan (what it set out to do) and its reflection.
  std::map<int, nlohmann::json> plans;
  for (const auto& pl : p.value("plan", nlohmann::json::array()))
    plans[pl.value("iteration", 0)] = pl;
  for (const auto& r : p.value("reflections", nlohmann::json::array())) {
    int index = r.value("iteration", 0);
    IterationNote note;
    nlohmann::json plan = r.value("plan", nlohmann::json::object());
    if (plans.count(index)) plan = plans[index];
    std::string bottleneck = text(plan, "bottleneck"), change = text(plan, "change");
    note.plan = (bottleneck.empty() ? "" : "Bottleneck: " + bottleneck + " ") +
                (change.empty() ? "" : "Change: " + change);
    if (std::string gain = text(plan, "expected_gain"); !gain.empty())
      note.plan += " Expected: " + gain + (gain.back() == '.' ? "" : ".");
    if (note.plan.empty()) note.plan = "(not recorded)";
    note.reflection = text(r, "reflection");
    note.outcome = text(r, "outcome");
    if (index == p.value("best_iteration", -1)) note.outcome += ", kept as the best";
    out.iterations.push_back(note);
  }

  Result<std::string> root_rel = in_repo(root);
  std::string manifest_dir = root_rel.ok() && *root_rel != "." ? *root_rel : "";
  const std::string repo_flag = manifest_dir.empty() ? "" : " --repo " + manifest_dir;
  // A model's episode cannot be asked again and get the same answers; its
  // recorded turns can be replayed (docs/agent.md, "Replaying recorded answers").
  const std::string agent = text(p, "agent");
  const bool replayed = !agent.empty() && agent != "tuner";
  const std::string id = text(p, "episode_id");
  const std::string agent_flags = replayed ? "replay --answers <state dir>/episodes/" +
                                                 (id.empty() ? "<episode>" : id) + "/turns"
                                           : agent;
  out.reproduce = {"git checkout " + branch_for_kernel(out.kernel),
                   "kgate gate --base " + out.base_rev.substr(0, 12) + " --head " +
                       branch_for_kernel(out.kernel) + " --kernel " + out.kernel +
                       " --all --backend " + backend};
  if (replayed)
    out.reproduce.push_back("# " + agent +
                            "'s answers, as recorded in the episode's turns/ folder (the state "
                            "the runner keeps, or its job's artifact)");
  out.reproduce.push_back("kgate optimize " + out.kernel + repo_flag + " --backend " + backend +
                          " --agent " + agent_flags +
                          (p.contains("seed") ? " --seed " + text(p, "seed") : "") + " --new");

  auto env = [&](const std::string& key, const std::string& value) {
    if (!value.empty() && value != "0") out.environment.push_back({key, value});
  };
  env("GPU", out.gpu);
  if (device.is_object()) {
    env("driver", text(device, "driver"));
    env(backend == "cuda" ? "CUDA" : "compiler", text(device, "runtime"));
    env("architecture", text(device, "arch"));
    if (double mhz = number(device, "peak_sm_clock_mhz"); mhz > 0)
      env("clocks", "SM clock peak " + format_number(mhz, 6) +
                        " MHz; samples below it are counted by the gate as throttled");
  }
  env("backend", backend);
  env("gate", text(p, "gate_engine"));
  env("agent", text(p, "agent") + ", " + text(p, "iterations_used") + " iterations (" +
                   text(p, "stop_reason") + ")");
  env("kgate", kVersion);
  return out;
}

}  // namespace kgate::bot
