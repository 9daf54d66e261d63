#pragma once
// The generated C++ that lets kgate call a host function of any signature:
// kgate_call(void** args) unpacks each argument slot into the parameter type
// the function declares, after static checks that the function's parameters
// match the manifest's argument list (count, and size of each element).
#include <string>

#include "core/manifest.h"

namespace kgate {

enum class TrampolineFor { kKernel, kReference };

// Source text that includes `source_path` (under `display_path` for messages)
// and defines extern "C" void kgate_call(void**). For the reference, output
// and inout buffers are double*.
std::string make_trampoline(const Kernel& kernel, const std::string& entry,
                            const std::string& source_path, const std::string& display_path,
                            TrampolineFor purpose);

}  // namespace kgate
