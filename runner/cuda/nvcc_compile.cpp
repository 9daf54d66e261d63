// nvcc: a separate program, slower than NVRTC but the compiler most kernel
// repositories build with; chosen by "compile": {"compiler": "nvcc"}.
#include "core/file_util.h"
#include "core/subprocess.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/entry_symbol.h"
#include "runner/cuda/raw_compile.h"

namespace kgate::cuda {

Result<RawCompileOutput> compile_with_nvcc(const RawCompileInput& in,
                                           const std::filesystem::path& work) {
  auto nvcc = nvcc_path();
  if (!nvcc.ok()) return nvcc.error();
  std::filesystem::create_directories(work);
  // Keep the repository's file name so diagnostics name it.
  std::filesystem::path source = work / std::filesystem::path(in.display_name).filename();
  if (source.extension() != ".cu") source += ".cu";
  std::vector<std::string> entries = in.more_entries;
  entries.insert(entries.begin(), in.entry);
  std::string probes;
  for (size_t e = 0; e < entries.size(); ++e) probes += nvcc_entry_probe(entries[e], e);
  KGATE_RETURN_IF_ERROR(write_file_atomic(source, in.source + probes));
  std::filesystem::path cubin = work / "out.cubin";
  std::vector<std::string> argv = {*nvcc,        "-cubin",  "-arch=" + in.arch,
                                   "-std=c++17", "-Xptxas", "-v"};
  for (const auto& dir : in.include_dirs) argv.push_back("-I" + dir.string());
  for (const auto& d : in.defines) argv.push_back("-D" + d);
  for (const auto& f : in.flags) argv.push_back(f);
  if (in.line_info) argv.push_back("-lineinfo");
  argv.insert(argv.end(), {source.string(), "-o", cubin.string()});
  auto run = run_command(argv, {.timeout_s = 300});
  if (!run.ok()) return run.error();
  RawCompileOutput out;
  out.log = run->err + run->out;
  // nvcc names the copied file; point diagnostics back at the repository's.
  for (size_t p; (p = out.log.find(source.string())) != std::string::npos;)
    out.log.replace(p, source.string().size(), in.display_name);
  if (!run->succeeded()) {
    if (run->timed_out) out.log += "\nkgate: nvcc timed out after 300 s";
    return out;
  }
  for (size_t e = 0; e < entries.size(); ++e) {
    if (entries[e].empty()) continue;
    auto symbol = find_entry_symbol(out.log, entries[e], e);
    if (!symbol.ok()) {
      // A diagnostic like the compiler's, on the lines that name the entry.
      out.log += "\nkgate-entry(1): error: " + symbol.error().message + "\n";
      return out;
    }
    (e == 0 ? out.entry_symbol : out.more_symbols.emplace_back()) = *symbol;
  }
  auto bytes = read_file(cubin);
  if (!bytes.ok()) return bytes.error();
  out.cubin = *bytes;
  out.ok = true;
  return out;
}

}  // namespace kgate::cuda
