#include "runner/host/host_library.h"

#include <dlfcn.h>

namespace kgate {

Result<std::unique_ptr<HostLibrary>> HostLibrary::open(const std::filesystem::path& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return Error::infrastructure(std::string("cannot load ") + path.string() + ": " + dlerror());
  auto call = reinterpret_cast<Call>(dlsym(handle, "kgate_call"));
  if (!call) {
    dlclose(handle);
    return Error::infrastructure(path.string() + " has no kgate_call entry (not built by kgate?)");
  }
  return std::unique_ptr<HostLibrary>(new HostLibrary(handle, call));
}

HostLibrary::~HostLibrary() {
  dlclose(handle_);
}

}  // namespace kgate
