#include "agent/episode_record.h"

#include <ctime>

#include "agent/persisted_json.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/utc_time.h"

namespace kgate {

nlohmann::json IterationRecord::to_json() const {
  nlohmann::json j = {{"index", index},
                      {"done", done},
                      {"started_at", started_at},
                      {"seconds", finite_or_null(seconds)},
                      {"prompt", prompt},
                      {"context_sizes", context_sizes},
                      {"answer", answer},
                      {"plan", plan},
                      {"candidate_file", candidate_file},
                      {"candidate", candidate},
                      {"outcome", outcome},
                      {"failure", failure},
                      {"compile_digest", compile_digest},
                      {"reflection", reflection},
                      {"pending_lesson", pending_lesson},
                      {"accepted", accepted},
                      {"turns", turns}};
  if (!replan_prompt.empty()) {
    j["replan_prompt"] = replan_prompt;
    j["replan_answer"] = replan_answer;
  }
  j["gate"] = evaluation ? evaluation->to_json() : nlohmann::json();
  return j;
}

IterationRecord IterationRecord::from_json(const nlohmann::json& j) {
  IterationRecord r;
  r.index = static_cast<int>(integer_field(j, "index", 0));
  r.done = bool_field(j, "done", false);
  r.started_at = string_field(j, "started_at");
  r.seconds = number_field(j, "seconds", 0);
  r.replan_prompt = string_field(j, "replan_prompt");
  r.replan_answer = string_field(j, "replan_answer");
  r.prompt = string_field(j, "prompt");
  r.context_sizes = object_field(j, "context_sizes");
  r.answer = string_field(j, "answer");
  r.plan = object_field(j, "plan");
  r.candidate_file = string_field(j, "candidate_file");
  r.candidate = object_field(j, "candidate");
  r.outcome = string_field(j, "outcome");
  r.failure = string_field(j, "failure");
  r.compile_digest = string_field(j, "compile_digest");
  if (j.contains("gate") && j["gate"].is_object()) r.evaluation = Evaluation::from_json(j["gate"]);
  r.reflection = string_field(j, "reflection");
  if (auto p = j.find("pending_lesson"); p != j.end() && p->is_object()) r.pending_lesson = *p;
  r.accepted = bool_field(j, "accepted", false);
  r.turns = static_cast<int>(integer_field(j, "turns", 0));
  return r;
}

nlohmann::json PendingTurn::to_json() const {
  return {{"turn", turn},           {"id", id},           {"task", task},
          {"iteration", iteration}, {"request", request}, {"answer", answer}};
}

std::optional<PendingTurn> PendingTurn::from_json(const nlohmann::json& j) {
  PendingTurn p;
  p.turn = static_cast<int>(integer_field(j, "turn", 0));
  p.id = string_field(j, "id");
  p.task = string_field(j, "task");
  p.iteration = static_cast<int>(integer_field(j, "iteration", 0));
  p.request = string_field(j, "request");
  p.answer = string_field(j, "answer");
  if (p.turn <= 0 || p.iteration <= 0 || p.id.empty() || p.request.empty()) return std::nullopt;
  return p;
}

nlohmann::json EpisodeRecord::to_json() const {
  nlohmann::json j = {{"version", version},
                      {"id", id},
                      {"kernel", kernel},
                      {"family", family},
                      {"backend", backend},
                      {"agent", agent},
                      {"seed", seed},
                      {"manifest", manifest},
                      {"started_at", started_at},
                      {"updated_at", updated_at},
                      {"status", status},
                      {"stop_reason", stop_reason},
                      {"options", options},
                      {"best",
                       {{"iteration", best_iteration},
                        {"file", best_file},
                        {"candidate", best_candidate},
                        {"speedup", finite_or_null(best_speedup)}}},
                      {"elapsed_s", finite_or_null(elapsed_s)},
                      {"iterations", nlohmann::json::array()}};
  j["baseline"] = baseline ? baseline->to_json() : nlohmann::json();
  j["final"] = final_evaluation ? final_evaluation->to_json() : nlohmann::json();
  j["bounds"] = bounds ? bounds->to_json() : nlohmann::json();
  if (!extra_shapes.empty()) j["extra_shapes"] = extra_shapes;
  if (!profiles.empty()) {
    j["profiles"] = nlohmann::json::array();
    for (const ProfileObservation& p : profiles) j["profiles"].push_back(p.to_json());
  }
  for (const IterationRecord& it : iterations) j["iterations"].push_back(it.to_json());
  j["waiting"] = waiting ? waiting->to_json() : nlohmann::json();
  if (!original_sha256.empty()) j["original_sha256"] = original_sha256;
  return j;
}

Result<EpisodeRecord> EpisodeRecord::from_json(const nlohmann::json& j) {
  if (!j.is_object() || string_field(j, "id").empty() || string_field(j, "kernel").empty())
    return Error::bad_input("not an episode record (no id or kernel)");
  // Every field is read leniently (persisted_json.h): a NaN timing stored as
  // null, or a field of the wrong type, costs that field, not the record.
  EpisodeRecord r;
  r.version = static_cast<int>(integer_field(j, "version", 1));
  r.id = string_field(j, "id");
  r.kernel = string_field(j, "kernel");
  r.family = string_field(j, "family");
  r.backend = string_field(j, "backend");
  r.agent = string_field(j, "agent");
  r.seed = unsigned_field(j, "seed", 0);
  r.manifest = string_field(j, "manifest");
  r.started_at = string_field(j, "started_at");
  r.updated_at = string_field(j, "updated_at");
  r.status = string_field(j, "status", "running");
  r.stop_reason = string_field(j, "stop_reason");
  r.options = object_field(j, "options");
  const nlohmann::json b = object_field(j, "best");
  r.best_iteration = static_cast<int>(integer_field(b, "iteration", 0));
  r.best_file = string_field(b, "file");
  r.best_candidate = object_field(b, "candidate");
  r.best_speedup = number_field(b, "speedup", 1);
  r.elapsed_s = number_field(j, "elapsed_s", 0);
  if (j.contains("baseline") && j["baseline"].is_object())
    r.baseline = Evaluation::from_json(j["baseline"]);
  if (j.contains("final") && j["final"].is_object())
    r.final_evaluation = Evaluation::from_json(j["final"]);
  if (j.contains("bounds") && j["bounds"].is_object())
    r.bounds = EpisodeBounds::from_json(j["bounds"]);
  r.extra_shapes = object_field(j, "extra_shapes");
  for (const auto& p : array_field(j, "profiles"))
    if (p.is_object()) r.profiles.push_back(ProfileObservation::from_json(p));
  for (const auto& it : array_field(j, "iterations"))
    if (it.is_object()) r.iterations.push_back(IterationRecord::from_json(it));
  r.waiting = PendingTurn::from_json(object_field(j, "waiting"));
  r.original_sha256 = string_field(j, "original_sha256");
  // Keep the invariant (index == position + 1) whatever the file says; a
  // best that points past the iterations read is the original.
  for (size_t i = 0; i < r.iterations.size(); ++i) r.iterations[i].index = static_cast<int>(i) + 1;
  if (r.best_iteration < 0 || r.best_iteration > static_cast<int>(r.iterations.size()) ||
      (r.best_iteration > 0 && r.best_file.empty())) {
    r.best_iteration = 0;
    r.best_file.clear();
    r.best_candidate = nlohmann::json::object();
    r.best_speedup = 1;
  }
  return r;
}

Status save_episode(const std::filesystem::path& dir, const EpisodeRecord& record) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error::infrastructure("cannot create " + dir.string() + ": " + ec.message());
  return write_file_atomic(dir / "episode.json", record.to_json().dump(2) + "\n");
}

Result<EpisodeRecord> load_episode(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "episode.json";
  auto j = read_state_json(file);
  if (!j.ok()) return j.error();
  try {
    auto r = EpisodeRecord::from_json(*j);
    if (!r.ok()) return r.error().with_context(file.string());
    return r;
  } catch (const nlohmann::json::exception& e) {
    // The readers above do not throw; this is the last line of defence.
    return Error::bad_input(file.string() + " cannot be read: " + e.what());
  }
}

std::optional<std::filesystem::path> find_unfinished_episode(
    const std::filesystem::path& episodes_dir, const std::string& kernel,
    const std::string& backend, const std::string& agent) {
  std::error_code ec;
  std::optional<std::filesystem::path> newest;
  std::string newest_start;
  for (const auto& entry : std::filesystem::directory_iterator(episodes_dir, ec)) {
    if (!entry.is_directory()) continue;
    auto r = load_episode(entry.path());
    if (!r.ok()) {
      // Only episodes that could be ours are worth a word: the folder name
      // carries the kernel (<stamp>-<kernel>-<hex>).
      const std::string name = entry.path().filename().string();
      if (name.find("-" + kernel + "-") != std::string::npos)
        warn("skipping an unreadable episode record: " + r.error().message);
      continue;
    }
    if (r->status != "running" && r->status != "waiting") continue;
    if (r->kernel != kernel || r->backend != backend || r->agent != agent) continue;
    // Ids start with a UTC timestamp, so they order like start times.
    if (!newest || r->id > newest_start) {
      newest = entry.path();
      newest_start = r->id;
    }
  }
  return newest;
}

}  // namespace kgate
