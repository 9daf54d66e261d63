// The files of an episode's model turns (agent/turn_journal.h) and the two
// providers that answer from them: the hand-off's request file is byte for
// byte what the command provider writes on stdin; an answer is taken only
// for the request its name carries; a replay answers turn by turn and says
// where it went another way than the recording.
#include <gtest/gtest.h>

#include "agent/agent_provider.h"
#include "agent/command_provider.h"
#include "agent/handoff_provider.h"
#include "agent/replay_provider.h"
#include "agent/turn_journal.h"
#include "core/hash.h"
#include "support/test_support.h"

namespace kgate {
namespace {

AgentRequest sample_request(AgentTask task = AgentTask::kPropose) {
  AgentRequest r;
  r.task = task;
  r.system = "You optimize one kernel.";
  // Text a shell or JSON could mangle: quotes, a backslash, a newline, a
  // non-ASCII character, a byte that is not UTF-8 (a Latin-1 source).
  r.prompt = "Kernel `k`: \"x\" \\ y\nsum = 1e-6; \xc3\xa9 \xe9 done";
  r.context = {{"kernel", "rmsnorm_f32"},
               {"iteration", 2},
               {"seed", uint64_t{18446744073709551615u}},
               {"ratio", 0.1 + 0.2},
               {"best", {{"tunables", {{"ACCUMULATORS", 4}}}, {"flags", nlohmann::json::array()}}}};
  return r;
}

// A hand-off's request for the sample, as an episode would ask it.
AgentRequest at_turn(const std::filesystem::path& episode_dir, int number, AgentRequest r) {
  r.turn = turn_files(episode_dir, number, r.file_text());
  return r;
}

TEST(TurnJournal, TheRequestFileIsWhatTheCommandProviderWritesOnStdin) {
  testing::TempDir dir;
  const AgentRequest request = sample_request();
  const std::filesystem::path seen = dir / "stdin.json";
  auto command = make_command_provider("cat > '" + seen.string() + "'; echo ok", 30);
  ASSERT_TRUE(command->ask(request).ok());

  const TurnFiles turn = turn_files(dir.path(), 3, request.file_text());
  ASSERT_TRUE(record_request(turn, request.file_text()).ok());
  EXPECT_EQ(testing::read(turn.request), testing::read(seen));
  // Named by its number and its content; a file name says which request it is.
  EXPECT_EQ(turn.id, "3-" + sha256_hex(testing::read(seen)).substr(0, 12));
  EXPECT_EQ(turn.request, dir.path() / "turns" / ("request-" + turn.id + ".json"));
  EXPECT_EQ(turn.answer, dir.path() / "turns" / ("answer-" + turn.id + ".txt"));
  // Read back (a continued episode asks the request it handed off), it is the same text.
  auto back = AgentRequest::from_text(testing::read(turn.request));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->file_text(), testing::read(turn.request));
  EXPECT_EQ(back->task, AgentTask::kPropose);
  EXPECT_TRUE(AgentRequest::from_text("{\"task\": \"dance\"}").error().message.find("task") !=
              std::string::npos);
}

TEST(TurnJournal, TheHandoffTakesOnlyTheAnswerToItsRequest) {
  testing::TempDir dir;
  auto handoff = make_provider({.name = "handoff"});
  ASSERT_TRUE(handoff.ok());
  EXPECT_TRUE((*handoff)->answers_later());
  const AgentRequest request = at_turn(dir.path(), 2, sample_request());
  ASSERT_TRUE(record_request(*request.turn, request.file_text()).ok());

  // No answer yet: waiting (exit code 4), naming the request and where its answer goes.
  auto waiting = (*handoff)->ask(request);
  ASSERT_FALSE(waiting.ok());
  EXPECT_EQ(to_int(waiting.error().kind), 4);
  EXPECT_NE(waiting.error().message.find("waiting for the answer to request 2 (propose)"),
            std::string::npos)
      << waiting.error().message;
  EXPECT_NE(waiting.error().message.find(request.turn->answer.string()), std::string::npos);

  // An answer copied from another episode (its request is not here): refused, named.
  const AgentRequest other = at_turn(dir / "other-episode", 2, sample_request(AgentTask::kReflect));
  const std::filesystem::path stray = dir / "turns" / other.turn->answer.filename();
  testing::write(stray, "It came out as measured.");
  auto refused = (*handoff)->ask(request);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ExitCode::kBadInput);
  EXPECT_NE(refused.error().message.find(stray.string()), std::string::npos);
  EXPECT_NE(refused.error().message.find("another episode"), std::string::npos);
  EXPECT_NE(refused.error().message.find(request.turn->answer.string()), std::string::npos)
      << "says where the answer belongs: " << refused.error().message;
  std::filesystem::remove(stray);
  // One named by hand without the request's id: refused too.
  testing::write(dir / "turns" / "answer-2.txt", "BOTTLENECK: x");
  EXPECT_NE((*handoff)->ask(request).error().message.find("answer-2.txt answers no request"),
            std::string::npos);
  std::filesystem::remove(dir / "turns" / "answer-2.txt");
  // An empty answer (an input that never arrived) is not an answer.
  testing::write(request.turn->answer, " \n");
  auto empty = (*handoff)->ask(request);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("is empty"), std::string::npos);

  // An answer to an earlier version of this turn's request is history: noted, not taken.
  AgentRequest earlier = sample_request();
  earlier.prompt += " (before the crash)";
  const TurnFiles old = turn_files(dir.path(), 2, earlier.file_text());
  ASSERT_TRUE(record_request(old, earlier.file_text()).ok());
  ASSERT_TRUE(record_answer(old, "an old answer").ok());
  std::filesystem::remove(request.turn->answer);
  auto noted = (*handoff)->ask(request);
  ASSERT_FALSE(noted.ok());
  EXPECT_EQ(to_int(noted.error().kind), 4);
  EXPECT_NE(noted.error().message.find(old.answer.filename().string() +
                                       " answers an earlier version of request 2"),
            std::string::npos)
      << noted.error().message;

  // The answer in place: its text, as written.
  testing::write(request.turn->answer, "CHANGE: eight partial sums\n```cpp\nint x;\n```\n");
  auto answer = (*handoff)->ask(request);
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(*answer, "CHANGE: eight partial sums\n```cpp\nint x;\n```\n");
}

TEST(TurnJournal, AReplayAnswersTurnByTurnAndSaysWhereItWentAnotherWay) {
  testing::TempDir dir;
  EXPECT_NE(make_provider({.name = "replay"}).error().message.find("--answers"), std::string::npos);
  EXPECT_EQ(make_provider({.name = "replay", .answers = dir / "none"}).error().kind,
            ExitCode::kBadInput);
  // A recording: turn 1 a propose, turn 2 its reflection.
  const AgentRequest propose = at_turn(dir / "recorded", 1, sample_request());
  const AgentRequest reflect = at_turn(dir / "recorded", 2, sample_request(AgentTask::kReflect));
  for (const AgentRequest* r : {&propose, &reflect})
    ASSERT_TRUE(record_request(*r->turn, r->file_text()).ok());
  ASSERT_TRUE(record_answer(*propose.turn, "the recorded candidate").ok());
  ASSERT_TRUE(record_answer(*reflect.turn, "the recorded reflection").ok());
  auto replay = make_provider({.name = "replay", .answers = dir / "recorded" / "turns"});
  ASSERT_TRUE(replay.ok()) << replay.error().message;

  // The replaying episode's requests differ (new timings): matched by turn number and task.
  AgentRequest now = sample_request();
  now.prompt += " timed again";
  auto first = (*replay)->ask(at_turn(dir / "replaying", 1, now));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, "the recorded candidate");
  // Turn 2 asked as a re-plan: the replay went another way.
  auto diverged = (*replay)->ask(at_turn(dir / "replaying", 2, sample_request(AgentTask::kReplan)));
  ASSERT_FALSE(diverged.ok());
  EXPECT_NE(diverged.error().message.find("turn 2: this episode asks for a replan"),
            std::string::npos)
      << diverged.error().message;
  // Another kernel's recording is not answered.
  AgentRequest other_kernel = sample_request(AgentTask::kReflect);
  other_kernel.context["kernel"] = "softmax";
  EXPECT_NE((*replay)
                ->ask(at_turn(dir / "replaying", 2, other_kernel))
                .error()
                .message.find("are for kernel rmsnorm_f32, not softmax"),
            std::string::npos);
  // Past the recording a propose is told to stop, so the episode ends with its final gate.
  auto past = (*replay)->ask(at_turn(dir / "replaying", 3, sample_request()));
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(past->rfind("STOP: the recorded answers", 0), 0u) << *past;
  EXPECT_FALSE(
      (*replay)->ask(at_turn(dir / "replaying", 3, sample_request(AgentTask::kReflect))).ok());
}

}  // namespace
}  // namespace kgate
