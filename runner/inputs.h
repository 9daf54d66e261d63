#pragma once
// Seeded input data per dtype, and output poisoning. Inputs are never zeros
// (zeros hide unwritten outputs and wrong indexing); outputs are filled with
// 0xFF bytes, which reads as NaN for every float type.
#include <cstdint>
#include <string>
#include <vector>

#include "core/uninitialized_vector.h"
#include "runner/device.h"
#include "runner/input_formula.h"
#include "runner/launch_plan.h"

namespace kgate {

inline constexpr uint8_t kPoisonByte = 0xFF;

// Names the bytes make_input draws for a seed. Raise it whenever they change:
// it is part of the key of reference outputs kept on disk
// (reference_store.h), which must not outlive the inputs they were
// computed on.
inline constexpr int kInputGeneratorVersion = 4;

// One buffer's host bytes, and per argument of a launch plan (one entry per
// argument, empty where there is nothing). Sized without zeroing: every byte
// is written right after (core/uninitialized_vector.h).
using Bytes = UninitializedVector<unsigned char>;
using HostData = std::vector<Bytes>;
// One buffer's values in double (a reference's outputs), and per argument.
using Doubles = UninitializedVector<double>;
using DoubleData = std::vector<Doubles>;

// Host bytes for one buffer argument, drawn from `seed` (mixed with the
// argument's position so buffers differ, or with the name of the draw it
// shares), or its given contents evaluated with `variables` (the plan's).
// Each element is drawn from its own counter, so large buffers are filled on
// `threads` threads (0: host_threads()) and the bytes are the same for any
// thread count.
Bytes make_input(const ArgPlan& plan, uint64_t seed, size_t position,
                 const Variables& variables = {}, int threads = 0);

// What make_input draws for `plan` under `seed` at argument `position`, as
// plain values: Device::draw draws the same on a GPU (input_formula.h). Only
// for InitSpec::device_drawable inits.
input_formula::DrawSpec draw_spec(const ArgPlan& plan, uint64_t seed, size_t position);

// Writes the buffer of `leaf` at `address`: drawn on the device where its
// init allows (Device::draw), else made on the host and uploaded.
Status put_input(Device& device, DeviceAddress address, const ArgPlan& leaf, uint64_t seed,
                 size_t position, const Variables& variables);
// The `bytes` bytes of `spec`'s buffer, drawn on the host (what make_input
// returns for the plan the spec came from).
Bytes draw_bytes(const input_formula::DrawSpec& spec, size_t bytes, int threads = 0);

// Inputs for every input and in/out buffer of `plan`, drawn from `seed`.
HostData make_inputs(const LaunchPlan& plan, uint64_t seed, int threads = 0);

// True when element `index` still holds the poison pattern.
bool is_poison(const unsigned char* data, size_t element_size, size_t index);

}  // namespace kgate
