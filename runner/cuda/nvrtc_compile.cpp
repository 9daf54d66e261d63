// NVRTC: needs no driver and no GPU, only the toolkit's headers for
// cuda_fp16.h and friends. It runs in a forked child: NVRTC 13 loads
// libcuda and calls cuInit while compiling where a driver is installed, and a
// process whose driver is initialized cannot hand CUDA to the measuring
// children it forks later (their cuInit fails with "initialization error").
#include <nvrtc.h>

#include <cstring>
#include <filesystem>

#include "core/subprocess.h"

#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/nvrtc_options.h"
#include "runner/cuda/nvrtc_prelude.h"
#include "runner/cuda/raw_compile.h"

namespace kgate::cuda {
namespace {

std::string nvrtc_error(nvrtcResult r, const char* what) {
  return std::string(what) + " failed: " + nvrtcGetErrorString(r);
}

}  // namespace

namespace {

Result<RawCompileOutput> compile_here(const RawCompileInput& in) {
  auto toolkit = toolkit_include_dir();
  if (!toolkit.ok()) return toolkit.error();
  std::vector<std::string> options = {"--gpu-architecture=" + in.arch, "-std=c++17",
                                      "--ptxas-options=-v", "-I" + toolkit->string(),
                                      std::string("--pre-include=") + kNvrtcPreludeName};
  // CUDA 13 keeps libcu++, CUB and Thrust in include/cccl, which nvcc adds by itself and NVRTC
  // does not: cooperative_groups.h (thread-block clusters) needs <cuda/std/...> from there.
  if (std::error_code ec; std::filesystem::is_directory(*toolkit / "cccl", ec))
    options.push_back("-I" + (*toolkit / "cccl").string());
  for (const auto& dir : in.include_dirs) options.push_back("-I" + dir.string());
  for (const auto& d : in.defines) options.push_back("-D" + d);
  // nvcc's flags in NVRTC's spelling, or dropped (nvrtc_options.h); the
  // notes reach the compile's Program (cuda_compiler.cpp).
  for (const auto& f : translate_for_nvrtc(in.flags).options) options.push_back(f);
  if (in.line_info) options.push_back("-lineinfo");
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());

  std::vector<const char*> header_texts, header_names;
  for (const InMemoryHeader& h : nvrtc_headers()) {
    header_texts.push_back(h.text.c_str());
    header_names.push_back(h.name.c_str());
  }

  nvrtcProgram program;
  nvrtcResult r = nvrtcCreateProgram(&program, in.source.c_str(), in.display_name.c_str(),
                                     static_cast<int>(header_texts.size()), header_texts.data(),
                                     header_names.data());
  if (r != NVRTC_SUCCESS) return Error::infrastructure(nvrtc_error(r, "nvrtcCreateProgram"));
  // The name expression instantiates a template-id and gives the entry's
  // lowered (mangled) name, whatever its linkage.
  std::vector<std::string> entries = in.more_entries;
  if (!in.entry.empty()) entries.insert(entries.begin(), in.entry);
  for (const std::string& entry : entries) {
    r = nvrtcAddNameExpression(program, entry.c_str());
    if (r != NVRTC_SUCCESS) {
      nvrtcDestroyProgram(&program);
      return Error::infrastructure(nvrtc_error(r, "nvrtcAddNameExpression"));
    }
  }
  RawCompileOutput out;
  nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    nvrtcGetProgramLog(program, out.log.data());
    while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
  }
  if (compiled == NVRTC_SUCCESS) {
    size_t size = 0;
    r = nvrtcGetCUBINSize(program, &size);
    if (r == NVRTC_SUCCESS && size > 0) {
      out.cubin.resize(size);
      r = nvrtcGetCUBIN(program, out.cubin.data());
    }
    if (r != NVRTC_SUCCESS || size == 0) {
      nvrtcDestroyProgram(&program);
      return Error::infrastructure(nvrtc_error(r, "nvrtcGetCUBIN") + " (is " + in.arch +
                                   " a real GPU architecture?)");
    }
    for (size_t e = 0; e < entries.size(); ++e) {
      const char* lowered = nullptr;
      r = nvrtcGetLoweredName(program, entries[e].c_str(), &lowered);
      if (r != NVRTC_SUCCESS || !lowered) {
        nvrtcDestroyProgram(&program);
        return Error::infrastructure(nvrtc_error(r, "nvrtcGetLoweredName") + " for " + entries[e]);
      }
      (in.entry.empty() || e > 0 ? out.more_symbols.emplace_back() : out.entry_symbol) = lowered;
    }
    out.ok = true;
  } else if (compiled != NVRTC_ERROR_COMPILATION) {
    // Bad options (an unknown flag) are the manifest's fault: report them as
    // a failed compile with the reason, not as an infrastructure error.
    out.log += "\nnvrtc: " + std::string(nvrtcGetErrorString(compiled)) + " (options:";
    for (const auto& o : options) out.log += " " + o;
    out.log += ")";
  }
  nvrtcDestroyProgram(&program);
  return out;
}

// Payload framing: 'E' + message, or 'R' + ok byte + 8-byte log size + 8-byte
// entry symbols size + log + entry symbols (newline-separated: the entry's,
// then more_entries') + cubin.
std::string encode(const Result<RawCompileOutput>& r) {
  if (!r.ok()) return "E" + r.error().message;
  std::string symbols = r->entry_symbol;
  for (const std::string& s : r->more_symbols) symbols += "\n" + s;
  uint64_t n = r->log.size(), m = symbols.size();
  std::string s = "R";
  s += r->ok ? '1' : '0';
  s.append(reinterpret_cast<const char*>(&n), 8);
  s.append(reinterpret_cast<const char*>(&m), 8);
  return s + r->log + symbols + r->cubin;
}

Result<RawCompileOutput> decode(const std::string& s) {
  if (!s.empty() && s[0] == 'E') return Error::infrastructure(s.substr(1));
  if (s.size() < 18 || s[0] != 'R')
    return Error::infrastructure("the NVRTC child answered nonsense");
  uint64_t n = 0, m = 0;
  std::memcpy(&n, s.data() + 2, 8);
  std::memcpy(&m, s.data() + 10, 8);
  if (s.size() < 18 + n + m) return Error::infrastructure("the NVRTC child's answer was cut short");
  RawCompileOutput out;
  out.ok = s[1] == '1';
  out.log = s.substr(18, n);
  std::string symbols = s.substr(18 + n, m);
  size_t newline = symbols.find('\n');
  out.entry_symbol = symbols.substr(0, newline);
  while (newline != std::string::npos) {
    size_t next = symbols.find('\n', newline + 1);
    out.more_symbols.push_back(
        symbols.substr(newline + 1, next == std::string::npos ? next : next - newline - 1));
    newline = next;
  }
  out.cubin = s.substr(18 + n + m);
  return out;
}

}  // namespace

Result<RawCompileOutput> compile_with_nvrtc(const RawCompileInput& in) {
  ChildOutcome child = run_in_child([&in] { return encode(compile_here(in)); }, 300);
  if (!child.completed)
    return Error::infrastructure("NVRTC " + child.describe(300) +
                                 (child.err_tail.empty() ? "" : ": " + child.err_tail));
  return decode(child.payload);
}

}  // namespace kgate::cuda
