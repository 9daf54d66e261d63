// The kernels the candle A/B harness knows, each as candle's Rust launchers
// call it (candle-core/src/cuda_backend, candle-nn/src/ops.rs,
// candle-nn/src/rotary_emb.rs), ported here independently of kgate: what
// inputs the kernel reads, its parameters and launch for each version of the
// launcher ("variant"), and a host check of its output from the operation's
// definition, in double, on sampled elements.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace candle_ab {

struct Shape {
  std::string name;
  std::map<std::string, long long> v;
  bool timed = true;
  long long at(const std::string& key) const;
};

// One buffer the kernel reads: its host bytes (kept for the check) and, once
// uploaded, its device address. Both sides read the same buffers.
struct Input {
  std::string name;
  std::vector<uint8_t> host;
  CUdeviceptr dev = 0;
};

enum class Elem { kF32, kBF16, kU32, kU8 };
size_t elem_bytes(Elem e);
double elem_value(Elem e, const uint8_t* base, size_t i);

struct Problem {
  std::vector<Input> inputs;
  Elem out_elem = Elem::kF32;
  size_t out_count = 0;
  const Input& in(const std::string& name) const;
};

// One kernel parameter: its value at the start of an 8-byte slot, and its size in bytes
// (what the kernel's signature declares; --describe prints them).
struct Param {
  uint64_t slot = 0;
  int size = 8;
};
Param ptr(CUdeviceptr p);
Param u64(uint64_t v);
Param u32(uint32_t v);
Param i32(int32_t v);
Param f32(float v);
Param u8(uint8_t v);

struct Launch {
  unsigned grid = 1, block = 1;
  std::vector<Param> params;
};

class Family {
 public:
  virtual ~Family() = default;
  // The inputs on the host (random from `seed`), the output's type and count.
  virtual Problem make(const Shape& s, uint64_t seed) const = 0;
  // The launch one side makes: `variant` names the launcher's version.
  virtual Launch launch(const std::string& variant, const Shape& s, const Problem& p,
                        CUdeviceptr out) const = 0;
  // "" when the output is right at the checked elements, else the first wrong one.
  virtual std::string check(const Shape& s, const Problem& p, const uint8_t* out) const = 0;
  // How far two correct outputs may differ: |a - b| <= atol + rtol * |b|.
  virtual double atol() const = 0;
  virtual double rtol() const = 0;
};

// Whether make() fills the inputs (false for --describe, which only needs the launches).
void set_fill_inputs(bool fill);

// "unary_silu/f32", "rmsnorm/bf16", "rope_thd/bf16", ... (the spec's family and dtype).
std::unique_ptr<Family> make_family(const std::string& family, const std::string& dtype);

}  // namespace candle_ab
