#pragma once
// Turns compiler output (gcc/clang, nvcc and NVRTC styles) into structured
// diagnostics (file, line, kind, message), and into the digest an agent is
// shown when its candidate does not compile.
#include <string>
#include <string_view>
#include <vector>

#include "runner/program.h"

namespace kgate {

// Recognizes "file:line:col: kind: message" and "file(line): kind: message".
std::vector<CompileDiagnostic> parse_compile_diagnostics(std::string_view log);

// How files are named in a digest.
struct DigestNames {
  // The name the compiler was given for the source: the implementation's
  // file as the manifest names it ("csrc/rmsnorm.cu"); the host backend's
  // copy in its cache work folder (".../work/<key>.<pid>.<n>/source.cpp") is
  // recognized without being named.
  std::string source;
  // What the reader knows the source as ("candidate-20261130T072232Z-it3.cu");
  // empty: the base name of `source`.
  std::string shown_as;
};

// The compile-error digest: the last `max_lines` lines of the compiler's
// output, each error with its context and its notes (gcc's "In function",
// "required from", the code excerpt and caret, nvcc's excerpt), warnings left
// out when there are errors, the source named `names.shown_as`, every other
// absolute path cut to its file name (no cache or machine path reaches the
// reader), and a first line that counts the errors and names the first one,
// which the cut may have dropped.
std::string compile_error_digest(std::string_view log, const DigestNames& names,
                                 size_t max_lines = 50);

// One line of compiler output with its file names rewritten as above.
std::string normalize_compiler_line(const std::string& line, const DigestNames& names);

}  // namespace kgate
