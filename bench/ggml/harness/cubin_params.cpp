#include "cubin_params.h"

#include <cstdint>
#include <cstring>

namespace ggml_harness {
namespace {

template <class T>
bool read_at(const std::string& image, uint64_t at, T& out) {
  if (at + sizeof(T) > image.size()) return false;
  std::memcpy(&out, image.data() + at, sizeof(T));
  return true;
}

}  // namespace

std::vector<size_t> cubin_param_sizes(const std::string& image, const std::string& symbol) {
  // ELF64: section headers at e_shoff, e_shnum of them, names in section e_shstrndx.
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (image.compare(0, 4,
                    "\x7f"
                    "ELF") != 0 ||
      !read_at(image, 0x28, shoff) || !read_at(image, 0x3a, shentsize) ||
      !read_at(image, 0x3c, shnum) || !read_at(image, 0x3e, shstrndx) || shstrndx >= shnum)
    return {};
  auto header = [&](uint16_t i, uint32_t& name, uint64_t& offset, uint64_t& size) {
    const uint64_t at = shoff + uint64_t{i} * shentsize;
    return read_at(image, at, name) && read_at(image, at + 0x18, offset) &&
           read_at(image, at + 0x20, size);
  };
  uint32_t name = 0;
  uint64_t names = 0, names_size = 0;
  if (!header(shstrndx, name, names, names_size)) return {};
  const std::string wanted = ".nv.info." + symbol;
  std::vector<size_t> sizes;
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t offset = 0, size = 0;
    if (!header(i, name, offset, size) || name >= names_size) continue;
    if (std::strncmp(image.c_str() + names + name, wanted.c_str(), wanted.size() + 1) != 0)
      continue;
    // Records: format (0x04: a sized value), attribute, u16 size, then the value;
    // EIATTR_KPARAM_INFO (0x17) holds index u32, ordinal u16, offset u16, flags u32
    // with the size in bits 18-31.
    for (uint64_t at = offset; at + 4 <= offset + size;) {
      uint8_t format = 0, attribute = 0;
      uint16_t length = 0;
      read_at(image, at, format), read_at(image, at + 1, attribute), read_at(image, at + 2, length);
      if (format != 0x04) {
        at += 4;
        continue;
      }
      if (attribute == 0x17 && length == 12) {
        uint16_t ordinal = 0;
        uint32_t flags = 0;
        read_at(image, at + 8, ordinal), read_at(image, at + 12, flags);
        if (sizes.size() <= ordinal) sizes.resize(ordinal + 1, 0);
        sizes[ordinal] = (flags >> 18) & 0x3fff;
      }
      at += 4 + uint64_t{length};
    }
  }
  return sizes;
}

}  // namespace ggml_harness
