// What each ggml kernel takes and how its launcher launches it, at each
// commit where that changed: the harness's own reading of ggml's launchers
// (the host code of norm.cu, softmax.cu, sumrows.cu and argmax.cu), written
// apart from kgate.json so that the two can disagree.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ggml_harness {

// The commits that changed a kernel's parameters or launch, in history order;
// a side's era is the last of them at or before its commit (build.sh says
// which).
inline const std::vector<std::string>& eras() {
  static const std::vector<std::string> order = {"a2bacc13", "e689b63c", "91f96a96", "63d8a6ba",
                                                 "3b145175", "e9cae642", "81415da3", "58450487",
                                                 "f3a50ebb", "3e12f441"};
  return order;
}
bool since(const std::string& era, const std::string& commit);

// A problem size: the variables of one shape, by name.
struct Shape {
  std::string name;
  bool timed;  // edge shapes are checked, not timed
  int64_t v[8];
};

// How to fill a buffer, and what it is.
struct BufferSpec {
  std::string name;
  int64_t count;  // elements
  int elem_size;  // bytes
  bool output;
  bool is_int;  // int32 output (argmax)
};

// One launch: buffers (in kernel-parameter order they are referenced by
// index), the parameter bytes, and the geometry.
struct LaunchSpec {
  unsigned grid[3], block[3];
  unsigned shared_bytes;
  // Each parameter's bytes; a buffer parameter is written as its index
  // (buffer_param >= 0) and replaced by the device address at launch.
  struct Param {
    std::vector<unsigned char> bytes;
    int buffer = -1;  // index into the kernel's buffers, -1 for a value
    bool null = false;
  };
  std::vector<Param> params;
};

struct KernelSpec {
  std::vector<BufferSpec> buffers;
  LaunchSpec launch;
  // Comparison of the head's outputs with the base's (and a spot check of
  // rows against the host): |a - b| <= atol + rtol * |b|.
  double atol, rtol;
};

// The shapes the harness times for kernel `kernel` (kgate.json's names).
const std::vector<Shape>& shapes_of(const std::string& kernel);
// The buffers, parameters and launch of `kernel` at `era` on `shape`;
// `sms` is the device's multiprocessor count (ggml's nsm).
KernelSpec contract(const std::string& kernel, const std::string& era, const Shape& shape, int sms);

// A host spot check of row `row` of the output of `kernel` from the inputs
// (host copies of the buffers, in order); "" when it holds, else why.
std::string spot_check(const std::string& kernel, const Shape& shape,
                       const std::vector<std::vector<unsigned char>>& buffers, int64_t row,
                       double atol, double rtol);
// The rows spot_check can check (0 and the last).
int64_t rows_of(const std::string& kernel, const Shape& shape);

}  // namespace ggml_harness
