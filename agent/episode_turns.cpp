#include "agent/episode_turns.h"

#include "agent/turn_journal.h"
#include "core/file_util.h"

namespace kgate {
namespace {

// The request handed off for `turn`, as its file says, checked against the
// record's id so an edited or replaced file is not answered as the original.
Result<std::pair<AgentRequest, std::string>> handed_off_request(const std::filesystem::path& dir,
                                                                const PendingTurn& turn) {
  const std::filesystem::path file = dir / turn.request;
  auto text = read_file(file);
  if (!text.ok())
    return Error::bad_input("the episode waits for the answer to request " +
                            std::to_string(turn.turn) + ", but its request file is gone: " +
                            text.error().message + " (start a new episode with --new)");
  if (turn_files(dir, turn.turn, *text).id != turn.id)
    return Error::bad_input(file.string() + " is not the request " + turn.id +
                            " that was handed off (it was changed since); put the original "
                            "back or start a new episode with --new");
  auto request = AgentRequest::from_text(*text);
  if (!request.ok()) return request.error().with_context(file.string());
  return std::pair{std::move(*request), std::move(*text)};
}

}  // namespace

void EpisodeTurns::start(const std::filesystem::path& episode_dir,
                         std::optional<PendingTurn> waiting) {
  dir_ = episode_dir;
  waiting_ = std::move(waiting);
}

bool EpisodeTurns::waits_at(int index, AgentTask task) const {
  return continues(index) && waiting_->task == to_string(task);
}

Result<std::string> EpisodeTurns::ask(AgentRequest request, int number, int index,
                                      std::optional<PendingTurn>* waiting) {
  std::string text;
  if (waits_at(index, request.task)) {
    auto stored = handed_off_request(dir_, *waiting_);
    if (!stored.ok()) return stored.error();
    const bool structured = request.structured_answer;
    request = std::move(stored->first);
    request.structured_answer = structured;
    text = std::move(stored->second);
    number = waiting_->turn;
  } else {
    text = request.file_text();
  }
  const TurnFiles files = turn_files(dir_, number, text);
  request.turn = files;
  if (agent_.records_turns()) KGATE_RETURN_IF_ERROR(record_request(files, text));
  auto answer = agent_.ask(request);
  if (!answer.ok()) {
    if (agent_.answers_later() && waiting) {
      PendingTurn p;
      p.turn = files.number;
      p.id = files.id;
      p.task = std::string(to_string(request.task));
      p.iteration = index;
      p.request = (std::filesystem::path(kTurnsFolder) / files.request.filename()).string();
      p.answer = (std::filesystem::path(kTurnsFolder) / files.answer.filename()).string();
      *waiting = p;
    }
    return answer.error();
  }
  if (waits_at(index, request.task)) waiting_.reset();
  if (agent_.records_turns()) KGATE_RETURN_IF_ERROR(record_answer(files, *answer));
  return answer;
}

int next_turn_number(const std::vector<IterationRecord>& iterations, const IterationRecord& it) {
  int n = 0;
  for (const IterationRecord& done : iterations)
    if (done.index < it.index) n += done.turns;
  return n + it.turns + 1;
}

std::string standing_replan(const std::vector<IterationRecord>& iterations) {
  std::string replan;
  for (const IterationRecord& it : iterations) {
    if (!it.done) break;
    if (!it.failed_to_compile())
      replan.clear();
    else if (!it.replan_answer.empty())
      replan = it.replan_answer;
  }
  return replan;
}

std::string waiting_line(const PendingTurn& turn) {
  return "waiting for the answer to request " + std::to_string(turn.turn) + " (" + turn.task +
         ", iteration " + std::to_string(turn.iteration) + ")";
}

}  // namespace kgate
