#include "runner/cuda/entry_symbol.h"

#include "core/entry_name.h"
#include "runner/launch_trace.h"

namespace kgate::cuda {
namespace {

constexpr std::string_view kProbe = "kgate_entry_probe";

// "void kgate_entry_probe<void (*)(float*), &(void f<64>(float*))>()" ->
// "void f<64>(float*)": the text inside the last "&( ... )" before ">()".
std::string probe_target(const std::string& demangled) {
  size_t end = demangled.rfind(")>()");
  if (end == std::string::npos) return "";
  int depth = 0;
  for (size_t i = end + 1; i-- > 0;) {
    if (demangled[i] == ')') ++depth;
    if (demangled[i] == '(' && --depth == 0)
      return i > 0 && demangled[i - 1] == '&' ? demangled.substr(i + 1, end - i - 1) : "";
  }
  return "";
}

// "void lib::f<64>(float*)" -> "lib::f<64>"; "plain_c(float*)" -> "plain_c":
// the function's name without return type and parameters ("(anonymous
// namespace)::f" keeps its space).
std::string function_name(const std::string& demangled) {
  size_t open = demangled.rfind('(');
  // The parameter list is the last balanced (...) group.
  if (!demangled.empty() && demangled.back() == ')') {
    int depth = 0;
    for (size_t i = demangled.size(); i-- > 0;) {
      if (demangled[i] == ')') ++depth;
      if (demangled[i] == '(' && --depth == 0) {
        open = i;
        break;
      }
    }
  }
  std::string head = demangled.substr(0, open == std::string::npos ? demangled.size() : open);
  // The return type ends at the last space outside template brackets.
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<' || head[i] == '(') ++depth;
    if (head[i] == '>' || head[i] == ')') --depth;
    if (head[i] == ' ' && depth == 0) start = i + 1;
  }
  return head.substr(start);
}

}  // namespace

// The probe of entry `index`: kgate_entry_probe, kgate_entry_probe1, ...
std::string probe_name(size_t index) {
  return std::string(kProbe) + (index == 0 ? "" : std::to_string(index));
}

std::string nvcc_entry_probe(const std::string& entry, size_t index) {
  auto name = EntryName::parse(entry);
  if (!name.ok() || !name->is_template()) return "";
  const std::string probe = probe_name(index);
  return "\n#line 1 \"kgate-entry\"\n"
         "template <class KgateF, KgateF kgate_f> __global__ void " +
         probe +
         "() {}\n"
         "template __global__ void " +
         probe + "<decltype(&" + entry + "), &" + entry + " >();\n";
}

std::vector<std::string> ptxas_entry_functions(std::string_view log) {
  std::vector<std::string> out;
  constexpr std::string_view marker = "Compiling entry function '";
  for (size_t at = log.find(marker); at != std::string_view::npos; at = log.find(marker, at + 1)) {
    size_t begin = at + marker.size();
    size_t end = log.find('\'', begin);
    if (end == std::string_view::npos) break;
    out.emplace_back(log.substr(begin, end - begin));
  }
  return out;
}

Result<std::string> find_entry_symbol(std::string_view ptxas_log, const std::string& entry,
                                      size_t index) {
  auto parsed = EntryName::parse(entry);
  if (!parsed.ok()) return parsed.error();
  std::vector<std::string> kernels, probes;
  for (const std::string& s : ptxas_entry_functions(ptxas_log)) {
    const std::string plain = demangle(s);
    if (plain.find(std::string(kProbe)) == std::string::npos)
      kernels.push_back(s);
    else if (plain.find(probe_name(index) + "<") != std::string::npos)
      probes.push_back(s);
  }
  std::string list;
  for (const std::string& k : kernels) list += (list.empty() ? "" : ", ") + demangle(k);
  if (list.empty()) list = "none";

  if (parsed->is_template()) {
    if (probes.size() != 1)
      return Error::bad_input("nvcc did not instantiate " + entry +
                              " (kernels in the module: " + list + ")");
    std::string target = probe_target(demangle(probes.front()));
    for (const std::string& k : kernels)
      if (demangle(k) == target) return k;
    return Error::bad_input("nvcc compiled " + target + " but the module has no such kernel (" +
                            list + ")");
  }
  // A plain name: an extern "C" kernel is its own symbol; a C++ one is
  // found by its demangled name, and must not be overloaded.
  std::string want = parsed->name();
  std::vector<std::string> matches;
  for (const std::string& k : kernels) {
    if (k == want) return k;
    std::string name = function_name(demangle(k));
    if (name == want) matches.push_back(k);
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty())
    return Error::bad_input("the module has no kernel named " + want + " (kernels in it: " + list +
                            ")");
  std::string overloads;
  for (const std::string& m : matches) overloads += (overloads.empty() ? "" : "; ") + demangle(m);
  return Error::bad_input(want + " names several kernels (" + overloads +
                          "): name one by a template-id or give them different names");
}

}  // namespace kgate::cuda
