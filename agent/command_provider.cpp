#include "agent/command_provider.h"

#include "core/subprocess.h"

namespace kgate {
namespace {

class CommandProvider : public AgentProvider {
 public:
  CommandProvider(std::string command, double timeout_s)
      : command_(std::move(command)), timeout_s_(timeout_s) {}
  std::string name() const override { return "command"; }

  Result<std::string> ask(const AgentRequest& request) override {
    CommandOptions options;
    options.timeout_s = timeout_s_;
    options.stdin_text = request.file_text();
    auto outcome = run_command({"/bin/sh", "-c", command_}, options);
    if (!outcome.ok()) return outcome.error().with_context("agent command");
    if (!outcome->succeeded()) {
      std::string err =
          outcome->err.size() > 800 ? outcome->err.substr(outcome->err.size() - 800) : outcome->err;
      return Error::infrastructure("the agent command `" + command_ + "` " +
                                   outcome->describe(timeout_s_) + (err.empty() ? "" : ": " + err));
    }
    return outcome->out;
  }

 private:
  std::string command_;
  double timeout_s_;
};

}  // namespace

std::unique_ptr<AgentProvider> make_command_provider(std::string command, double timeout_s) {
  return std::make_unique<CommandProvider>(std::move(command), timeout_s);
}

}  // namespace kgate
