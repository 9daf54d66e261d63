#include "runner/cuda/driver_calls.h"

#include <string>

#include "runner/cuda/cuda_driver.h"

namespace kgate::cuda {
namespace {

Result<Calls> load_calls() {
  Calls c;
  // #name stringizes the base name before cuda.h's versioning macros apply,
  // which is what cuGetProcAddress expects.
#define KGATE_CUDA_RESOLVE(name)                       \
  {                                                    \
    auto fn = resolve(#name);                          \
    if (!fn.ok()) return fn.error();                   \
    c.name = reinterpret_cast<decltype(&::name)>(*fn); \
  }
  KGATE_CUDA_CALLS(KGATE_CUDA_RESOLVE)
#undef KGATE_CUDA_RESOLVE
  return c;
}

}  // namespace

Result<const Calls*> calls() {
  static Result<Calls> loaded = load_calls();
  if (!loaded.ok()) return loaded.error();
  return &loaded.value();
}

Status check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return {};
  return Error::infrastructure(std::string(what) + ": " + describe(result));
}

}  // namespace kgate::cuda
