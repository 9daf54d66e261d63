#pragma once
// How an episode asks its provider (docs/agent.md, "Hand-off episodes"):
// every ask is a numbered model turn of the episode, kept as files
// (turn_journal.h) when the provider records turns. A run that continues an
// episode waiting at a turn asks the request that was handed off, read back
// from its file, not one built anew: the answer was written for that text.
//
// Invariant: the turn number of an ask is the turns answered by the earlier
// iterations plus those of its own iteration, plus one, so an iteration
// dropped and redone after a crash asks its turns under the same numbers.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent_provider.h"
#include "agent/episode_record.h"

namespace kgate {

class EpisodeTurns {
 public:
  explicit EpisodeTurns(AgentProvider& agent) : agent_(agent) {}

  // The episode's folder, and the turn it waits at from its record (none:
  // it does not wait, or the record's iteration in flight is not that one).
  void start(const std::filesystem::path& episode_dir, std::optional<PendingTurn> waiting);
  // Whether this run continues iteration `index` at its `task` turn.
  bool waits_at(int index, AgentTask task) const;
  // Whether this run continues iteration `index` (at any of its turns).
  bool continues(int index) const { return waiting_ && waiting_->iteration == index; }

  // Asks `request` as turn `number` of iteration `index` (the request handed
  // off instead, when the episode waits there). When a provider that answers
  // later has no answer (or a bad one), `*waiting` is the turn to wait at.
  Result<std::string> ask(AgentRequest request, int number, int index,
                          std::optional<PendingTurn>* waiting);

 private:
  AgentProvider& agent_;
  std::filesystem::path dir_;
  std::optional<PendingTurn> waiting_;  // cleared once its turn is answered
};

// The number of turn `it.turns + 1` of iteration `it` in `iterations`.
int next_turn_number(const std::vector<IterationRecord>& iterations, const IterationRecord& it);

// The re-plan the next candidate follows: the latest forced one while every
// iteration since it failed to compile ("" after one that compiled), from
// the done iterations, so a resumed episode follows it as one that ran on.
std::string standing_replan(const std::vector<IterationRecord>& iterations);

// "waiting for the answer to request 3 (propose, iteration 2)".
std::string waiting_line(const PendingTurn& turn);

}  // namespace kgate
