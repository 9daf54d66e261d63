#include "agent/replay_provider.h"

#include "agent/persisted_json.h"
#include "agent/turn_journal.h"
#include "core/file_util.h"

namespace kgate {
namespace {

class ReplayProvider : public AgentProvider {
 public:
  ReplayProvider(std::filesystem::path dir, std::map<int, TurnFiles> turns)
      : dir_(std::move(dir)), turns_(std::move(turns)) {}
  std::string name() const override { return "replay"; }

  Result<std::string> ask(const AgentRequest& request) override {
    if (!request.turn)
      return Error::infrastructure("the replay agent was asked outside an episode's turn");
    const int n = request.turn->number;
    const std::string task(to_string(request.task));
    const int last = turns_.rbegin()->first;
    auto found = turns_.find(n);
    if (found == turns_.end()) {
      if (request.task == AgentTask::kPropose && n > last)
        return "STOP: the recorded answers in " + dir_.string() + " end at turn " +
               std::to_string(last) + ".";
      return Error::bad_input("no recorded answer for turn " + std::to_string(n) + " (" + task +
                              ") in " + dir_.string() + " (its answers end at turn " +
                              std::to_string(last) + ")");
    }
    const TurnFiles& rec = found->second;
    if (!rec.request.empty()) {
      auto text = read_file(rec.request);
      if (!text.ok()) return text.error();
      auto recorded = AgentRequest::from_text(*text);
      if (!recorded.ok()) return recorded.error().with_context(rec.request.string());
      if (recorded->task != request.task)
        return Error::bad_input("the replay went another way at turn " + std::to_string(n) +
                                ": this episode asks for a " + task + ", the recording's " +
                                rec.request.filename().string() + " was a " +
                                std::string(to_string(recorded->task)) +
                                " (the same --seed, --max-iters and shapes as the recording "
                                "keep them in step)");
      const std::string kernel = string_field(request.context, "kernel");
      const std::string recorded_kernel = string_field(recorded->context, "kernel");
      if (!recorded_kernel.empty() && recorded_kernel != kernel)
        return Error::bad_input("the recorded answers in " + dir_.string() + " are for kernel " +
                                recorded_kernel + ", not " + kernel);
    }
    return read_file(rec.answer);
  }

 private:
  std::filesystem::path dir_;
  std::map<int, TurnFiles> turns_;  // never empty
};

}  // namespace

Result<std::unique_ptr<AgentProvider>> make_replay_provider(
    const std::filesystem::path& turns_dir) {
  auto turns = recorded_turns(turns_dir);
  if (!turns.ok()) return turns.error();
  return std::unique_ptr<AgentProvider>(
      std::make_unique<ReplayProvider>(turns_dir, std::move(*turns)));
}

}  // namespace kgate
