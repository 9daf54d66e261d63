// kgate experience list: the lessons the experience store holds.
#include <cstdio>

#include "agent/experience_store.h"
#include "agent/optimize_job.h"
#include "cli/command.h"
#include "core/number_format.h"
#include "core/text_table.h"

namespace kgate::cli {
namespace {

struct ExperienceArgs {
  std::string repo = ".";
  std::string state_dir;
  std::string family;
  int limit = 50;
  bool json = false;
};

int list(const ExperienceArgs& args) {
  std::filesystem::path dir =
      args.state_dir.empty() ? default_state_dir(args.repo) : std::filesystem::path(args.state_dir);
  std::filesystem::path db = dir / "experience.sqlite";
  if (!std::filesystem::exists(db)) {
    if (args.json)
      std::puts("[]");
    else
      std::printf("no lessons yet (%s does not exist)\n", db.c_str());
    return 0;
  }
  auto store = ExperienceStore::open(db);
  if (!store.ok()) return fail(store.error());
  auto lessons = (*store)->list(args.family, args.limit);
  if (!lessons.ok()) return fail(lessons.error());
  if (args.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const Lesson& l : *lessons) j.push_back(l.to_json());
    std::puts(j.dump(2).c_str());
    return 0;
  }
  TextTable table(
      {"id", "kernel", "family", "bottleneck", "change", "outcome", "speedup", "reflection"});
  for (const Lesson& l : *lessons) {
    auto cut = [](std::string s, size_t n) {
      return s.size() > n ? s.substr(0, n - 3) + "..." : s;
    };
    table.add({std::to_string(l.id), l.kernel, l.family, l.bottleneck, cut(l.change, 48), l.outcome,
               l.speedup > 0 ? format_speedup(l.speedup) : "-", cut(l.reflection, 60)});
  }
  std::fputs(table.render().c_str(), stdout);
  return 0;
}

CommandRegistration registration_experience(
    "experience", "Show what the experience store has learned", [](CLI::App& app) {
      auto args = std::make_shared<ExperienceArgs>();
      app.require_subcommand(1);
      CLI::App* l = app.add_subcommand("list", "List lessons, newest first");
      l->add_option("--repo", args->repo, "The kernel repository")->capture_default_str();
      l->add_option("--state-dir", args->state_dir, "The state directory (default: REPO/.kgate)");
      l->add_option("--family", args->family, "Only this kernel family");
      l->add_option("--limit", args->limit, "At most this many")->capture_default_str();
      l->add_flag("--json", args->json, "As JSON");
      return [args] { return list(*args); };
    });

}  // namespace
}  // namespace kgate::cli
