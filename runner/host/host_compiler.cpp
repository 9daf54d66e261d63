#include "runner/host/host_compiler.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/log.h"
#include "core/subprocess.h"
#include "runner/compile_diagnostics.h"

namespace kgate {

extern const char* const kKgateHostHeader;  // embedded core/kgate_host.h

std::string HostCompiler::compiler_command() {
  const char* cxx = std::getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

Result<std::string> HostCompiler::compiler_identity() {
  if (!identity_.empty()) return identity_;
  auto outcome = run_command({compiler_command(), "--version"}, {.timeout_s = 30});
  if (!outcome.ok())
    return Error::infrastructure("the host backend needs a C++ compiler: " +
                                 outcome.error().message);
  if (!outcome->succeeded())
    return Error::infrastructure("'" + compiler_command() + " --version' failed: " + outcome->err);
  identity_ = outcome->out.substr(0, outcome->out.find('\n'));
  return identity_;
}

Result<CompileOutcome> HostCompiler::build(const HostBuild& build) {
  auto identity = compiler_identity();
  if (!identity.ok()) return identity.error();

  std::filesystem::path full_source = build.root / build.source_path;
  std::string source_text;
  if (build.source_text) {
    source_text = *build.source_text;
  } else {
    auto text = read_file(full_source);
    if (!text.ok()) return text.error();
    source_text = *text;
  }

  std::vector<std::string> args = {compiler_command(), "-std=c++17",     "-O2", "-fPIC",
                                   "-shared",          "-fno-gnu-unique"};
  for (const auto& [name, value] : build.defines)
    args.push_back("-D" + name + "=" + std::to_string(value));
  for (const std::string& flag : build.flags) args.push_back(flag);

  // The key covers everything that shapes the library: compiler, flags,
  // source, the trampoline and every file in the include folders.
  std::string key_material = *identity + "\n" + kKgateHostHeader + "\n";
  for (const std::string& a : args) key_material += a + "\n";
  key_material += source_text + "\n";
  std::vector<std::filesystem::path> include_dirs = {full_source.parent_path()};
  for (const std::string& inc : build.includes) include_dirs.push_back(build.root / inc);
  for (const auto& dir : include_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
      if (e.is_regular_file() && e.path() != full_source) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files)
      if (f.extension() == ".h" || f.extension() == ".hpp" || f.extension() == ".inc")
        key_material += f.string() + ":" + sha256_file(f) + "\n";
  }
  std::string display = build.source_path.string();
  std::string placeholder_trampoline =
      make_trampoline(*build.kernel, build.entry, "SOURCE", display, build.purpose);
  key_material += placeholder_trampoline;
  std::string key = sha256_hex(key_material);

  if (auto hit = cache_.lookup(key, ".so")) {
    CompileOutcome outcome;
    outcome.ok = true;
    outcome.program = *hit;
    outcome.program.tunables = build.defines;
    return outcome;
  }

  auto start = std::chrono::steady_clock::now();
  // A folder of its own for every compile: other kgate processes (parallel CI
  // jobs, two references of one check) may be compiling the same key right now
  // and remove their folder when done. Only the final rename is shared, and it is atomic.
  static std::atomic<unsigned> compiles{0};
  std::filesystem::path work =
      cache_.dir() / "work" /
      (key + "." + std::to_string(::getpid()) + "." + std::to_string(compiles.fetch_add(1)));
  std::filesystem::create_directories(work);
  std::filesystem::path copied_source = work / ("source" + full_source.extension().string());
  KGATE_RETURN_IF_ERROR(write_file_atomic(copied_source, source_text));
  KGATE_RETURN_IF_ERROR(write_file_atomic(work / "kgate_host.h", kKgateHostHeader));
  std::filesystem::path wrapper = work / "trampoline.cpp";
  KGATE_RETURN_IF_ERROR(write_file_atomic(
      wrapper,
      make_trampoline(*build.kernel, build.entry, copied_source.string(), display, build.purpose)));

  std::filesystem::path artifact = cache_.artifact_path(key, ".so");
  std::filesystem::create_directories(artifact.parent_path());
  std::filesystem::path tmp_artifact = work / "out.so";
  args.push_back("-I" + work.string());
  for (const auto& dir : include_dirs) args.push_back("-I" + dir.string());
  args.push_back(wrapper.string());
  args.push_back("-o");
  args.push_back(tmp_artifact.string());
  auto run = run_command(args, {.timeout_s = 300});
  if (!run.ok()) return run.error();

  CompileOutcome outcome;
  outcome.log = run->err + run->out;
  // Messages name the source as the manifest does, not the work folder's copy.
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t p = outcome.log.find(from); p != std::string::npos;
         p = outcome.log.find(from, p + to.size()))
      outcome.log.replace(p, from.size(), to);
  };
  replace_all(copied_source.string(), display);
  replace_all(work.string() + "/", "");
  outcome.diagnostics = parse_compile_diagnostics(outcome.log);
  if (!run->succeeded()) {
    outcome.ok = false;
    if (run->timed_out) outcome.log += "\nkgate: the compiler timed out after 300 s";
    std::filesystem::remove_all(work);
    return outcome;
  }
  std::error_code ec;
  std::filesystem::rename(tmp_artifact, artifact, ec);
  if (ec) return Error::infrastructure("cannot store " + artifact.string() + ": " + ec.message());
  std::filesystem::remove_all(work, ec);

  outcome.ok = true;
  Program& program = outcome.program;
  program.backend = "host";
  program.entry = build.entry;
  program.artifact = artifact;
  program.cache_key = key;
  program.tunables = build.defines;
  program.log = outcome.log;
  program.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cache_.store(program);
  return outcome;
}

}  // namespace kgate
