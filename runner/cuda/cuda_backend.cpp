#include "runner/cuda/cuda_backend.h"

#include <cstdlib>

#include "runner/cuda/cuda_compiler.h"
#include "runner/cuda/cuda_device.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/gpu_inventory.h"

namespace kgate::cuda {
namespace {

// Invariant: nothing here initializes CUDA in this process (the parent, which
// forks measuring children); the driver is touched only in open_device,
// which runs in the child, and in the inventory's own child.
class CudaBackend : public Backend {
 public:
  explicit CudaBackend(std::string arch) : arch_(std::move(arch)) {}
  std::string name() const override { return "cuda"; }

  Status available() override {
    auto inventory = gpu_inventory();
    if (inventory.ok()) return {};
    // KGATE_CUDA_ARCH compiles without a GPU; running (kgate run, gate) needs one.
    std::string why = inventory.error().message;
    if (const char* arch = std::getenv("KGATE_CUDA_ARCH"); arch && *arch)
      why += "; KGATE_CUDA_ARCH=" + std::string(arch) +
             " lets kgate compile CUDA kernels without a GPU, but running and timing them needs "
             "one: `kgate check --arch " +
             arch + "` compiles every kernel without running it";
    else
      why += "; `kgate check --arch sm_90` compiles the CUDA kernels without a GPU";
    return Error{inventory.error().kind, why};
  }

  Result<CompileOutcome> compile(const CompileRequest& request) override {
    // Compiles for GPU 0's architecture unless told otherwise; kgate run
    // measures on one GPU model per host.
    auto arch = target_arch(0, arch_);
    if (!arch.ok()) return arch.error();
    return compiler_.compile(request, *arch);
  }

  Result<std::unique_ptr<Device>> open_device(int gpu_index) override {
    auto device = CudaDevice::open(gpu_index);
    if (!device.ok()) return device.error();
    return std::unique_ptr<Device>(std::move(device.value()));
  }

  bool needs_device_lock() const override { return true; }
  // The step of the GPU timestamps the samples come from (%globaltimer ticks in 32 ns steps).
  double timer_floor_s() const override { return 32e-9; }

  Result<std::string> device_lock_name(int gpu_index) override {
    auto inventory = gpu_inventory();
    if (!inventory.ok()) return inventory.error();
    if (gpu_index < 0 || gpu_index >= static_cast<int>(inventory->gpus.size()))
      return Error::bad_input("there is no GPU " + std::to_string(gpu_index) + " (" +
                              std::to_string(inventory->gpus.size()) + " visible)");
    return inventory->gpus[gpu_index].pci_bus_id;
  }

 private:
  std::string arch_;
  CudaCompiler compiler_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const std::string& arch) {
  return std::make_unique<CudaBackend>(arch);
}

}  // namespace kgate::cuda
