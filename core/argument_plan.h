#pragma once
// What a kernel's arguments are on one shape with one setting of the
// tunables: each buffer's element count (or NULL), each scalar's bytes, and
// how the kernel's parameters are made of them (a struct passed by value
// holds scalars and buffer addresses). One function plans them for
// `kgate validate` (the manifest loader checks every shape with it) and for
// every run (runner/launch_plan.h), so a manifest that validates plans.
//
// The leaves are the kernel's scalars and buffers with struct fields in
// their place, in declaration order: what the reference takes, what inputs
// are drawn for and outputs compared on.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/arg_slot.h"
#include "core/manifest.h"
#include "core/status.h"

namespace kgate {

struct ArgPlan {
  const Arg* arg = nullptr;  // a leaf
  int64_t count = 0;         // buffers: elements (0 when NULL)
  size_t bytes = 0;          // buffers: count * element size
  ArgSlot scalar;            // scalars, and NULL buffers (8 zero bytes): the value's bytes
  int64_t randint_low = 0, randint_high = 0;
  std::vector<double> given;  // "values": each element, evaluated for the shape
  bool null = false;          // a buffer passed as NULL on this shape
  // False for a leaf this side's kernel does not take: the other side's,
  // when two revisions of a kernel share one set of buffers
  // (runner/side_compatibility.h).
  bool used = true;
  // False for a buffer the head's reference cannot judge: one only the base
  // takes (side_compatibility.h). Never compared.
  bool judged = true;
  Tolerance tolerance;  // outputs: what they are held to
  // The type whose units in the last place `tolerance.ulp` counts: the
  // output's own, also where a reference's doubles are compared.
  DType ulp_type = DType::kFloat32;

  // A buffer with memory on this shape.
  bool buffer() const { return arg->is_buffer && !null; }
  // Inputs and in/out buffers: data the run starts from.
  bool drawn() const {
    return buffer() && (arg->role == ArgRole::kInput || arg->role == ArgRole::kInOut);
  }
  // Outputs and scratch: filled with the poison before a run.
  bool poisoned() const {
    return buffer() && (arg->role == ArgRole::kOutput || arg->role == ArgRole::kScratch);
  }
  // Outputs and in/out buffers that this side writes and the check compares.
  bool compared() const {
    return buffer() && used && judged &&
           (arg->role == ArgRole::kOutput || arg->role == ArgRole::kInOut);
  }
};

// One parameter of the kernel: a leaf, or a struct's bytes with the
// addresses of its buffer fields still to be written.
struct ParamPlan {
  int leaf = -1;  // >= 0: this leaf is the parameter
  std::vector<unsigned char> bytes;
  std::vector<std::pair<size_t, int>> pointers;  // (offset in bytes, leaf)
};

struct ArgumentPlan {
  std::vector<ArgPlan> args;  // the leaves
  std::vector<ParamPlan> params;
};

// `variables`: the shape's, the tunables and the lets (Kernel::variables).
// Errors name the kernel, the JSON path and the shape.
Result<ArgumentPlan> plan_arguments(const Kernel& kernel, const Shape& shape,
                                    const Variables& variables);

// How a struct is laid out: its size and alignment, and each field's offset,
// as the C compiler lays it out (each field at a multiple of its alignment,
// the size a multiple of the largest).
struct StructLayout {
  size_t size = 0;
  size_t align = 1;
  std::vector<size_t> offsets;  // per field
};
StructLayout struct_layout(const Arg& structure);
// The bytes a parameter of this kind takes: 8 for a buffer, the type's size,
// a struct's layout size.
size_t param_size(const Arg& arg);

// The parameters a launch passes: each leaf's value or `addresses[leaf]`
// (0 for a NULL buffer), structs with their buffer fields' addresses. A plan
// without params (one made by hand) passes its leaves in order.
std::vector<ArgSlot> param_slots(const ArgumentPlan& plan, const std::vector<uint64_t>& addresses);
// One leaf as a parameter: `address` for a buffer, else its value.
ArgSlot leaf_slot(const ArgPlan& leaf, uint64_t address);

// How a buffer's contents are made, in words that change when they do (the
// reference store's key, whether two revisions give the same inputs).
std::string describe_contents(const ArgPlan& leaf);

// Element i of a buffer with given contents ("values", "formula"), in
// double. `variables` is the plan's, with `i` free.
Result<double> given_element(const ArgPlan& leaf, const Variables& variables, int64_t i);

}  // namespace kgate
