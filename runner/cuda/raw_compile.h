#pragma once
// One compile of CUDA source text to a cubin, by NVRTC (in process) or nvcc
// (a program), before caching and reporting: the part that differs between
// the two compilers.
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate::cuda {

struct RawCompileInput {
  std::string source;        // the text
  std::string display_name;  // "csrc/rmsnorm.cu": names the file in diagnostics
  std::string arch;          // "sm_90"
  std::vector<std::filesystem::path> include_dirs;
  std::vector<std::string> defines;  // "NAME=value"
  std::vector<std::string> flags;    // as the manifest wrote them, already policy-checked
  bool line_info = false;
  // The entry's C++ name ("reduce6<float, 256, true>", "rmsnorm"): NVRTC
  // resolves it as a name expression, nvcc through entry_symbol.h; the
  // compile instantiates it when it is a template-id.
  std::string entry;
  // Further entries the same module serves (other kernels of the file),
  // resolved the same way: one compile for all of them.
  std::vector<std::string> more_entries;
};

struct RawCompileOutput {
  bool ok = false;
  std::string log;           // compiler diagnostics plus the ptxas -v report
  std::string cubin;         // bytes, when ok
  std::string entry_symbol;  // the entry's name in the cubin ("_Z7reduce6IfLj256ELb1EEvPT_S1_j")
  std::vector<std::string> more_symbols;  // per more_entries, in order
};

// An Error only when the compiler cannot be run at all.
Result<RawCompileOutput> compile_with_nvrtc(const RawCompileInput& input);
Result<RawCompileOutput> compile_with_nvcc(const RawCompileInput& input,
                                           const std::filesystem::path& work_dir);

}  // namespace kgate::cuda
