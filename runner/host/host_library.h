#pragma once
// A loaded host shared object with its generated kgate_call entry.
#include <filesystem>
#include <memory>

#include "core/status.h"

namespace kgate {

class HostLibrary {
 public:
  using Call = void (*)(void**);
  static Result<std::unique_ptr<HostLibrary>> open(const std::filesystem::path& path);
  ~HostLibrary();
  HostLibrary(const HostLibrary&) = delete;
  HostLibrary& operator=(const HostLibrary&) = delete;

  void call(void** args) const { call_(args); }

 private:
  HostLibrary(void* handle, Call call) : handle_(handle), call_(call) {}
  void* handle_;
  Call call_;
};

}  // namespace kgate
