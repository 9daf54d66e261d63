// kgate sanitize-check FILE (internal): the correctness check of one kernel
// on one shape, in this process, for compute-sanitizer to watch
// (runner/sanitizer_check.h writes FILE and starts this under the tool).
// Prints the measurement as JSON; exit 0 when the check ran.
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "runner/sanitizer_check.h"

namespace kgate::cli {
namespace {

int run(const std::string& file) {
  auto text = read_file(file);
  if (!text.ok()) return fail(text.error());
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return fail(Error::bad_input(file + ": not JSON"));
  auto target = load_sanitize_target(j);
  if (!target.ok()) return fail(target.error());
  ShapeMeasurement m = measure_in_process((*target)->request);
  std::printf("%s\n", m.to_json().dump().c_str());
  return 0;
}

CommandRegistration registration_sanitize_check(
    kSanitizeCheckCommand, "(internal) one correctness check, run under compute-sanitizer",
    [](CLI::App& app) {
      app.group("");  // not listed in --help: kgate gate starts it
      auto file = std::make_shared<std::string>();
      app.add_option("file", *file, "The check, as runner/sanitizer_check.cpp writes it")
          ->required();
      return [file] { return run(*file); };
    });

}  // namespace
}  // namespace kgate::cli
