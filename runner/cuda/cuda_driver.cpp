#include "runner/cuda/cuda_driver.h"

#include <dlfcn.h>

namespace kgate::cuda {
namespace {

Result<DriverApi> load() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!handle)
    return Error::infrastructure(
        std::string("no GPU found: the NVIDIA driver (libcuda.so.1) is not installed "
                    "or not on the library path (") +
        dlerror() + ")");
  DriverApi api;
  bool ok = true;
  auto get = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    ok &= fn != nullptr;
  };
  get(api.cuInit, "cuInit");
  get(api.cuDriverGetVersion, "cuDriverGetVersion");
  get(api.cuDeviceGetCount, "cuDeviceGetCount");
  get(api.cuDeviceGet, "cuDeviceGet");
  get(api.cuDeviceGetName, "cuDeviceGetName");
  get(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  get(api.cuGetErrorString, "cuGetErrorString");
  get(api.cuGetErrorName, "cuGetErrorName");
  get(api.cuGetProcAddress, "cuGetProcAddress_v2");
  if (!ok)
    return Error::infrastructure(
        "no GPU found: libcuda.so.1 lacks driver entry points (driver too old?)");
  return api;
}

}  // namespace

Result<const DriverApi*> driver() {
  static Result<DriverApi> loaded = load();
  if (!loaded.ok()) return loaded.error();
  return &loaded.value();
}

std::string describe(CUresult result) {
  auto api = driver();
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.ok()) {
    (*api)->cuGetErrorName(result, &name);
    (*api)->cuGetErrorString(result, &text);
  }
  return std::string(name ? name : "CUDA error " + std::to_string(result)) +
         (text ? std::string(": ") + text : "");
}

Result<void*> resolve(const char* symbol) {
  auto api = driver();
  if (!api.ok()) return api.error();
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  CUresult r =
      (*api)->cuGetProcAddress(symbol, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);
  if (r != CUDA_SUCCESS || !fn)
    return Error::infrastructure(std::string("the CUDA driver has no ") + symbol + " (" +
                                 describe(r) + ")");
  return fn;
}

Status probe_gpu() {
  auto api = driver();
  if (!api.ok()) return api.error();
  CUresult r = (*api)->cuInit(0);
  if (r != CUDA_SUCCESS)
    return Error::infrastructure("no GPU found: cuInit failed (" + describe(r) + ")");
  int count = 0;
  r = (*api)->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0)
    return Error::infrastructure(
        "no GPU found: the driver sees no CUDA device (check CUDA_VISIBLE_DEVICES)");
  return {};
}

}  // namespace kgate::cuda
