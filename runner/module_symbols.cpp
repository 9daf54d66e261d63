#include "runner/module_symbols.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <set>

#include "core/file_util.h"

namespace kgate {
namespace {

constexpr uint32_t kShtSymtab = 2, kShtDynsym = 11;
constexpr uint8_t kSttFunc = 2;
constexpr uint8_t kStbGlobal = 1;
constexpr uint8_t kStoCudaEntry = 0x10;  // st_other of a kernel in a cubin
constexpr size_t kShdrSize = 64, kSymSize = 24;

// Little-endian reads with bounds checks: a truncated file is an Error, never
// a read past the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : b_(bytes) {}
  bool has(uint64_t offset, uint64_t size) const {
    return offset <= b_.size() && size <= b_.size() - offset;
  }
  template <class T>
  T at(uint64_t offset) const {
    T v{};
    std::memcpy(&v, b_.data() + offset, sizeof v);  // hosts we build for are little-endian
    return v;
  }
  // A NUL-terminated string inside [begin, begin + size).
  std::string string_at(uint64_t begin, uint64_t size, uint64_t offset) const {
    if (offset >= size || !has(begin, size)) return "";
    const char* s = b_.data() + begin + offset;
    return std::string(s, strnlen(s, size - offset));
  }

 private:
  std::string_view b_;
};

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
};

}  // namespace

std::string plain_symbol_name(const std::string& mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !out) {
    std::free(out);
    return mangled;
  }
  std::string d(out);
  std::free(out);
  // The parameter list starts at the first '(' outside template arguments;
  // a return type (templates have one) ends at the last space before it.
  int depth = 0;
  size_t paren = std::string::npos, space = std::string::npos;
  for (size_t i = 0; i < d.size(); ++i) {
    char c = d[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth == 0 && c == ' ') space = i;
    if (depth == 0 && c == '(') {
      paren = i;
      break;
    }
  }
  std::string name = d.substr(0, paren);
  if (space != std::string::npos && space < name.size()) name = name.substr(space + 1);
  return name;
}

bool symbol_matches(const ModuleSymbol& symbol, std::string_view entry) {
  if (entry.empty()) return false;
  if (symbol.name == entry || symbol.plain == entry) return true;
  const size_t lt = symbol.plain.find('<');
  return lt != std::string::npos && std::string_view(symbol.plain).substr(0, lt) == entry;
}

Result<std::vector<ModuleSymbol>> parse_module_symbols(std::string_view elf, ModuleKind kind) {
  Reader r(elf);
  if (!r.has(0, 64) || elf.substr(0, 4) !=
                           "\x7f"
                           "ELF")
    return Error::bad_input("not an ELF file");
  if (elf[4] != 2 || elf[5] != 1) return Error::bad_input("not a 64-bit little-endian ELF file");
  const uint64_t shoff = r.at<uint64_t>(0x28);
  const uint16_t shentsize = r.at<uint16_t>(0x3A);
  const uint16_t shnum = r.at<uint16_t>(0x3C);
  const uint16_t shstrndx = r.at<uint16_t>(0x3E);
  if (shentsize < kShdrSize || !r.has(shoff, uint64_t(shnum) * shentsize))
    return Error::bad_input("truncated ELF section headers");
  std::vector<Section> sections(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + uint64_t(i) * shentsize;
    Section& s = sections[i];
    s.name = r.at<uint32_t>(h);
    s.type = r.at<uint32_t>(h + 4);
    s.offset = r.at<uint64_t>(h + 24);
    s.size = r.at<uint64_t>(h + 32);
    s.link = r.at<uint32_t>(h + 40);
    s.entsize = r.at<uint64_t>(h + 56);
  }
  auto section_name = [&](uint32_t index) -> std::string {
    if (shstrndx >= shnum || index >= shnum) return "";
    const Section& names = sections[shstrndx];
    return r.string_at(names.offset, names.size, sections[index].name);
  };
  const uint32_t wanted = kind == ModuleKind::kCubin ? kShtSymtab : kShtDynsym;
  std::vector<ModuleSymbol> out;
  std::set<std::string> seen;
  bool found = false;
  for (const Section& table : sections) {
    if (table.type != wanted) continue;
    found = true;
    if (table.link >= shnum || !r.has(table.offset, table.size))
      return Error::bad_input("truncated ELF symbol table");
    const Section& strings = sections[table.link];
    const uint64_t entsize = table.entsize >= kSymSize ? table.entsize : kSymSize;
    for (uint64_t off = table.offset; off + kSymSize <= table.offset + table.size; off += entsize) {
      const uint32_t name_index = r.at<uint32_t>(off);
      const uint8_t info = r.at<uint8_t>(off + 4);
      const uint8_t other = r.at<uint8_t>(off + 5);
      const uint16_t shndx = r.at<uint16_t>(off + 6);
      if ((info & 0xf) != kSttFunc || shndx == 0 || shndx >= 0xff00) continue;  // not defined here
      ModuleSymbol sym;
      sym.name = r.string_at(strings.offset, strings.size, name_index);
      if (sym.name.empty() || !seen.insert(sym.name).second) continue;
      const uint8_t binding = info >> 4;
      if (kind == ModuleKind::kCubin) {
        if (section_name(shndx).rfind(".text.", 0) != 0) continue;
        // The probe that kgate's nvcc compile appends to find a template-id
        // entry (runner/cuda/entry_symbol.cpp, `kgate_entry_probe`) is a
        // kernel nobody launches, not one the source defines.
        sym.entry = (other & kStoCudaEntry) != 0 && sym.name.rfind("_Z17kgate_entry_probe", 0) != 0;
      } else {
        sym.entry = binding == kStbGlobal;
      }
      sym.plain = plain_symbol_name(sym.name);
      out.push_back(std::move(sym));
    }
  }
  if (!found)
    return Error::bad_input(std::string("the ELF file has no ") +
                            (kind == ModuleKind::kCubin ? ".symtab" : ".dynsym"));
  return out;
}

Result<std::vector<ModuleSymbol>> read_module_symbols(const std::filesystem::path& artifact,
                                                      std::string_view backend) {
  auto bytes = read_file(artifact);
  if (!bytes.ok()) return bytes.error();
  auto symbols = parse_module_symbols(
      *bytes, backend == "cuda" ? ModuleKind::kCubin : ModuleKind::kSharedLibrary);
  if (!symbols.ok())
    return symbols.error().with_context("reading the symbols of the compiled " +
                                        std::string(backend) + " module");
  return symbols;
}

}  // namespace kgate
