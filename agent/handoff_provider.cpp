#include "agent/handoff_provider.h"

#include "agent/turn_journal.h"

namespace kgate {
namespace {

class HandoffProvider : public AgentProvider {
 public:
  std::string name() const override { return "handoff"; }
  bool answers_later() const override { return true; }

  Result<std::string> ask(const AgentRequest& request) override {
    if (!request.turn)
      return Error::infrastructure("the handoff agent was asked outside an episode's turn");
    const TurnFiles& turn = *request.turn;
    auto placed = placed_answer(turn);
    if (!placed.ok()) return placed.error();
    if (placed->text) return *placed->text;
    return Error{kWaitingForAnswer,
                 "waiting for the answer to request " + std::to_string(turn.number) + " (" +
                     std::string(to_string(request.task)) + "): write it to " +
                     turn.answer.string() + "; the request is " + turn.request.string() +
                     (placed->note.empty() ? "" : ". " + placed->note)};
  }
};

}  // namespace

std::unique_ptr<AgentProvider> make_handoff_provider() {
  return std::make_unique<HandoffProvider>();
}

}  // namespace kgate
