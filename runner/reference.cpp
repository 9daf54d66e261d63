#include "runner/reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "core/dtype_convert.h"
#include "core/parallel.h"
#include "runner/host/host_compiler.h"

namespace kgate {

Result<CompileOutcome> build_reference(const Kernel& kernel, const std::filesystem::path& root) {
  HostBuild build;
  build.kernel = &kernel;
  build.entry = kernel.reference.entry;
  build.source_path = kernel.reference.source;
  build.root = root;
  build.purpose = TrampolineFor::kReference;
  HostCompiler compiler;
  return compiler.build(build);
}

Result<std::optional<Program>> build_device_reference(const Kernel& kernel,
                                                      const std::filesystem::path& root,
                                                      Backend& backend) {
  if (!kernel.reference.cuda || kernel.reference.cuda->backend != backend.name())
    return std::optional<Program>();
  CompileRequest request;
  request.kernel = &kernel;
  request.impl = &*kernel.reference.cuda;
  request.root = root;
  auto compiled = backend.compile(request);
  if (!compiled.ok()) return compiled.error();
  if (!compiled->ok)
    return Error::bad_input("the reference kernel of " + kernel.name + " (" +
                            kernel.reference.cuda->source + ") does not compile:\n" +
                            compiled->digest());
  return std::optional<Program>(compiled->program);
}

namespace {

// Elements per chunk handed to a thread for conversions and fills.
constexpr int64_t kGrain = int64_t{1} << 18;

}  // namespace

void convert_to_doubles(DType dtype, const unsigned char* bytes, int64_t count, double* out) {
  parallel_for(count, kGrain, [&](int64_t begin, int64_t end) {
    load_range_as_double(dtype, bytes, begin, end, out + begin);
  });
}

DoubleData run_reference(const HostLibrary& reference, const LaunchPlan& plan,
                         const HostData& inputs) {
  DoubleData outputs(plan.args.size());
  std::vector<ArgSlot> slots;
  HostData scratch(plan.args.size());
  // The reference takes the leaves this side uses, in order (NULL buffers
  // as null pointers).
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.used) continue;
    if (!a.buffer()) {
      slots.push_back(a.scalar);
      continue;
    }
    void* pointer;
    if (a.arg->role == ArgRole::kInput) {
      // No copy: the trampoline only accepts references whose input
      // parameters point to const, so the inputs stay as drawn.
      pointer = const_cast<unsigned char*>(inputs[i].data());
    } else if (a.arg->role == ArgRole::kScratch) {
      // A workspace of the kernel's type, for a reference that follows it.
      scratch[i].resize(a.bytes);
      std::fill(scratch[i].begin(), scratch[i].end(), kPoisonByte);
      pointer = scratch[i].data();
    } else {
      // Filled on every thread: outputs with NaN (so an element the
      // reference leaves alone cannot pass), in/out buffers with the inputs.
      outputs[i].resize(a.count);
      double* out = outputs[i].data();
      if (a.arg->role == ArgRole::kInOut) {
        convert_to_doubles(a.arg->dtype, inputs[i].data(), a.count, out);
      } else {
        parallel_for(a.count, kGrain, [&](int64_t begin, int64_t end) {
          std::fill(out + begin, out + end, std::nan(""));
        });
      }
      pointer = out;
    }
    slots.push_back(leaf_slot(a, reinterpret_cast<uint64_t>(pointer)));
  }
  std::vector<void*> pointers;
  for (ArgSlot& s : slots) pointers.push_back(s.data());
  reference.call(pointers.data());
  return outputs;
}

std::vector<ReferenceSet> prepare_reference_sets(const HostLibrary& reference,
                                                 const LaunchPlan& plan,
                                                 const std::vector<uint64_t>& seeds,
                                                 const StoredReferences& stored) {
  std::vector<ReferenceSet> sets(seeds.size());
  std::vector<size_t> missing;
  // Inputs one set after the other, each on every thread (make_inputs).
  for (size_t i = 0; i < seeds.size(); ++i) {
    sets[i].seed = seeds[i];
    sets[i].inputs = make_inputs(plan, seeds[i]);
    if (stored.store)
      if (auto kept =
              stored.store->load(ReferenceStore::key(stored.program_key, plan, seeds[i]), plan)) {
        sets[i].expected = std::move(*kept);
        continue;
      }
    missing.push_back(i);
  }
  // A reference is one sequential call: the sets run side by side instead.
  std::vector<double> seconds(sets.size(), 0);
  auto compute = [&](size_t i) {
    auto start = std::chrono::steady_clock::now();
    sets[i].expected = run_reference(reference, plan, sets[i].inputs);
    seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<std::thread> workers;
  for (size_t k = 1; k < missing.size(); ++k) workers.emplace_back(compute, missing[k]);
  if (!missing.empty()) compute(missing[0]);
  for (std::thread& t : workers) t.join();
  if (stored.store)
    for (size_t i : missing) {
      size_t bytes = 0;
      for (const auto& out : sets[i].expected) bytes += out.size() * sizeof(double);
      // A full disk or a read-only cache costs speed, never a verdict.
      if (ReferenceStore::worth_storing(seconds[i], bytes))
        (void)stored.store->store(ReferenceStore::key(stored.program_key, plan, sets[i].seed), plan,
                                  sets[i].expected);
    }
  return sets;
}

}  // namespace kgate
