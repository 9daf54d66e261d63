#include "runner/reference.h"

#include <cmath>
#include <cstring>
#include <thread>

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

std::vector<std::vector<double>> run_reference(const HostLibrary& reference, const LaunchPlan& plan,
                                               const HostData& inputs) {
  std::vector<std::vector<double>> outputs(plan.args.size());
  std::vector<ArgSlot> slots(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.arg->is_buffer) {
      slots[i] = a.scalar;
      continue;
    }
    void* pointer;
    if (a.arg->role == ArgRole::kInput) {
      // No copy: the trampoline only accepts references whose input
      // parameters point to const, so the inputs stay as drawn.
      pointer = const_cast<unsigned char*>(inputs[i].data());
    } else {
      outputs[i].assign(a.count, std::nan(""));
      if (a.arg->role == ArgRole::kInOut)
        for (int64_t e = 0; e < a.count; ++e)
          outputs[i][e] = load_as_double(a.arg->dtype, inputs[i].data(), e);
      pointer = outputs[i].data();
    }
    std::memcpy(slots[i].bytes, &pointer, 8);
  }
  std::vector<void*> pointers;
  for (ArgSlot& s : slots) pointers.push_back(s.bytes);
  reference.call(pointers.data());
  return outputs;
}

std::vector<ReferenceSet> prepare_reference_sets(const HostLibrary& reference,
                                                 const LaunchPlan& plan,
                                                 const std::vector<uint64_t>& seeds) {
  std::vector<ReferenceSet> sets(seeds.size());
  // Inputs one set after the other, each on every thread (make_inputs).
  for (size_t i = 0; i < seeds.size(); ++i) {
    sets[i].seed = seeds[i];
    sets[i].inputs = make_inputs(plan, seeds[i]);
  }
  // A reference is one sequential call: the sets run side by side instead.
  std::vector<std::thread> workers;
  for (size_t i = 1; i < sets.size(); ++i)
    workers.emplace_back(
        [&, i] { sets[i].expected = run_reference(reference, plan, sets[i].inputs); });
  if (!sets.empty()) sets[0].expected = run_reference(reference, plan, sets[0].inputs);
  for (std::thread& t : workers) t.join();
  return sets;
}

}  // namespace kgate
