// CUDA backend benchmarks on the GPU at hand (not a test): compile time
// (NVRTC and nvcc, cold and cached), the device-to-device copy bandwidth, the
// launch overhead the timer leaves in, and per example kernel and shape the
// median time, achieved bandwidth, its share of the copy bandwidth, and the
// A/A spread (the same kernel timed as A and as B, interleaved).
//
//   bench_cuda [--manifest examples/llm-ops] [--samples 50] [--aa-reps 5] [--json out.json]
// Results go to docs/BENCHMARKS.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

#include "core/file_util.h"
#include "core/manifest_loader.h"
#include "runner/cuda/cuda_compiler.h"
#include "runner/cuda/cuda_device.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"
#include "runner/measurement.h"

using namespace kgate;

namespace {

struct Options {
  std::string manifest = "examples/llm-ops";
  std::string json;
  int samples = 50;
  int aa_reps = 5;
  int aa_samples = 40;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_cuda: %s\n", why.c_str());
  std::exit(3);
}

// Compile time per kernel: a fresh cache (cold), then the same cache (hit).
nlohmann::json bench_compile(const Manifest& manifest, const std::string& arch) {
  nlohmann::json rows = nlohmann::json::array();
  std::printf(
      "\n## Compile time (%s)\n\n| kernel | nvrtc cold | nvrtc cached | nvcc cold | nvcc cached "
      "|\n|---|---|---|---|---|\n",
      arch.c_str());
  auto tmp =
      std::filesystem::temp_directory_path() / ("kgate-bench-cache-" + std::to_string(getpid()));
  for (const Kernel& k : manifest.kernels) {
    const Implementation* impl = k.implementation("cuda");
    if (!impl) continue;
    nlohmann::json row = {{"kernel", k.name}};
    for (const char* compiler : {"nvrtc", "nvcc"}) {
      Implementation variant = *impl;
      variant.compile.compiler = compiler;
      CompileRequest r;
      r.kernel = &k;
      r.impl = &variant;
      r.root = manifest.root;
      std::filesystem::remove_all(tmp);
      auto t0 = std::chrono::steady_clock::now();
      auto cold = cuda::CudaCompiler(CompileCache(tmp)).compile(r, arch);
      double cold_s = seconds_since(t0);
      if (!cold.ok() || !cold->ok) {
        row[std::string(compiler) + "_error"] = cold.ok() ? cold->log : cold.error().message;
        continue;
      }
      std::vector<double> hits;
      for (int i = 0; i < 20; ++i) {
        auto t1 = std::chrono::steady_clock::now();
        auto hit = cuda::CudaCompiler(CompileCache(tmp)).compile(r, arch);
        hits.push_back(seconds_since(t1));
        if (!hit.ok() || !hit->program.from_cache) die("the cache missed on a rerun of " + k.name);
      }
      row[std::string(compiler) + "_cold_ms"] = cold_s * 1e3;
      row[std::string(compiler) + "_cached_ms"] = median(hits) * 1e3;
      if (std::string(compiler) == "nvrtc") row["registers"] = cold->program.resources.registers;
    }
    auto cell = [&](const char* key) {
      return row.contains(key) ? std::to_string(row[key].get<double>()).substr(0, 6) + " ms"
                               : std::string("-");
    };
    std::printf("| %s | %s | %s | %s | %s |\n", k.name.c_str(), cell("nvrtc_cold_ms").c_str(),
                cell("nvrtc_cached_ms").c_str(), cell("nvcc_cold_ms").c_str(),
                cell("nvcc_cached_ms").c_str());
    rows.push_back(row);
  }
  std::filesystem::remove_all(tmp);
  return rows;
}

// Fills a buffer with seeded data without generating gigabytes on the CPU:
// one block of up to 8M elements from make_input, repeated.
void fill_input(cuda::CudaDevice& device, const ArgPlan& plan, DeviceAddress address, uint64_t seed,
                size_t position) {
  ArgPlan tile = plan;
  tile.count = std::min<int64_t>(plan.count, 8 << 20);
  tile.bytes = tile.count * dtype_size(plan.arg->dtype);
  auto data = make_input(tile, seed, position);
  for (size_t offset = 0; offset < plan.bytes; offset += tile.bytes) {
    size_t n = std::min(tile.bytes, plan.bytes - offset);
    if (!device.upload(address + offset, data.data(), n).ok()) die("upload failed");
  }
}

// Bytes the kernel must move at least: inputs read, outputs written, in/out both.
size_t bytes_needed(const LaunchPlan& plan) {
  size_t total = 0;
  for (const ArgPlan& a : plan.args)
    if (a.arg->is_buffer) total += a.arg->role == ArgRole::kInOut ? 2 * a.bytes : a.bytes;
  return total;
}

std::string us(double seconds) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", seconds * 1e6);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--manifest")
      o.manifest = argv[i + 1];
    else if (a == "--json")
      o.json = argv[i + 1];
    else if (a == "--samples")
      o.samples = std::atoi(argv[i + 1]);
    else if (a == "--aa-reps")
      o.aa_reps = std::atoi(argv[i + 1]);
    else
      die("unknown option " + a);
  }
  auto manifest = load_manifest(o.manifest);
  if (!manifest.ok()) die(manifest.error().message);
  // Learn the architecture (in a child) before CUDA starts in this process.
  auto arch = cuda::target_arch(0);
  if (!arch.ok()) die(arch.error().message);
  nlohmann::json report = {{"arch", *arch}};
  report["compile"] = bench_compile(*manifest, *arch);

  auto opened = cuda::CudaDevice::open(0);
  if (!opened.ok()) die(opened.error().message);
  cuda::CudaDevice& device = **opened;
  DeviceInfo info = device.info();
  report["device"] = info.to_json();
  std::printf("\n## Device\n\n%s, %s, driver %s, %d SMs, L2 %lld MiB, peak SM clock %.0f MHz\n",
              info.name.c_str(), info.arch.c_str(), info.driver.c_str(), info.multiprocessors,
              (long long)(info.l2_bytes >> 20), info.peak_sm_clock_mhz);

  // The bandwidth ceiling: a 2 GiB device-to-device copy (bytes read + written).
  size_t copy_bytes = size_t{2} << 30;
  auto src = device.allocate(copy_bytes), dst = device.allocate(copy_bytes);
  if (!src.ok() || !dst.ok()) die("cannot allocate the copy buffers");
  if (!device.fill(*src, 0x3C, copy_bytes).ok()) die("cannot fill the copy buffer");
  std::vector<double> copies;
  for (int i = 0; i < 25; ++i) {
    auto t = device.time_copy(*dst, *src, copy_bytes);
    if (!t.ok()) die(t.error().message);
    if (i >= 5) copies.push_back(*t);
  }
  device.release(*src);
  device.release(*dst);
  double copy_bw = 2.0 * copy_bytes / median(copies);
  report["copy_bandwidth_gbps"] = copy_bw / 1e9;
  std::printf("device-to-device copy: %.0f GB/s (2 GiB, read + written, median of 20)\n",
              copy_bw / 1e9);

  // The overhead the timer leaves in: an empty kernel between the events,
  // with and without the wait kernel, with and without the L2 flush before
  // (the flush itself keeps the GPU busy while the host queues the launch).
  auto empty_median = [&](bool flush, bool hide) {
    device.set_timing_options({.flush_l2 = flush, .hide_launch = hide, .read_sm_clock = true});
    std::vector<double> s;
    for (int i = 0; i < 200; ++i) {
      auto t = device.time_empty_kernel();
      if (!t.ok()) die(t.error().message);
      if (i >= 20) s.push_back(t->seconds);
    }
    return median(s) * 1e6;
  };
  report["empty_kernel_us"] = nlohmann::json::object();
  std::printf("empty kernel between events (median of 180, us):\n");
  for (bool flush : {true, false})
    for (bool hide : {true, false}) {
      double v = empty_median(flush, hide);
      std::string key =
          std::string(flush ? "flush" : "no_flush") + (hide ? "_wait_kernel" : "_plain");
      report["empty_kernel_us"][key] = v;
      std::printf("  L2 flush %-3s  wait kernel %-3s  %.2f us\n", flush ? "on" : "off",
                  hide ? "on" : "off", v);
    }
  device.set_timing_options({});

  std::printf(
      "\n## Kernels\n\n| kernel | shape | median us | warm, plain events median us | GB/s | of "
      "copy | SM MHz "
      "| A/A spread | "
      "A/A ratios |\n|---|---|---|---|---|---|---|---|---|\n");
  report["kernels"] = nlohmann::json::array();
  for (const Kernel& k : manifest->kernels) {
    const Implementation* impl = k.implementation("cuda");
    if (!impl) continue;
    CompileRequest r;
    r.kernel = &k;
    r.impl = impl;
    r.root = manifest->root;
    auto compiled = cuda::CudaCompiler().compile(r, *arch);
    if (!compiled.ok() || !compiled->ok) die("cannot compile " + k.name);
    auto loaded = device.load(compiled->program);
    if (!loaded.ok()) die(loaded.error().message);
    for (const Shape& shape : k.shapes) {
      if (!shape.runs_on("cuda")) continue;
      auto plan = plan_launch(k, impl, shape, compiled->program.tunables);
      if (!plan.ok()) die(plan.error().message);
      std::vector<DeviceAddress> buffers;
      for (size_t i = 0; i < plan->args.size(); ++i) {
        const ArgPlan& a = plan->args[i];
        if (!a.buffer()) {
          buffers.push_back(0);
          continue;
        }
        auto address = device.allocate(a.bytes);
        if (!address.ok()) die(address.error().message);
        if (a.poisoned()) {
          if (!device.fill(*address, 0xFF, a.bytes).ok()) die("fill failed");
        } else
          fill_input(device, a, *address, 42, i);
        buffers.push_back(*address);
      }
      const std::vector<ArgSlot> slots = param_slots(*plan, buffers);
      auto time = [&](int n) {
        std::vector<double> s, clocks;
        for (int i = 0; i < n; ++i) {
          auto t = device.time_launch(**loaded, plan->dims, slots);
          if (!t.ok()) die(k.name + "/" + shape.name + ": " + t.error().message);
          s.push_back(t->seconds);
          clocks.push_back(t->sm_clock_mhz);
        }
        return std::make_pair(s, clocks);
      };
      for (int w = 0; w < 5; ++w) time(1);
      auto [samples, clocks] = time(o.samples);
      double med = median(samples);
      // For comparison: no flush, no wait kernel (warm L2, launch latency exposed).
      device.set_timing_options({.flush_l2 = false, .hide_launch = false, .read_sm_clock = true});
      double plain = median(time(o.samples).first);
      device.set_timing_options({});
      // A/A: the same kernel as A and B, interleaved with alternating order.
      std::vector<double> ratios;
      for (int rep = 0; rep < o.aa_reps; ++rep) {
        std::vector<double> a, b;
        for (int i = 0; i < o.aa_samples; ++i) {
          bool a_first = i % 2 == 0;
          for (int part = 0; part < 2; ++part) {
            double t = time(1).first[0];
            ((part == 0) == a_first ? a : b).push_back(t);
          }
        }
        ratios.push_back(median(a) / median(b));
      }
      double spread = 0;
      for (double x : ratios) spread = std::max(spread, std::abs(x - 1));
      size_t bytes = bytes_needed(*plan);
      double bw = bytes / med;
      std::string ratio_text;
      for (double x : ratios)
        ratio_text += (ratio_text.empty() ? "" : " ") + std::to_string(x).substr(0, 6);
      std::printf("| %s | %s | %s | %s | %.0f | %.1f%% | %.0f | %.2f%% | %s |\n", k.name.c_str(),
                  shape.name.c_str(), us(med).c_str(), us(plain).c_str(), bw / 1e9,
                  100 * bw / copy_bw, median(clocks), 100 * spread, ratio_text.c_str());
      std::fflush(stdout);
      report["kernels"].push_back({{"kernel", k.name},
                                   {"shape", shape.name},
                                   {"phase", shape.phase},
                                   {"median_us", med * 1e6},
                                   {"warm_plain_median_us", plain * 1e6},
                                   {"bytes", bytes},
                                   {"gbps", bw / 1e9},
                                   {"share_of_copy", bw / copy_bw},
                                   {"sm_clock_mhz", median(clocks)},
                                   {"aa_ratios", ratios},
                                   {"aa_spread", spread},
                                   {"samples_us", [&] {
                                      std::vector<double> v;
                                      for (double s : samples) v.push_back(s * 1e6);
                                      return v;
                                    }()}});
      for (DeviceAddress b : buffers)
        if (b) device.release(b);
    }
  }
  if (!o.json.empty()) {
    if (!write_file_atomic(o.json, report.dump(2)).ok()) die("cannot write " + o.json);
  }
  return 0;
}
