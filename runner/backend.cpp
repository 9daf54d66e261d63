#include "runner/backend.h"

#include "runner/cuda/cuda_backend.h"
#include "runner/host/host_backend.h"

namespace kgate {

Result<std::unique_ptr<Backend>> make_backend(const std::string& name) {
  if (name == "host") return make_host_backend();
  if (name == "cuda") return make_cuda_backend();
  return Error::bad_input("unknown backend '" + name + "' (expected host or cuda)");
}

std::string default_backend_name() {
  auto cuda = make_cuda_backend();
  return cuda->available().ok() ? "cuda" : "host";
}

}  // namespace kgate
