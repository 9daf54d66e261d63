#pragma once
// Compiles a manifest's CUDA kernel to a cubin for one architecture, through
// the compile cache: NVRTC by default, nvcc when compile.compiler says so.
// Tunables become -D macros, except those a template-id entry names, which
// become its template arguments; numerics-changing flags are refused unless
// the manifest allows them; the resource report comes from ptxas's -v output.
// Program::entry is the symbol the module is loaded by.
//
// Invariant: a cache key covers everything that shapes the cubin: compiler
// and its version (with kgate's NVRTC prelude), architecture, the
// instantiated entry, flags, defines, the source text and every header in
// the source's folder and the include folders.
#include <string>

#include "core/status.h"
#include "runner/compile_cache.h"
#include "runner/program.h"

namespace kgate::cuda {

class CudaCompiler {
 public:
  explicit CudaCompiler(CompileCache cache = CompileCache()) : cache_(std::move(cache)) {}
  // An Error for infrastructure (no toolkit) and refused flags; a kernel that
  // does not compile is an outcome with ok == false and diagnostics.
  Result<CompileOutcome> compile(const CompileRequest& request, const std::string& arch);

 private:
  // compile() before the parameter check.
  Result<CompileOutcome> compile_unchecked(const CompileRequest& request, const std::string& arch);

  CompileCache cache_;
};

}  // namespace kgate::cuda
