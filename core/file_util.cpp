#include "core/file_util.h"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace kgate {

Result<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::bad_input("cannot read " + path.string() + ": " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Status write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return Error::infrastructure("cannot write " + tmp.string() + ": " + std::strerror(errno));
    out << content;
    if (!out.flush()) return Error::infrastructure("cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec)
    return Error::infrastructure("cannot rename " + tmp.string() + " to " + path.string() + ": " +
                                 ec.message());
  return {};
}

}  // namespace kgate
