// An A/B timer for bench/ggml's cases that shares nothing with kgate: it
// loads each case's base and head cubins (compiled by build.sh from the
// replayed ggml sources) with the CUDA driver API, fills the buffers each
// kernel's contract needs (contracts.h), checks the head against the base and
// the host, and times both sides interleaved.
//
//   ggml_harness SPEC_DIR [--json OUT] [--case "SHORT ..."] [--seconds S]
//   ggml_harness SPEC_DIR --check-params     (no GPU: each contract against its cubin)
//
// SPEC_DIR/kernels.tsv (build.sh): case, kernel, side, era, cubin, symbol.
// Per shape it prints the median of each side, head/base and a bootstrap 99%
// interval of that ratio of medians, twice: from CUDA events around each
// launch, and from the kernels' own GPU durations (CUPTI activity records,
// ../../harness_clock), which the events' fixed cost does not dilute.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "contracts.h"
#include "cubin_params.h"
#include "driver.h"
#include "kernel_clock.h"

using namespace ggml_harness;

namespace {

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  drv::cuGetErrorName(r, &name);
  throw std::runtime_error(std::string(what) + ": " + (name ? name : "?"));
}

struct Side {
  std::string era, cubin, symbol;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

struct CaseKernel {
  std::string case_short, kernel;
  Side base, head;
};

std::vector<CaseKernel> read_spec(const std::string& dir) {
  std::ifstream in(dir + "/kernels.tsv");
  if (!in) throw std::runtime_error("no " + dir + "/kernels.tsv (run build.sh)");
  std::vector<CaseKernel> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
    if (f.size() != 6) throw std::runtime_error("kernels.tsv: bad line: " + line);
    auto it = std::find_if(out.begin(), out.end(), [&](const CaseKernel& c) {
      return c.case_short == f[0] && c.kernel == f[1];
    });
    if (it == out.end()) {
      out.push_back({f[0], f[1], {}, {}});
      it = out.end() - 1;
    }
    Side& s = f[2] == "base" ? it->base : it->head;
    s.era = f[3], s.cubin = dir + "/" + f[4], s.symbol = f[5];
  }
  return out;
}

std::string read_image(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// "" when the parameters `k` passes have the sizes the cubin gives `symbol`.
std::string params_mismatch(const KernelSpec& k, const std::string& image,
                            const std::string& symbol) {
  const std::vector<size_t> sizes = cubin_param_sizes(image, symbol);
  std::string listing;
  for (size_t v : sizes) listing += (listing.empty() ? "" : ", ") + std::to_string(v);
  if (sizes.size() != k.launch.params.size())
    return symbol + " takes " + std::to_string(sizes.size()) + " parameters (" + listing +
           "), the contract " + std::to_string(k.launch.params.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != k.launch.params[i].bytes.size())
      return "parameter " + std::to_string(i) + " of " + symbol + " is " +
             std::to_string(sizes[i]) + " bytes, the contract's " +
             std::to_string(k.launch.params[i].bytes.size()) + " (" + listing + ")";
  return "";
}

// Every contract of every side against its cubin, without a GPU.
int check_params(const std::vector<CaseKernel>& spec) {
  int bad = 0, checked = 0;
  for (const CaseKernel& ck : spec)
    for (const Side* s : {&ck.base, &ck.head}) {
      const std::string image = read_image(s->cubin);
      for (const Shape& shape : shapes_of(ck.kernel)) {
        std::string why =
            params_mismatch(contract(ck.kernel, s->era, shape, 132), image, s->symbol);
        ++checked;
        if (why.empty()) continue;
        ++bad;
        std::printf("%s %s %s (%s): %s\n", ck.case_short.c_str(), ck.kernel.c_str(),
                    shape.name.c_str(), s->era.c_str(), why.c_str());
      }
    }
  std::printf("check-params: %d of %d contracts match their cubins\n", checked - bad, checked);
  return bad ? 1 : 0;
}

void load(Side& s) {
  const std::string image = read_image(s.cubin);
  check(drv::cuModuleLoadData(&s.module, image.data()), ("cuModuleLoadData " + s.cubin).c_str());
  check(drv::cuModuleGetFunction(&s.function, s.module, s.symbol.c_str()),
        ("cuModuleGetFunction " + s.symbol).c_str());
  // Dynamic shared memory up to the opt-in limit, less the kernel's static shared memory
  // (ggml's CUDA_SET_SHARED_MEMORY_LIMIT does the same for the softmax).
  CUdevice dev;
  check(drv::cuCtxGetDevice(&dev), "cuCtxGetDevice");
  int optin = 0, fixed = 0;
  check(
      drv::cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev),
      "optin");
  check(drv::cuFuncGetAttribute(&fixed, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, s.function),
        "static shared");
  check(drv::cuFuncSetAttribute(s.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                optin - fixed),
        "cuFuncSetAttribute");
}

// Device buffers for one shape: inputs drawn once (normal), one set of
// outputs per side, so the head's can be compared with the base's.
struct Buffers {
  std::vector<CUdeviceptr> base, head;
  std::vector<std::vector<unsigned char>>
      host;  // inputs as uploaded; outputs as the head left them
};

Buffers make_buffers(const KernelSpec& k, uint64_t seed) {
  Buffers b;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const BufferSpec& spec : k.buffers) {
    const size_t bytes = size_t(spec.count) * spec.elem_size;
    std::vector<unsigned char> host(bytes, 0xff);
    if (!spec.output) {
      float* f = reinterpret_cast<float*>(host.data());
      for (int64_t i = 0; i < spec.count; ++i) f[i] = normal(rng);
    }
    CUdeviceptr d_base = 0, d_head = 0;
    check(drv::cuMemAlloc(&d_base, bytes), "cuMemAlloc");
    check(drv::cuMemcpyHtoD(d_base, host.data(), bytes), "cuMemcpyHtoD");
    if (spec.output) {
      check(drv::cuMemAlloc(&d_head, bytes), "cuMemAlloc");
      check(drv::cuMemcpyHtoD(d_head, host.data(), bytes), "cuMemcpyHtoD");
    } else {
      d_head = d_base;  // both sides read the same inputs
    }
    b.base.push_back(d_base), b.head.push_back(d_head), b.host.push_back(std::move(host));
  }
  return b;
}

void free_buffers(const KernelSpec& k, Buffers& b) {
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    drv::cuMemFree(b.base[i]);
    if (k.buffers[i].output) drv::cuMemFree(b.head[i]);
  }
}

// The kernel's parameters with the buffers' addresses in place.
struct Args {
  std::vector<std::vector<unsigned char>> storage;
  std::vector<void*> pointers;
};
Args args_for(const LaunchSpec& launch, const std::vector<CUdeviceptr>& buffers) {
  Args a;
  for (const LaunchSpec::Param& p : launch.params) {
    std::vector<unsigned char> bytes = p.bytes;
    if (p.buffer >= 0) {
      CUdeviceptr ptr = buffers[p.buffer];
      std::memcpy(bytes.data(), &ptr, sizeof ptr);
    }
    a.storage.push_back(std::move(bytes));
  }
  for (auto& s : a.storage) a.pointers.push_back(s.data());
  return a;
}

void launch(CUfunction f, const LaunchSpec& l, Args& a, CUstream stream) {
  check(drv::cuLaunchKernel(f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                            l.shared_bytes, stream, a.pointers.data(), nullptr),
        "cuLaunchKernel");
}

double median(std::vector<double> v) {
  const size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (n % 2) return v[mid];
  return 0.5 * (*std::max_element(v.begin(), v.begin() + mid) + v[mid]);
}

// Percentile bootstrap of median(head) / median(base), each side resampled.
std::pair<double, double> bootstrap(const std::vector<double>& base,
                                    const std::vector<double>& head) {
  std::mt19937_64 rng(12345);
  std::vector<double> ratios, b(base.size()), h(head.size());
  for (int r = 0; r < 2000; ++r) {
    for (auto& x : b) x = base[rng() % base.size()];
    for (auto& x : h) x = head[rng() % head.size()];
    ratios.push_back(median(h) / median(b));
  }
  std::sort(ratios.begin(), ratios.end());
  return {ratios[size_t(0.005 * ratios.size())], ratios[size_t(0.995 * ratios.size()) - 1]};
}

// Compares the head's outputs with the base's; "" when they agree.
std::string compare_outputs(const KernelSpec& k, const Buffers& b) {
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    const BufferSpec& spec = k.buffers[i];
    if (!spec.output) continue;
    std::vector<unsigned char> base(size_t(spec.count) * spec.elem_size), head(base.size());
    check(drv::cuMemcpyDtoH(base.data(), b.base[i], base.size()), "cuMemcpyDtoH");
    check(drv::cuMemcpyDtoH(head.data(), b.head[i], head.size()), "cuMemcpyDtoH");
    for (int64_t e = 0; e < spec.count; ++e) {
      double x, y;
      if (spec.is_int) {
        x = reinterpret_cast<const int32_t*>(base.data())[e],
        y = reinterpret_cast<const int32_t*>(head.data())[e];
      } else {
        x = reinterpret_cast<const float*>(base.data())[e],
        y = reinterpret_cast<const float*>(head.data())[e];
      }
      if (!(std::fabs(y - x) <= k.atol + k.rtol * std::fabs(x)))
        return "element " + std::to_string(e) + " of '" + spec.name + "': head " +
               std::to_string(y) + ", base " + std::to_string(x);
    }
  }
  return "";
}

// The outputs of one side, into the host copies (for the spot check).
void read_outputs(const KernelSpec& k, const std::vector<CUdeviceptr>& d, Buffers& b) {
  for (size_t i = 0; i < k.buffers.size(); ++i)
    if (k.buffers[i].output)
      check(drv::cuMemcpyDtoH(b.host[i].data(), d[i], b.host[i].size()), "cuMemcpyDtoH");
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s)
    o += c == '"' ? std::string("\\\"") : c == '\\' ? std::string("\\\\") : std::string(1, c);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(
        stderr, "usage: ggml_harness SPEC_DIR [--json OUT] [--case \"SHORT ...\"] [--seconds S]\n");
    return 2;
  }
  std::string dir = argv[1], json_path, only_case;
  double seconds = 0.3;
  if (argc == 3 && std::string(argv[2]) == "--check-params") {
    try {
      return check_params(read_spec(dir));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ggml_harness: %s\n", e.what());
      return 1;
    }
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--json")
      json_path = argv[i + 1];
    else if (flag == "--case")
      only_case = argv[i + 1];
    else if (flag == "--seconds")
      seconds = std::atof(argv[i + 1]);
  }
  try {
    if (std::string why = drv::load(); !why.empty()) throw std::runtime_error(why);
    check(drv::cuInit(0), "cuInit");
    CUdevice dev;
    check(drv::cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check(drv::cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(drv::cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    char name[256];
    drv::cuDeviceGetName(name, sizeof name, dev);
    int sms = 0;
    drv::cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    std::printf("device: %s, %d SMs\n", name, sms);
    CUstream stream;
    check(drv::cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    // Written between samples so that neither side finds the other's data in L2 (60 MB).
    const size_t flush_bytes = size_t(256) << 20;
    CUdeviceptr flush;
    check(drv::cuMemAlloc(&flush, flush_bytes), "cuMemAlloc flush");
    harness_clock::KernelClock clock;
    if (std::string why = clock.start(); !why.empty())
      std::printf("kernel durations not recorded (%s): event timing only\n", why.c_str());
    CUevent start, stop;
    check(drv::cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    check(drv::cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");

    std::vector<CaseKernel> spec = read_spec(dir);
    std::string json = "{\"device\": \"" + json_escape(name) + "\", \"results\": [\n";
    bool first = true;
    for (CaseKernel& ck : spec) {
      if (!only_case.empty() &&
          (" " + only_case + " ").find(" " + ck.case_short + " ") == std::string::npos)
        continue;
      load(ck.base), load(ck.head);
      uint64_t seed = 1;
      for (const Shape& shape : shapes_of(ck.kernel)) {
        const KernelSpec kb = contract(ck.kernel, ck.base.era, shape, sms);
        const KernelSpec kh = contract(ck.kernel, ck.head.era, shape, sms);
        std::string problem = params_mismatch(kb, read_image(ck.base.cubin), ck.base.symbol);
        if (problem.empty())
          problem = params_mismatch(kh, read_image(ck.head.cubin), ck.head.symbol);
        for (size_t i = 0; i < kb.buffers.size() && problem.empty(); ++i)
          if (i >= kh.buffers.size() || kb.buffers[i].count != kh.buffers[i].count)
            problem = "the sides' buffers differ";
        if (!problem.empty()) {  // launching it would pass bytes the kernel does not expect
          std::printf("%-9s %-26s %-28s not run: %s\n", ck.case_short.c_str(), ck.kernel.c_str(),
                      shape.name.c_str(), problem.c_str());
          json += std::string(first ? "" : ",\n") + "{\"case\": \"" + ck.case_short +
                  "\", \"kernel\": \"" + ck.kernel + "\", \"shape\": \"" + shape.name +
                  "\", \"check\": \"" + json_escape(problem) + "\"}";
          first = false;
          continue;
        }
        Buffers b = make_buffers(kh, seed++);
        Args base_args = args_for(kb.launch, b.base), head_args = args_for(kh.launch, b.head);
        launch(ck.base.function, kb.launch, base_args, stream);
        launch(ck.head.function, kh.launch, head_args, stream);
        check(drv::cuStreamSynchronize(stream), "running the kernels");
        std::string verdict = compare_outputs(kh, b);
        // Spot check of both sides against the host: the first and last rows.
        for (int side = 0; side < 2 && verdict.empty(); ++side) {
          read_outputs(kh, side ? b.head : b.base, b);
          const int64_t rows = rows_of(ck.kernel, shape);
          for (int64_t row : {int64_t(0), rows - 1}) {
            if (rows <= 0) break;
            std::string why = spot_check(ck.kernel, shape, b.host, row, kh.atol, kh.rtol);
            if (!why.empty()) {
              verdict = std::string(side ? "head" : "base") + " against the host: " + why;
              break;
            }
          }
        }
        const std::string check_text = verdict.empty() ? "ok" : verdict;
        std::vector<double> tb, th, kb_s, kh_s;
        std::vector<bool> order;  // head side, per timed launch
        // Timed on one set of buffers: with each side on its own allocation, their
        // placement alone moved small shapes by up to 9% (an unchanged kernel timed
        // 0.913 on decode-64x4096).
        Args base_timed = args_for(kb.launch, b.head);
        if (shape.timed) {
          for (int w = 0; w < 3; ++w) {
            launch(ck.base.function, kb.launch, base_timed, stream);
            launch(ck.head.function, kh.launch, head_args, stream);
          }
          check(drv::cuStreamSynchronize(stream), "warm-up");
          clock.take();  // the checks' and warm-up's launches
          const auto begin = std::chrono::steady_clock::now();
          for (int round = 0; round < 2000; ++round) {
            for (int k = 0; k < 2; ++k) {
              const bool head_side = (round + k) % 2 == 1;  // alternate which side goes first
              check(drv::cuMemsetD32Async(flush, uint32_t(round), flush_bytes / 4, stream),
                    "flush");
              check(drv::cuEventRecord(start, stream), "cuEventRecord");
              order.push_back(head_side);
              if (head_side)
                launch(ck.head.function, kh.launch, head_args, stream);
              else
                launch(ck.base.function, kb.launch, base_timed, stream);
              check(drv::cuEventRecord(stop, stream), "cuEventRecord");
              check(drv::cuEventSynchronize(stop), "timing");
              float ms = 0;
              check(drv::cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
              (head_side ? th : tb).push_back(ms * 1e-3);
            }
            const double spent =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            if (round + 1 >= 50 && spent >= seconds) break;
          }
          const std::vector<double> d =
              harness_clock::durations_of(clock.take(), {ck.base.symbol, ck.head.symbol});
          if (d.size() == order.size())
            for (size_t i = 0; i < d.size(); ++i) (order[i] ? kh_s : kb_s).push_back(d[i]);
          else if (clock.recording())
            std::printf("kernel durations: %zu records for %zu launches, left out\n", d.size(),
                        order.size());
        }
        char line[768];
        if (shape.timed) {
          const double mb = median(tb), mh = median(th);
          const auto [lo, hi] = bootstrap(tb, th);
          std::string kernel_text = "  kernel -", kernel_json;
          if (!kb_s.empty() && !kh_s.empty()) {
            const double kmb = median(kb_s), kmh = median(kh_s);
            const auto [klo, khi] = bootstrap(kb_s, kh_s);
            char kt[160], kj[256];
            std::snprintf(kt, sizeof kt, "  kernel %.2f / %.2f us ratio %.3f [%.3f, %.3f]",
                          kmb * 1e6, kmh * 1e6, kmh / kmb, klo, khi);
            std::snprintf(kj, sizeof kj,
                          ", \"base_kernel_s\": %.9g, \"head_kernel_s\": %.9g, "
                          "\"kernel_ratio\": %.6f, \"kernel_low\": %.6f, \"kernel_high\": %.6f",
                          kmb, kmh, kmh / kmb, klo, khi);
            kernel_text = kt, kernel_json = kj;
          }
          std::snprintf(
              line, sizeof line,
              "%-9s %-26s %-28s base %9.2f us  head %9.2f us  ratio %.3f [%.3f, %.3f]%s  n=%zu  %s",
              ck.case_short.c_str(), ck.kernel.c_str(), shape.name.c_str(), mb * 1e6, mh * 1e6,
              mh / mb, lo, hi, kernel_text.c_str(), tb.size(), check_text.c_str());
          char j[1536];
          std::snprintf(j, sizeof j,
                        "%s{\"case\": \"%s\", \"kernel\": \"%s\", \"shape\": \"%s\", "
                        "\"base_median_s\": %.9g, "
                        "\"head_median_s\": %.9g, \"ratio\": %.6f, \"low\": %.6f, \"high\": %.6f, "
                        "\"samples\": %zu%s, "
                        "\"check\": \"%s\"}",
                        first ? "" : ",\n", ck.case_short.c_str(), ck.kernel.c_str(),
                        shape.name.c_str(), mb, mh, mh / mb, lo, hi, tb.size(), kernel_json.c_str(),
                        json_escape(check_text).c_str());
          json += j;
        } else {
          std::snprintf(line, sizeof line, "%-9s %-26s %-28s (checked, not timed)  %s",
                        ck.case_short.c_str(), ck.kernel.c_str(), shape.name.c_str(),
                        check_text.c_str());
          char j[768];
          std::snprintf(
              j, sizeof j,
              "%s{\"case\": \"%s\", \"kernel\": \"%s\", \"shape\": \"%s\", \"check\": \"%s\"}",
              first ? "" : ",\n", ck.case_short.c_str(), ck.kernel.c_str(), shape.name.c_str(),
              json_escape(check_text).c_str());
          json += j;
        }
        first = false;
        std::printf("%s\n", line);
        std::fflush(stdout);
        free_buffers(kh, b);
        // What is measured so far, in case a later launch takes the context down.
        if (!json_path.empty()) std::ofstream(json_path) << json << "\n]}\n";
      }
      drv::cuModuleUnload(ck.base.module), drv::cuModuleUnload(ck.head.module);
    }
    json += "\n]}\n";
    if (!json_path.empty()) std::ofstream(json_path) << json;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ggml_harness: %s\n", e.what());
    return 1;
  }
  return 0;
}
