#include "runner/cuda/cuda_backend.h"

#include "core/subprocess.h"
#include "runner/cuda/cuda_driver.h"

namespace kgate {
namespace {

class CudaBackend : public Backend {
 public:
  std::string name() const override { return "cuda"; }

  Status available() override {
    // The probe initializes the driver, which must not happen in a process
    // that forks measuring children: ask a child.
    ChildOutcome child = run_in_child(
        [] {
          Status s = cuda::probe_gpu();
          return s.ok() ? std::string() : s.error().message;
        },
        60);
    if (!child.completed)
      return Error::infrastructure("no GPU found: the driver probe " + child.describe(60));
    if (!child.payload.empty()) return Error::infrastructure(child.payload);
    return {};
  }

  Result<CompileOutcome> compile(const CompileRequest&) override {
    return Error::infrastructure("this build of kgate cannot compile CUDA kernels yet");
  }

  Result<std::unique_ptr<Device>> open_device(int) override {
    return Error::infrastructure("this build of kgate cannot open a CUDA device yet");
  }

  bool needs_device_lock() const override { return true; }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() {
  return std::make_unique<CudaBackend>();
}

}  // namespace kgate
