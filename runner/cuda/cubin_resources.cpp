#include "runner/cuda/cubin_resources.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace kgate::cuda {
namespace {

constexpr uint8_t kAttributeFormatSized = 4;  // {u8 format, u8 attribute, u16 size, data}
constexpr uint8_t kRegisterCount = 0x2f;
constexpr uint8_t kFrameSize = 0x11;
constexpr uint8_t kParamInfo = 0x17;

// Invariant: every read checks `offset + size` against the whole file.
class ElfView {
 public:
  explicit ElfView(std::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  std::optional<T> read(uint64_t offset) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) return std::nullopt;
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }
  std::optional<std::string_view> c_string(uint64_t offset) const {
    if (offset >= bytes_.size()) return std::nullopt;
    const size_t end = bytes_.find('\0', offset);
    if (end == std::string_view::npos) return std::nullopt;
    return bytes_.substr(offset, end - offset);
  }
  bool holds(uint64_t offset, uint64_t size) const {
    return offset <= bytes_.size() && bytes_.size() - offset >= size;
  }

 private:
  std::string_view bytes_;
};

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entry_size = 0;
};

std::optional<std::vector<Section>> sections_of(const ElfView& elf) {
  // ELF64 little-endian only: what every cubin is.
  if (elf.read<uint32_t>(0) != uint32_t{0x464c457f} || elf.read<uint8_t>(4) != uint8_t{2} ||
      elf.read<uint8_t>(5) != uint8_t{1})
    return std::nullopt;
  auto table = elf.read<uint64_t>(0x28);
  auto entry_size = elf.read<uint16_t>(0x3a);
  auto count = elf.read<uint16_t>(0x3c);
  if (!table || !entry_size || !count || *entry_size < 64) return std::nullopt;
  std::vector<Section> out;
  for (uint16_t i = 0; i < *count; ++i) {
    const uint64_t at = *table + uint64_t{i} * *entry_size;
    auto name = elf.read<uint32_t>(at), type = elf.read<uint32_t>(at + 4);
    auto offset = elf.read<uint64_t>(at + 0x18), size = elf.read<uint64_t>(at + 0x20);
    auto link = elf.read<uint32_t>(at + 0x28);
    auto each = elf.read<uint64_t>(at + 0x38);
    if (!name || !type || !offset || !size || !link || !each) return std::nullopt;
    out.push_back({*name, *type, *link, *offset, *size, *each});
  }
  return out;
}

}  // namespace

ResourceReport read_cubin_resources(std::string_view cubin, const std::string& entry) {
  ResourceReport report;
  ElfView elf(cubin);
  auto sections = sections_of(elf);
  if (!sections) return report;
  auto names_index = elf.read<uint16_t>(0x3e);
  if (!names_index || *names_index >= sections->size()) return report;
  const Section& names = (*sections)[*names_index];
  auto section_name = [&](const Section& s) -> std::string_view {
    if (s.name >= names.size) return {};
    return elf.c_string(names.offset + s.name).value_or(std::string_view{});
  };

  // The entry's index in the symbol table: .nv.info names functions by it.
  std::optional<uint32_t> symbol;
  for (const Section& s : *sections) {
    if (section_name(s) != ".symtab" || s.entry_size < 24 || s.link >= sections->size()) continue;
    const Section& strings = (*sections)[s.link];
    for (uint64_t i = 0; i < s.size / s.entry_size && elf.holds(s.offset, s.size); ++i) {
      auto name = elf.read<uint32_t>(s.offset + i * s.entry_size);
      if (!name || *name >= strings.size) continue;
      if (elf.c_string(strings.offset + *name) == std::string_view(entry)) {
        symbol = static_cast<uint32_t>(i);
        break;
      }
    }
  }
  if (!symbol) return report;

  for (const Section& s : *sections) {
    const std::string_view name = section_name(s);
    if (name != ".nv.info" || !elf.holds(s.offset, s.size)) continue;
    for (uint64_t at = s.offset; at + 4 <= s.offset + s.size;) {
      const uint8_t format = *elf.read<uint8_t>(at), attribute = *elf.read<uint8_t>(at + 1);
      if (format != kAttributeFormatSized) {
        at += 4;  // formats 1-3 carry their value in the record's 4 bytes
        continue;
      }
      const uint16_t size = *elf.read<uint16_t>(at + 2);
      if (size == 8 && elf.holds(at + 4, 8) && *elf.read<uint32_t>(at + 4) == *symbol) {
        const int value = static_cast<int>(*elf.read<uint32_t>(at + 8));
        if (attribute == kRegisterCount) report.registers = value;
        if (attribute == kFrameSize) report.stack_bytes = value;
      }
      at += 4 + uint64_t{size};
    }
  }
  if (report.stack_bytes == 0) report.spill_store_bytes = report.spill_load_bytes = 0;
  return report;
}

std::vector<size_t> read_cubin_param_sizes(std::string_view cubin, const std::string& entry) {
  ElfView elf(cubin);
  auto sections = sections_of(elf);
  if (!sections) return {};
  auto names_index = elf.read<uint16_t>(0x3e);
  if (!names_index || *names_index >= sections->size()) return {};
  const Section& names = (*sections)[*names_index];
  const std::string wanted = ".nv.info." + entry;
  std::vector<size_t> sizes;
  for (const Section& s : *sections) {
    if (s.name >= names.size || elf.c_string(names.offset + s.name) != std::string_view(wanted) ||
        !elf.holds(s.offset, s.size))
      continue;
    for (uint64_t at = s.offset; at + 4 <= s.offset + s.size;) {
      const uint8_t format = *elf.read<uint8_t>(at), attribute = *elf.read<uint8_t>(at + 1);
      if (format != kAttributeFormatSized) {
        at += 4;
        continue;
      }
      const uint16_t size = *elf.read<uint16_t>(at + 2);
      if (attribute == kParamInfo && size == 12 && elf.holds(at + 4, 12)) {
        const uint16_t ordinal = *elf.read<uint16_t>(at + 8);
        const uint32_t flags = *elf.read<uint32_t>(at + 12);
        if (ordinal < 4096) {
          if (sizes.size() <= ordinal) sizes.resize(ordinal + 1, 0);
          sizes[ordinal] = (flags >> 18) & 0x3fff;
        }
      }
      at += 4 + uint64_t{size};
    }
  }
  // A record missing in between: the cubin does not say, rather than a guess.
  for (size_t v : sizes)
    if (v == 0) return {};
  return sizes;
}

ResourceReport fill_unknown(ResourceReport report, const ResourceReport& fallback) {
  auto fill = [](int& field, int other) {
    if (field < 0) field = other;
  };
  fill(report.registers, fallback.registers);
  fill(report.spill_store_bytes, fallback.spill_store_bytes);
  fill(report.spill_load_bytes, fallback.spill_load_bytes);
  fill(report.shared_bytes, fallback.shared_bytes);
  fill(report.stack_bytes, fallback.stack_bytes);
  fill(report.local_bytes, fallback.local_bytes);
  fill(report.max_threads_per_block, fallback.max_threads_per_block);
  return report;
}

}  // namespace kgate::cuda
