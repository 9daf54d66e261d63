#pragma once
// Turns compiler output (gcc/clang, nvcc and NVRTC styles) into structured
// diagnostics: file, line, kind, message.
#include <string_view>
#include <vector>

#include "runner/program.h"

namespace kgate {

// Recognizes "file:line:col: kind: message" and "file(line): kind: message".
std::vector<CompileDiagnostic> parse_compile_diagnostics(std::string_view log);

}  // namespace kgate
