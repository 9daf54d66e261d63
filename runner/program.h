#pragma once
// What a compile produces: a loadable program, the compiler's resource report
// and its diagnostics. Backend-neutral.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expression.h"
#include "core/manifest.h"

namespace kgate {

// The compiler's resource report; -1 where the backend cannot tell.
struct ResourceReport {
  int registers = -1;  // per thread
  int spill_store_bytes = -1;
  int spill_load_bytes = -1;
  int shared_bytes = -1;  // static shared memory per block
  int stack_bytes = -1;   // stack frame per thread
  int local_bytes = -1;
  int max_threads_per_block = -1;

  nlohmann::json to_json() const;
  static ResourceReport from_json(const nlohmann::json& j);
};

struct CompileDiagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string kind;  // "error", "warning", "note", "fatal error"
  std::string message;

  nlohmann::json to_json() const;
};

struct Program {
  std::string backend;             // "host" or "cuda"
  std::string entry;               // function name in the artifact
  std::filesystem::path artifact;  // shared object (host) or cubin (cuda)
  std::string cache_key;
  Variables tunables;  // the -D values it was built with
  ResourceReport resources;
  std::string log;  // compiler output
  // What the compile changed of the manifest's request, for reports:
  // "-O3: dropped for NVRTC (it always optimizes device code)".
  std::vector<std::string> notes;
  // The entry's parameter sizes in bytes as the artifact states them (a
  // cubin's records); empty where it does not.
  std::vector<size_t> param_sizes;
  double compile_seconds = 0;
  bool from_cache = false;

  nlohmann::json to_json() const;
};

// Either a program or the compiler's refusal, structured for people and agents.
struct CompileOutcome {
  bool ok = false;
  Program program;                             // valid when ok
  std::vector<CompileDiagnostic> diagnostics;  // errors and warnings
  std::string log;                             // raw compiler output
  // "csrc/x.cu:12: error: ...", a few lines that name what went wrong.
  std::string digest(size_t max_lines = 12) const;
};

struct CompileRequest {
  const Kernel* kernel = nullptr;
  const Implementation* impl = nullptr;
  std::filesystem::path root;              // the manifest's folder
  std::optional<std::string> source_text;  // a candidate replacing impl->source
  Variables tunables;                      // missing names take their defaults
  std::vector<std::string> extra_flags;    // checked by compile_policy
  bool line_info = false;                  // -lineinfo / -g for profiles
};

}  // namespace kgate
