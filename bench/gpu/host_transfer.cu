// What a download from the GPU costs depending on the host memory it lands
// in: fresh pages (faulted in by the driver's one copying thread), pages
// touched first on 16 threads, transparent huge pages, pinned memory, and
// memory registered after touching. Behind CudaDevice::download's prefault
// (runner/cuda/cuda_device.cpp); numbers in docs/BENCHMARKS.md. Build and run:
//   nvcc -O2 -o host_transfer bench/gpu/host_transfer.cu -lcuda \
//        -L/usr/local/cuda/lib64/stubs && ./host_transfer
#include <cuda.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
using clk = std::chrono::steady_clock;
static double since(clk::time_point t) {
  return std::chrono::duration<double>(clk::now() - t).count();
}
#define CK(x)                          \
  do {                                 \
    CUresult r = (x);                  \
    if (r) {                           \
      printf("err %d at %s\n", r, #x); \
      exit(1);                         \
    }                                  \
  } while (0)
void touch(char* p, size_t n, int th) {
  std::vector<std::thread> v;
  for (int i = 0; i < th; i++)
    v.emplace_back([=] {
      size_t b = n * i / th, e = n * (i + 1) / th;
      memset(p + b, 0, e - b);
    });
  for (auto& t : v) t.join();
}
int main() {
  auto t0 = clk::now();
  CK(cuInit(0));
  double ti = since(t0);
  CUdevice d;
  CK(cuDeviceGet(&d, 0));
  CUcontext c;
  t0 = clk::now();
  CK(cuDevicePrimaryCtxRetain(&c, d));
  CK(cuCtxSetCurrent(c));
  CUdeviceptr x;
  CK(cuMemAlloc(&x, 16));
  double tc = since(t0);
  printf("cuInit %.3f ctx+first alloc %.3f\n", ti, tc);
  for (size_t mb : {235, 470, 940}) {
    size_t n = mb << 20;
    CUdeviceptr dp;
    CK(cuMemAlloc(&dp, n));
    CK(cuMemsetD8(dp, 1, n));
    CK(cuCtxSynchronize());
    char* a = (char*)malloc(n);
    t0 = clk::now();
    CK(cuMemcpyDtoH(a, dp, n));
    double fresh = since(t0);
    t0 = clk::now();
    CK(cuMemcpyDtoH(a, dp, n));
    double again = since(t0);
    char* b = (char*)malloc(n);
    t0 = clk::now();
    touch(b, n, 16);
    double tt = since(t0);
    t0 = clk::now();
    CK(cuMemcpyDtoH(b, dp, n));
    double pre = since(t0);
    char* h = (char*)aligned_alloc(2 << 20, n);
    madvise(h, n, MADV_HUGEPAGE);
    t0 = clk::now();
    CK(cuMemcpyDtoH(h, dp, n));
    double huge = since(t0);
    t0 = clk::now();
    CK(cuMemcpyHtoD(dp, a, n));
    double up = since(t0);
    void* pin;
    t0 = clk::now();
    CK(cuMemHostAlloc(&pin, n, 0));
    double pa = since(t0);
    t0 = clk::now();
    CK(cuMemcpyDtoH(pin, dp, n));
    double pd = since(t0);
    t0 = clk::now();
    CK(cuMemHostRegister(b, n, 0));
    double reg = since(t0);
    t0 = clk::now();
    CK(cuMemcpyDtoH(b, dp, n));
    double rd = since(t0);
    CK(cuMemHostUnregister(b));
    printf(
        "%zu MB: D2H fresh %.3f again %.3f | touch16 %.3f then D2H %.3f | THP fresh D2H %.3f | H2D "
        "%.3f | pinned alloc %.3f D2H %.3f | register %.3f D2H %.3f\n",
        mb, fresh, again, tt, pre, huge, up, pa, pd, reg, rd);
    free(a);
    free(b);
    free(h);
    cuMemFreeHost(pin);
    cuMemFree(dp);
  }
  return 0;
}
