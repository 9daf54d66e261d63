#pragma once
// Finds the entry's symbol in a module nvcc compiled (NVRTC answers this
// itself through name expressions). A template-id is instantiated by a probe
// appended to the source: an explicit instantiation of a tiny kernel whose
// template argument is the entry's address. Its mangled name embeds the
// entry's, and the demangled forms of the probe's argument and of the entry
// are the same text, written by the same compiler: no guessing how it prints
// "256u" or "unsigned int".
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kgate::cuda {

// The lines appended to the source for a template-id entry ("" for a plain
// name: nvcc emits every non-template kernel). They start with
// `#line 1 "kgate-entry"`, which names them in diagnostics. Entry `index`
// of one module gets a probe of its own name.
std::string nvcc_entry_probe(const std::string& entry, size_t index = 0);

// The entry functions ptxas compiled, in order, from its -v log.
std::vector<std::string> ptxas_entry_functions(std::string_view log);

// `entry`'s symbol among the log's entry functions (a template-id: through
// the probe of `index`); an error says why none (or more than one) matches.
Result<std::string> find_entry_symbol(std::string_view ptxas_log, const std::string& entry,
                                      size_t index = 0);

}  // namespace kgate::cuda
