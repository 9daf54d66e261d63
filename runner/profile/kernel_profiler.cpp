#include "runner/profile/kernel_profiler.h"

#include <algorithm>

#include "core/file_util.h"
#include "core/log.h"
#include "core/subprocess.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/isolated_measure.h"
#include "runner/launch_plan.h"
#include "runner/profile/counter_profiler.h"
#include "runner/profile/device_limits.h"
#include "runner/profile/hot_regions.h"
#include "runner/profile/launch_args.h"
#include "runner/profile/pc_sampling.h"
#include "runner/profile/sass_branches.h"
#include "runner/profile/sass_counts.h"
#include "runner/reference.h"

namespace kgate::profile {
namespace {

const char* const kCountersKey = "hardware counters";
const char* const kEverything = "everything measured on the GPU";

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The child side of one CUDA shape: everything in this process is fresh.
profile_model::ProfileData profile_cuda_shape(const KernelProfileRequest& r, const Shape& shape,
                                              const Program& program) {
  profile_model::ProfileData p;
  p.kernel = r.kernel->name;
  p.shape = shape.name;
  p.backend = "cuda";
  p.resources = program.resources;
  auto fail = [&](const std::string& what, const Error& e) {
    p.missing[what] = e.message;
    return p;
  };
  const Implementation* impl = r.kernel->implementation("cuda");
  auto plan = plan_launch(*r.kernel, impl, shape, program.tunables);
  if (!plan.ok()) return fail("launch plan", plan.error());
  p.dims = plan->dims;
  p.bytes_moved = plan->traffic_bytes();
  auto gpu = cuda::CudaDevice::open(r.gpu);
  if (!gpu.ok()) return fail(kEverything, gpu.error());
  p.device = (*gpu)->info().name;
  auto cubin = read_file(program.artifact);
  if (!cubin.ok()) return fail(kEverything, cubin.error());
  auto kernel = (*gpu)->load(program);
  if (!kernel.ok()) return fail(kEverything, kernel.error());
  auto args = LaunchArgs::make(**gpu, *plan, r.seed);
  if (!args.ok()) return fail(kEverything, args.error());
  profile_model::ProfileData measured =
      profile_launch(**gpu, static_cast<cuda::CudaKernel&>(**kernel), plan->dims, (*args)->args(),
                     program.resources, *cubin, r.options, program.entry);
  measured.kernel = p.kernel;
  measured.shape = p.shape;
  measured.bytes_moved = p.bytes_moved;
  return measured;
}

// The child side of one SASS metric count (sass_branches.h): the shape's
// launch set up as profile_cuda_shape does, in a fresh process.
Result<SampledPcs> count_shape_metric(const KernelProfileRequest& r, const Shape& shape,
                                      const Program& program, const std::string& metric) {
  const Implementation* impl = r.kernel->implementation("cuda");
  auto plan = plan_launch(*r.kernel, impl, shape, program.tunables);
  if (!plan.ok()) return plan.error();
  auto gpu = cuda::CudaDevice::open(r.gpu);
  if (!gpu.ok()) return gpu.error();
  auto kernel = (*gpu)->load(program);
  if (!kernel.ok()) return kernel.error();
  auto args = LaunchArgs::make(**gpu, *plan, r.seed);
  if (!args.ok()) return args.error();
  cuda::CudaDevice& device = **gpu;
  LaunchOnce launch = [&]() -> Status {
    return device.launch(**kernel, plan->dims, (*args)->args());
  };
  return count_sass_metric(device.context(), device.device(), launch, metric);
}

// Host backend: the harness checks and times each shape in a measuring
// child, as `kgate run` does; counters do not exist.
Result<std::vector<profile_model::ProfileData>> profile_host(const KernelProfileRequest& r,
                                                             const Program& program) {
  auto reference = build_reference(*r.kernel, r.manifest->root);
  if (!reference.ok()) return reference.error();
  if (!reference->ok)
    return Error::bad_input("the reference of " + r.kernel->name + " does not compile:\n" +
                            reference->digest());
  const Implementation* impl = r.kernel->implementation(r.backend->name());
  std::vector<profile_model::ProfileData> out;
  for (size_t i = 0; i < r.kernel->shapes.size(); ++i) {
    const Shape& shape = r.kernel->shapes[i];
    if (!r.shapes.empty() &&
        std::find(r.shapes.begin(), r.shapes.end(), shape.name) == r.shapes.end())
      continue;
    if (!shape.runs_on(r.backend->name())) continue;
    progress("profiling " + r.kernel->name + " / " + shape.name);
    MeasureRequest m;
    m.kernel = r.kernel;
    m.impl = impl;
    m.shape = &shape;
    m.backend = r.backend;
    m.gpu = r.gpu;
    m.head = &program;
    m.reference = &reference->program;
    m.seed = r.seed + i * 1000;
    m.warmup = r.kernel->timing.warmup;
    m.min_samples = m.max_samples = r.kernel->timing.samples;
    m.budget_s = m.time_limit_s = r.kernel->timing.time_limit_s;
    const ShapeMeasurement measured = measure_shape(m);
    profile_model::ProfileData p;
    p.kernel = r.kernel->name;
    p.shape = shape.name;
    p.backend = r.backend->name();
    p.device = measured.device.name;
    p.resources = program.resources;
    p.bytes_moved = measured.bytes_moved;
    if (!measured.head_seconds.empty()) p.timed_seconds = median_of(measured.head_seconds);
    if (measured.status != MeasureStatus::kPass)
      p.missing["a clean run"] = std::string(to_string(measured.status)) + ": " + measured.reason;
    p.missing[kCountersKey] =
        "the host backend runs kernels on the CPU, which has no GPU "
        "counters; this summary rests on timing and the compiler report";
    p.missing["occupancy and roofline"] = "GPU-only notions; no GPU was used";
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

profile_model::ProfileData profile_launch(cuda::CudaDevice& gpu, cuda::CudaKernel& kernel,
                                          const LaunchDims& dims, const std::vector<ArgSlot>& args,
                                          const ResourceReport& resources, const std::string& cubin,
                                          const ProfileOptions& options, const std::string& entry) {
  profile_model::ProfileData p;
  p.backend = "cuda";
  p.device = gpu.info().name;
  p.multiprocessors = gpu.info().multiprocessors;
  p.dims = dims;
  p.resources = resources;
  ResourceReport driver = function_resources(kernel.function());
  if (p.resources.registers < 0) p.resources.registers = driver.registers;
  if (p.resources.shared_bytes < 0) p.resources.shared_bytes = driver.shared_bytes;
  if (p.resources.local_bytes < 0) p.resources.local_bytes = driver.local_bytes;

  LaunchOnce launch_and_wait = [&]() -> Status { return gpu.launch(kernel, dims, args); };

  // 1. Timing, before any profiler touches the context: the gate's own
  // (L2 flushed, launch latency hidden, SM clock read).
  std::vector<double> samples, clocks;
  for (int i = 0; i < 3 + options.timed_samples; ++i) {
    auto t = gpu.time_launch(kernel, dims, args);
    if (!t.ok()) {
      p.missing["timing"] = t.error().message;
      p.missing[kCountersKey] = "not attempted: the kernel failed to run";
      return p;
    }
    if (i < 3) continue;
    samples.push_back(t->seconds);
    if (t->sm_clock_mhz > 0) clocks.push_back(t->sm_clock_mhz);
  }
  if (!samples.empty()) p.timed_seconds = median_of(samples);
  double clock_hz = (clocks.empty() ? gpu.info().peak_sm_clock_mhz : median_of(clocks)) * 1e6;

  // 2. Theoretical occupancy: the driver's count where it can, the limiter
  // from the calculator.
  auto limits = sm_limits(gpu);
  if (limits.ok()) {
    p.max_shared_per_block = limits->shared_per_sm - limits->reserved_shared_per_block;
    profile_model::Occupancy occ = theoretical_occupancy(*limits, p.resources, dims);
    if (auto blocks = active_blocks(kernel.function(), dims);
        blocks.ok() && *blocks != occ.blocks_per_sm) {
      int warps_per_block = int((dims.block[0] * dims.block[1] * dims.block[2] + 31) / 32);
      occ.blocks_per_sm = *blocks;
      occ.warps_per_sm = *blocks * warps_per_block;
      occ.pct = 100.0 * occ.warps_per_sm / occ.max_warps_per_sm;
    }
    p.theoretical = occ;
  } else {
    p.missing["theoretical occupancy"] = limits.error().message;
  }

  // 3. Ceilings (measured once per GPU model, then read from the store).
  if (options.roofline) {
    CeilingStore store = options.ceiling_file.empty() ? CeilingStore::default_store()
                                                      : CeilingStore(options.ceiling_file);
    if (auto c = ceilings_for(gpu, store, options.fma_cubin); c.ok())
      p.ceilings = *c;
    else
      p.missing["roofline ceilings"] = c.error().message;
  }

  // 4. Counters: replay and profiler state never touch the timing above.
  if (options.counters) {
    auto counters = collect_counters(gpu.context(), gpu.device(), launch_and_wait);
    if (counters.ok()) {
      p.metrics = counters->metrics;
      p.stalls = counters->stalls;
    } else {
      p.missing[kCountersKey] = counters.error().message;
    }
  } else {
    p.missing[kCountersKey] = "not requested";
  }

  // 5. Hot regions, after the counter session has ended: PC sampling, else
  // SASS instruction counts (last: they patch the kernel for good).
  if (options.hot_regions) {
    SamplingOptions so;
    so.kernel_seconds = p.timed_seconds.value_or(0);
    so.sm_clock_hz = clock_hz;
    so.multiprocessors = p.multiprocessors;
    // A copy of the module loaded now, with sampling enabled, so CUPTI
    // attributes its samples (pc_sampling.h); it lives until sampling ends.
    std::vector<std::shared_ptr<cuda::CudaKernel>> copies;
    ReloadForSampling reload;
    if (!cubin.empty() && !entry.empty())
      reload = [&]() -> Result<LaunchOnce> {
        auto copy = gpu.load_image(cubin, entry);
        if (!copy.ok()) return copy.error();
        copies.push_back(std::shared_ptr<cuda::CudaKernel>(std::move(copy.value())));
        cuda::CudaKernel* k = copies.back().get();
        return LaunchOnce(
            [&gpu, k, &dims, &args]() -> Status { return gpu.launch(*k, dims, args); });
      };
    auto sampled = sample_pcs(gpu.context(), launch_and_wait, so, reload, cubin);
    if (sampled.ok()) {
      p.sampler = sampled->log;
      p.hot_regions = top_regions(sampled->pcs, cubin_source_lookup(cubin));
    } else {
      auto counted = count_instructions(gpu.context(), gpu.device(), launch_and_wait);
      if (counted.ok()) {
        p.sampler = sampled.error().message + "; fell back to " + counted->log;
        // The reason alone (before the sampler's log), for the summary.
        const std::string& why = sampled.error().message;
        p.hot_regions_note = "executed-instruction counts (SASS metrics; no stall reasons), " +
                             std::string("because ") + why.substr(0, why.find(" ("));
        p.hot_regions = top_regions(counted->pcs, cubin_source_lookup(cubin));
      } else {
        p.sampler = sampled.error().message + "; " + counted.error().message;
        p.missing["hottest instruction regions"] = p.sampler;
      }
    }
  } else {
    p.missing["hottest instruction regions"] = "not requested";
  }
  return p;
}

Result<std::vector<profile_model::ProfileData>> profile_kernel(const KernelProfileRequest& r) {
  for (const std::string& name : r.shapes)
    if (!r.kernel->shape(name))
      return Error::bad_input(r.kernel->name + " has no shape '" + name + "'");
  const Implementation* impl = r.kernel->implementation(r.backend->name());
  if (!impl)
    return Error::bad_input(r.kernel->name + " has no \"" + r.backend->name() +
                            "\" implementation");
  const bool host = r.backend->name() == "host";
  progress("compiling " + r.kernel->name + " (" + r.backend->name() +
           (host ? ")" : ", with line info)"));
  CompileRequest compile;
  compile.kernel = r.kernel;
  compile.impl = impl;
  compile.root = r.manifest->root;
  compile.source_text = r.source_text;
  compile.tunables = r.tunables;
  compile.extra_flags = r.extra_flags;
  compile.line_info = !host;
  auto compiled = r.backend->compile(compile);
  if (!compiled.ok()) return compiled.error();
  if (!compiled->ok)
    return Error::bad_input(r.kernel->name + " does not compile:\n" + compiled->digest());
  if (host) return profile_host(r, compiled->program);
  const Program program = compiled->program;
  KernelProfileRequest request = r;
  if (r.options.roofline && r.options.fma_cubin.empty()) {
    // Compiled here, before any child opens the GPU (roofline.h says why);
    // used only where this GPU's ceilings are not stored yet.
    auto arch = cuda::target_arch(r.gpu);
    auto fma = arch.ok() ? compile_fma_peak(*arch) : Result<std::string>(arch.error());
    if (fma.ok())
      request.options.fma_cubin = *fma;
    else
      progress("the roofline's FMA kernel did not compile: " + fma.error().message);
  }

  std::vector<profile_model::ProfileData> out;
  for (const Shape& shape : r.kernel->shapes) {
    if (!r.shapes.empty() &&
        std::find(r.shapes.begin(), r.shapes.end(), shape.name) == r.shapes.end())
      continue;
    if (!shape.runs_on(r.backend->name())) continue;
    progress("profiling " + r.kernel->name + " / " + shape.name);
    ChildOutcome child =
        run_in_child([&] { return profile_cuda_shape(request, shape, program).to_json().dump(); },
                     r.options.time_limit_s);
    if (child.completed) {
      profile_model::ProfileData p =
          profile_model::ProfileData::from_json(nlohmann::json::parse(child.payload));
      // Branch counts through the SASS metrics API, one metric per child
      // (patching lasts for the process), after the shape's own child: its
      // timing never saw a patched kernel. Not where the kernel did not run
      // or counters cannot be read at all (no permission): it would fail alike.
      if (r.options.counters && r.options.sass_branches && !p.missing.count(kEverything) &&
          !p.missing.count("timing") && !p.missing.count(kCountersKey)) {
        progress("counting branches of " + r.kernel->name + " / " + shape.name + " (SASS metrics)");
        add_sass_branches(
            p,
            [&](const std::string& metric) {
              return count_shape_metric(request, shape, program, metric);
            },
            r.options.time_limit_s);
      }
      out.push_back(std::move(p));
      continue;
    }
    profile_model::ProfileData p;
    p.kernel = r.kernel->name;
    p.shape = shape.name;
    p.backend = r.backend->name();
    p.resources = program.resources;
    p.missing[kEverything] = "the profiling child " + child.describe(r.options.time_limit_s) +
                             (child.err_tail.empty() ? "" : ": " + child.err_tail);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace kgate::profile
