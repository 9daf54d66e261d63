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
#include "runner/cuda/nvrtc_options.h"
#include "runner/cuda/nvrtc_prelude.h"
#include "runner/cuda/parameter_check.h"
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

namespace {

// What a compile of one module is built from, before its entries.
struct ModuleInput {
  RawCompileInput in;
  std::string compiler, version;
  std::vector<std::string> notes;
};

// The key of `in` compiled for `entries`: everything that shapes the cubin.
std::string module_key(const ModuleInput& m, const std::vector<std::string>& entries) {
  std::string material = "cuda\n" + m.version + "\n" + m.in.arch + "\n";
  for (const std::string& e : entries) material += e + "\n";
  for (const auto& d : m.in.defines) material += "-D" + d + "\n";
  for (const auto& f : m.in.flags) material += f + "\n";
  material += m.in.line_info ? "lineinfo\n" : "\n";
  material += m.in.source + "\n" + headers_fingerprint(m.in.include_dirs);
  return sha256_hex(material);
}

// The -D macros of `tunables` for `entry`: every tunable but those its
// template arguments name (as a macro it would rewrite the template's own
// parameter of the same name: template <int BM> with -DBM=64).
std::vector<std::string> macro_defines(const EntryName& entry, const Variables& tunables) {
  std::set<std::string> in_arguments = entry.argument_names();
  std::vector<std::string> out;
  for (const auto& [k, v] : tunables)
    if (!in_arguments.count(k)) out.push_back(k + "=" + std::to_string(v));
  return out;
}

// The other entries of the file that one compile can serve: the
// implementation's siblings whose macros are these.
std::vector<std::string> module_siblings(const Implementation& impl, const std::string& entry,
                                         const std::vector<std::string>& defines) {
  std::vector<std::string> out;
  for (const Implementation::Sibling& sibling : impl.siblings) {
    auto name = EntryName::parse(sibling.entry);
    if (!name.ok()) continue;
    if (macro_defines(*name, sibling.tunables) != defines) continue;
    std::string instantiated = name->instantiate(sibling.tunables);
    if (instantiated != entry && std::find(out.begin(), out.end(), instantiated) == out.end())
      out.push_back(instantiated);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A compiled kernel whose parameters are not what kgate will pass fails
// here, before it runs on bytes it does not expect (parameter_check.h).
CompileOutcome checked_parameters(CompileOutcome outcome, const CompileRequest& request) {
  if (!outcome.ok || !request.kernel) return outcome;
  const bool reference =
      request.kernel->reference.cuda && request.impl == &*request.kernel->reference.cuda;
  std::vector<const Arg*> declared;
  if (reference)
    declared = request.kernel->leaves();
  else
    for (const Arg& a : request.kernel->args)
      if (!a.reference_only) declared.push_back(&a);
  std::string why = parameter_mismatch(outcome.program.param_sizes, declared, request.impl->entry,
                                       request.kernel->json_path + ".args");
  if (why.empty()) return outcome;
  outcome.ok = false;
  // Line 1: an annotation needs a line to land on (the JSON path is in the message).
  outcome.diagnostics.push_back({"kgate.json", 1, 0, "error", why});
  outcome.log += "\nkgate.json: error: " + why + "\n";
  return outcome;
}

}  // namespace

Result<CompileOutcome> CudaCompiler::compile(const CompileRequest& request,
                                             const std::string& arch) {
  auto outcome = compile_unchecked(request, arch);
  if (!outcome.ok()) return outcome;
  return checked_parameters(std::move(outcome.value()), request);
}

Result<CompileOutcome> CudaCompiler::compile_unchecked(const CompileRequest& request,
                                                       const std::string& arch) {
  const Implementation& impl = *request.impl;
  std::vector<std::string> flags = impl.compile.flags;
  flags.insert(flags.end(), request.extra_flags.begin(), request.extra_flags.end());
  KGATE_RETURN_IF_ERROR(check_numerics_flags(flags, impl.compile.allow_fast_math));
  ModuleInput m;
  m.compiler = impl.compile.compiler.empty() ? "nvrtc" : impl.compile.compiler;
  if (m.compiler != "nvrtc" && m.compiler != "nvcc")
    return Error::bad_input(impl.json_path + ".compile.compiler: '" + m.compiler +
                            "' is not a CUDA compiler (expected nvrtc or nvcc)");

  RawCompileInput& in = m.in;
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
  // The source's folder first, then the manifest's include folders, each
  // once (a library's include list often names the source's own folder).
  std::set<std::string> seen;
  auto add_include = [&](const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::path normal = std::filesystem::weakly_canonical(dir, ec);
    if (ec) normal = dir.lexically_normal();
    if (seen.insert(normal.string()).second) in.include_dirs.push_back(dir);
  };
  add_include(source_path.parent_path());
  for (const auto& inc : impl.compile.include) add_include(request.root / inc);
  Variables defines = impl.default_tunables();
  for (const auto& [k, v] : request.tunables) defines[k] = v;
  auto entry = EntryName::parse(impl.entry);
  if (!entry.ok()) return entry.error().with_context(impl.json_path + ".entry");
  in.entry = entry->instantiate(defines);
  in.defines = macro_defines(*entry, defines);
  in.flags = flags;
  in.line_info = request.line_info;
  if (m.compiler == "nvrtc") m.notes = translate_for_nvrtc(flags).notes;

  m.version = m.compiler == "nvrtc" ? nvrtc_version() : "nvcc";
  if (m.compiler == "nvcc") {
    auto nvcc = nvcc_path();
    if (!nvcc.ok()) return nvcc.error();
    // The path stands for the installed toolkit (its version is nvrtc's).
    m.version = "nvcc " + *nvcc + " " + nvrtc_version();
  }
  if (m.compiler == "nvrtc") m.version += "\n" + nvrtc_headers_fingerprint();
  const std::string key = module_key(m, {in.entry});

  if (auto hit = cache_.lookup(key, ".cubin")) {
    CompileOutcome outcome;
    outcome.ok = true;
    outcome.program = *hit;
    outcome.program.tunables = defines;
    outcome.log = hit->log;
    return outcome;
  }

  // One compile of the file for every entry it serves (a candidate's text
  // serves only itself); each entry's program is kept under its own key. A
  // group that does not compile is compiled again for this entry alone, so
  // the diagnostics are this entry's.
  const std::vector<std::string> siblings = request.source_text
                                                ? std::vector<std::string>{}
                                                : module_siblings(impl, in.entry, in.defines);
  if (!siblings.empty()) {
    RawCompileInput group = in;
    group.more_entries = siblings;
    std::vector<std::string> all = siblings;
    all.insert(all.begin(), in.entry);
    auto start = std::chrono::steady_clock::now();
    std::filesystem::path work = cache_.dir() / "work" / module_key(m, all);
    auto raw = m.compiler == "nvrtc" ? compile_with_nvrtc(group) : compile_with_nvcc(group, work);
    std::error_code ec;
    std::filesystem::remove_all(work, ec);
    if (!raw.ok()) return raw.error();
    if (raw->ok && raw->more_symbols.size() == siblings.size()) {
      const std::string module = module_key(m, all);
      std::filesystem::path artifact = cache_.artifact_path(module, ".cubin");
      std::filesystem::create_directories(artifact.parent_path());
      KGATE_RETURN_IF_ERROR(write_file_atomic(artifact, raw->cubin));
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      CompileOutcome outcome;
      for (size_t e = 0; e < all.size(); ++e) {
        Program program;
        program.backend = "cuda";
        program.entry = e == 0 ? raw->entry_symbol : raw->more_symbols[e - 1];
        if (program.entry.empty()) program.entry = all[e];
        program.artifact = artifact;
        program.cache_key = module_key(m, {all[e]});
        program.tunables = defines;
        program.resources = fill_unknown(parse_ptxas_report(raw->log, program.entry),
                                         read_cubin_resources(raw->cubin, program.entry));
        program.param_sizes = read_cubin_param_sizes(raw->cubin, program.entry);
        program.notes = m.notes;
        // One compile for all of them: said in the log, not as a note on every report.
        program.log = raw->log + "\nkgate: compiled once with " + std::to_string(all.size() - 1) +
                      " other kernel" + (all.size() == 2 ? "" : "s") + " of " + impl.source + "\n";
        program.compile_seconds = seconds;
        cache_.store(program, module);
        if (e == 0) {
          outcome.ok = true;
          outcome.program = program;
          outcome.log = raw->log;
          outcome.diagnostics = parse_compile_diagnostics(raw->log);
        }
      }
      return outcome;
    }
  }

  auto start = std::chrono::steady_clock::now();
  std::filesystem::path work = cache_.dir() / "work" / key;
  auto raw = m.compiler == "nvrtc" ? compile_with_nvrtc(in) : compile_with_nvcc(in, work);
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  if (!raw.ok()) return raw.error();

  CompileOutcome outcome;
  outcome.log = raw->log;
  for (const std::string& note : m.notes) outcome.log += "\nkgate: " + note;
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
  program.param_sizes = read_cubin_param_sizes(raw->cubin, program.entry);
  program.log = raw->log;
  program.notes = m.notes;
  program.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cache_.store(program);
  return outcome;
}

}  // namespace kgate::cuda
