#include "agent/episode_record.h"

#include <ctime>

#include "core/file_util.h"

namespace kgate {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json IterationRecord::to_json() const {
  nlohmann::json j = {{"index", index},
                      {"done", done},
                      {"started_at", started_at},
                      {"seconds", seconds},
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
                      {"accepted", accepted}};
  if (!replan_prompt.empty()) {
    j["replan_prompt"] = replan_prompt;
    j["replan_answer"] = replan_answer;
  }
  j["gate"] = evaluation ? evaluation->to_json() : nlohmann::json();
  return j;
}

IterationRecord IterationRecord::from_json(const nlohmann::json& j) {
  IterationRecord r;
  r.index = j.value("index", 0);
  r.done = j.value("done", false);
  r.started_at = j.value("started_at", "");
  r.seconds = j.value("seconds", 0.0);
  r.replan_prompt = j.value("replan_prompt", "");
  r.replan_answer = j.value("replan_answer", "");
  r.prompt = j.value("prompt", "");
  r.context_sizes = j.value("context_sizes", nlohmann::json::object());
  r.answer = j.value("answer", "");
  r.plan = j.value("plan", nlohmann::json::object());
  r.candidate_file = j.value("candidate_file", "");
  r.candidate = j.value("candidate", nlohmann::json::object());
  r.outcome = j.value("outcome", "");
  r.failure = j.value("failure", "");
  r.compile_digest = j.value("compile_digest", "");
  if (j.contains("gate") && j["gate"].is_object()) r.evaluation = Evaluation::from_json(j["gate"]);
  r.reflection = j.value("reflection", "");
  r.accepted = j.value("accepted", false);
  return r;
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
                        {"speedup", best_speedup}}},
                      {"elapsed_s", elapsed_s},
                      {"iterations", nlohmann::json::array()}};
  j["baseline"] = baseline ? baseline->to_json() : nlohmann::json();
  j["final"] = final_evaluation ? final_evaluation->to_json() : nlohmann::json();
  j["bounds"] = bounds ? bounds->to_json() : nlohmann::json();
  for (const IterationRecord& it : iterations) j["iterations"].push_back(it.to_json());
  return j;
}

Result<EpisodeRecord> EpisodeRecord::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("id") || !j.contains("kernel"))
    return Error::bad_input("not an episode record (no id or kernel)");
  EpisodeRecord r;
  r.version = j.value("version", 1);
  r.id = j.value("id", "");
  r.kernel = j.value("kernel", "");
  r.family = j.value("family", "");
  r.backend = j.value("backend", "");
  r.agent = j.value("agent", "");
  r.seed = j.value("seed", uint64_t{0});
  r.manifest = j.value("manifest", "");
  r.started_at = j.value("started_at", "");
  r.updated_at = j.value("updated_at", "");
  r.status = j.value("status", "running");
  r.stop_reason = j.value("stop_reason", "");
  r.options = j.value("options", nlohmann::json::object());
  if (j.contains("best")) {
    const auto& b = j["best"];
    r.best_iteration = b.value("iteration", 0);
    r.best_file = b.value("file", "");
    r.best_candidate = b.value("candidate", nlohmann::json::object());
    r.best_speedup = b.value("speedup", 1.0);
  }
  r.elapsed_s = j.value("elapsed_s", 0.0);
  if (j.contains("baseline") && j["baseline"].is_object())
    r.baseline = Evaluation::from_json(j["baseline"]);
  if (j.contains("final") && j["final"].is_object())
    r.final_evaluation = Evaluation::from_json(j["final"]);
  if (j.contains("bounds") && j["bounds"].is_object())
    r.bounds = EpisodeBounds::from_json(j["bounds"]);
  if (j.contains("iterations"))
    for (const auto& it : j["iterations"]) r.iterations.push_back(IterationRecord::from_json(it));
  return r;
}

Status save_episode(const std::filesystem::path& dir, const EpisodeRecord& record) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error::infrastructure("cannot create " + dir.string() + ": " + ec.message());
  return write_file_atomic(dir / "episode.json", record.to_json().dump(2) + "\n");
}

Result<EpisodeRecord> load_episode(const std::filesystem::path& dir) {
  auto text = read_file(dir / "episode.json");
  if (!text.ok()) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded())
    return Error::bad_input((dir / "episode.json").string() + " is not valid JSON");
  auto r = EpisodeRecord::from_json(j);
  if (!r.ok()) return r.error().with_context((dir / "episode.json").string());
  return r;
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
    if (!r.ok() || r->status != "running") continue;
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
