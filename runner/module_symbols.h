#pragma once
// The functions a compiled module defines, read from its ELF symbol table
// (no GPU, no tool): a CUDA cubin's `.symtab`, a host shared library's
// `.dynsym`. What a candidate defines is decided here from the compiled
// artifact, not from its text, where a comment or a macro can hide a
// `__global__`.
//
// Invariant: only symbols the module itself defines are listed (never
// undefined imports), each once.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kgate {

struct ModuleSymbol {
  std::string name;   // as in the table (mangled where C++)
  std::string plain;  // demangled, without return type and parameters: "ns::f<3>"
  // cuda: a kernel (an entry point, STO_CUDA_ENTRY); host: a function the
  // library exports with global binding. Device helpers that are not entry
  // points, and weak definitions (inline functions, template instances the
  // standard library brings), are listed with entry = false.
  bool entry = false;
};

// Which table is read and how an entry is recognized.
enum class ModuleKind {
  kCubin,          // STT_FUNC in `.text.*` sections of .symtab; entry: st_other & 0x10
  kSharedLibrary,  // defined STT_FUNC in .dynsym; entry: global binding
};

// Parses an ELF64 little-endian image (cubins and x86-64/AArch64 shared
// libraries). An Error when it is not one or is truncated.
Result<std::vector<ModuleSymbol>> parse_module_symbols(std::string_view elf, ModuleKind kind);

// Reads the artifact of a Program built by `backend` ("cuda": a cubin,
// "host": a shared library).
Result<std::vector<ModuleSymbol>> read_module_symbols(const std::filesystem::path& artifact,
                                                      std::string_view backend);

// "void ns::f<3>(float*)" -> "ns::f<3>"; names that are not mangled C++ are
// returned as they are.
std::string plain_symbol_name(const std::string& mangled);

// Whether `symbol` is the function a manifest names `entry`: the same
// symbol, the same plain name, or the plain name without template arguments.
bool symbol_matches(const ModuleSymbol& symbol, std::string_view entry);

}  // namespace kgate
