#include "runner/cuda/cuda_compiler.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "core/entry_name.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "runner/compile_diagnostics.h"
#include "runner/compile_policy.h"
#include "runner/cuda/cubin_resources.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/nvrtc_prelude.h"
#include "runner/cuda/ptxas_report.h"
#include "runner/cuda/raw_compile.h"

namespace kgate::cuda {
namespace {

bool is_header(const std::filesystem::path& p) {
  std::string e = p.extension().string();
  return e == ".h" || e == ".cuh" || e == ".hpp" || e == ".inc" || e == ".inl";
}

// Headers a kernel may include: every header under the source's folder and
// the include folders (NVRTC does not list what it opened, so take them all).
std::string headers_fingerprint(const std::vector<std::filesystem::path>& dirs) {
  std::string out;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
      if (e.is_regular_file() && is_header(e.path())) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) out += f.string() + ":" + sha256_file(f) + "\n";
  }
  return out;
}

// The compilers report a bad entry against code kgate wrote (NVRTC's
// "__nv_name_map", nvcc's probe "kgate-entry"): point at kgate.json instead.
void name_entry_diagnostics(std::vector<CompileDiagnostic>& diagnostics, const Implementation& impl,
                            const std::string& instantiated) {
  for (CompileDiagnostic& d : diagnostics) {
    if (d.file != "__nv_name_map" && d.file != "kgate-entry") continue;
    d.file = "kgate.json";
    d.line = 0;
    d.message = impl.json_path + ".entry \"" + impl.entry + "\"" +
                (instantiated != impl.entry ? " (compiled as " + instantiated + ")" : "") + ": " +
                d.message;
  }
}

}  // namespace

Result<CompileOutcome> CudaCompiler::compile(const CompileRequest& request,
                                             const std::string& arch) {
  const Implementation& impl = *request.impl;
  std::vector<std::string> flags = impl.compile.flags;
  flags.insert(flags.end(), request.extra_flags.begin(), request.extra_flags.end());
  KGATE_RETURN_IF_ERROR(check_numerics_flags(flags, impl.compile.allow_fast_math));
  std::string compiler = impl.compile.compiler.empty() ? "nvrtc" : impl.compile.compiler;
  if (compiler != "nvrtc" && compiler != "nvcc")
    return Error::bad_input(impl.json_path + ".compile.compiler: '" + compiler +
                            "' is not a CUDA compiler (expected nvrtc or nvcc)");

  RawCompileInput in;
  std::filesystem::path source_path = request.root / impl.source;
  if (request.source_text) {
    in.source = *request.source_text;
  } else {
    auto text = read_file(source_path);
    if (!text.ok()) return text.error();
    in.source = *text;
  }
  in.display_name = impl.source;
  in.arch = arch;
  in.include_dirs.push_back(source_path.parent_path());
  for (const auto& inc : impl.compile.include) in.include_dirs.push_back(request.root / inc);
  Variables defines = impl.default_tunables();
  for (const auto& [k, v] : request.tunables) defines[k] = v;
  auto entry = EntryName::parse(impl.entry);
  if (!entry.ok()) return entry.error().with_context(impl.json_path + ".entry");
  in.entry = entry->instantiate(defines);
  // A tunable named in the entry's template arguments reaches the kernel
  // through them only: as a macro too it would rewrite the template's own
  // parameter of the same name (template <int BM> with -DBM=64).
  std::set<std::string> in_arguments = entry->argument_names();
  for (const auto& [k, v] : defines)
    if (!in_arguments.count(k)) in.defines.push_back(k + "=" + std::to_string(v));
  in.flags = flags;
  in.line_info = request.line_info;

  std::string version = compiler == "nvrtc" ? nvrtc_version() : "nvcc";
  if (compiler == "nvcc") {
    auto nvcc = nvcc_path();
    if (!nvcc.ok()) return nvcc.error();
    version =
        "nvcc " + *nvcc;  // the path stands for the installed toolkit (its version is nvrtc's)
    version += " " + nvrtc_version();
  }
  if (compiler == "nvrtc") version += "\n" + nvrtc_headers_fingerprint();
  std::string material = "cuda\n" + version + "\n" + arch + "\n" + in.entry + "\n";
  for (const auto& d : in.defines) material += "-D" + d + "\n";
  for (const auto& f : in.flags) material += f + "\n";
  material += in.line_info ? "lineinfo\n" : "\n";
  material += in.source + "\n" + headers_fingerprint(in.include_dirs);
  std::string key = sha256_hex(material);

  if (auto hit = cache_.lookup(key, ".cubin")) {
    CompileOutcome outcome;
    outcome.ok = true;
    outcome.program = *hit;
    outcome.program.tunables = defines;
    outcome.log = hit->log;
    return outcome;
  }

  auto start = std::chrono::steady_clock::now();
  std::filesystem::path work = cache_.dir() / "work" / key;
  auto raw = compiler == "nvrtc" ? compile_with_nvrtc(in) : compile_with_nvcc(in, work);
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  if (!raw.ok()) return raw.error();

  CompileOutcome outcome;
  outcome.log = raw->log;
  outcome.diagnostics = parse_compile_diagnostics(raw->log);
  name_entry_diagnostics(outcome.diagnostics, impl, in.entry);
  if (!raw->ok) return outcome;

  std::filesystem::path artifact = cache_.artifact_path(key, ".cubin");
  std::filesystem::create_directories(artifact.parent_path());
  KGATE_RETURN_IF_ERROR(write_file_atomic(artifact, raw->cubin));
  outcome.ok = true;
  Program& program = outcome.program;
  program.backend = "cuda";
  program.entry = raw->entry_symbol.empty() ? in.entry : raw->entry_symbol;
  program.artifact = artifact;
  program.cache_key = key;
  program.tunables = defines;
  // ptxas's log first (it alone states spills beside a stack frame), the
  // cubin for what the log lacks: NVRTC does not always return the log.
  program.resources = fill_unknown(parse_ptxas_report(raw->log, program.entry),
                                   read_cubin_resources(raw->cubin, program.entry));
  program.log = raw->log;
  program.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cache_.store(program);
  return outcome;
}

}  // namespace kgate::cuda
