// candle_ab: times the base and head of each replayed candle commit, kernel by
// kernel and shape by shape, without kgate: both sides' cubins (nvcc -cubin
// -arch=sm_90 of the replay repository's files at the two tags) are loaded in
// one process and launched on the same input buffers as candle's launchers of
// each revision launch them (families.h), interleaved, with CUDA events.
//
//   candle_ab SPEC CUBIN_DIR OUT.tsv [--case ID] [--kernel NAME] [--seconds S]
//             [--copies N] [--settle-us N] [--spacer 0|1] [--flush-mb N]
//             [--sync-each 0|1] [--gap-us N] [--wait-kernel 0|1] [--cupti-each 0|1]
//             [--pad-kb N]
//
// For every shape: each side is checked once (its output against a host
// check in double on sampled elements, and 4 KiB past the output's end for
// stray writes), then, when both sides run, timed: warm-up, rounds of one
// launch per side in alternating order, each launch behind a 128 MiB memset
// that evicts the 50 MiB L2 (and keeps the launch queued behind work, so the
// host's launch latency is not timed), until both sides have >= 50 samples and
// S seconds (default 0.25) have passed, or 400 rounds. Round r uses set r % N
// of the input and output buffers (both sides the same set); by default N is
// kgate's (runner/timing_schedule.cpp): as many as fit twice the L2, plus one, at
// most 16. A one-warp rmsnorm row timed 11% faster over 4 sets than on one
// (../README.md): where a small kernel's inputs lie in memory moves it.
//
// The other options are experiments on what precedes the timed kernel
// (../README.md says what each showed on the H200): --settle-us N holds each
// launch (cuStreamWaitValue32 on a host flag) until N microseconds after its
// memset finished, --spacer 1 puts an empty kernel between them, --flush-mb sets
// the memset's size, --sync-each 1 waits for every sample (then --gap-us N more
// microseconds), --wait-kernel 1 holds each sample behind a spinning kernel, and
// --cupti-each 1 (with --sync-each 1) flushes CUPTI's records after every sample
// as kgate did before it queued its flush behind its wait kernel; --pad-kb N
// allocates N KiB before each shape's buffers, so that they lie elsewhere. The line per shape:
// medians, head/base with a bootstrap 99% interval, the same from the kernels'
// own GPU durations (CUPTI activity records, ../../harness_clock: the events'
// fixed cost dilutes a few-microsecond kernel's ratio), each side's status and
// whether the two outputs agree. The durations' columns are 10% trimmed means,
// not medians: the records tick in 32 ns, a median of them sits on a tick, and
// on a 1.5 us kernel one tick is 2% of the ratio.
#include <cuda.h>

#include "kernel_clock.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.h"
#include "families.h"

namespace candle_ab {
namespace {

void ck(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* msg = nullptr;
  driver().cuGetErrorString(r, &msg);
  throw std::runtime_error(std::string(what) + ": " + (msg ? msg : "CUDA error"));
}

struct Side {
  std::string tag, file, entry, variant;  // file "-": the side is not there (a new kernel)
};
struct KernelSpec {
  std::string name, family, dtype;
  Side base, head;
  std::vector<Shape> shapes;
};
struct CaseSpec {
  std::string id;
  std::vector<KernelSpec> kernels;
};

// The spec: "case ID", "kernel NAME FAMILY DTYPE", "base TAG FILE ENTRY VARIANT",
// "head ...", "shape NAME key=value ... [untimed]"; '#' starts a comment.
std::vector<CaseSpec> read_spec(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<CaseSpec> cases;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    auto fail = [&](const std::string& why) {
      throw std::runtime_error(path + ":" + std::to_string(n) + ": " + why);
    };
    if (word == "case") {
      cases.push_back({});
      words >> cases.back().id;
    } else if (word == "kernel") {
      if (cases.empty()) fail("kernel before case");
      KernelSpec k;
      words >> k.name >> k.family >> k.dtype;
      cases.back().kernels.push_back(k);
    } else if (word == "base" || word == "head") {
      if (cases.empty() || cases.back().kernels.empty()) fail(word + " before kernel");
      Side& s =
          word == "base" ? cases.back().kernels.back().base : cases.back().kernels.back().head;
      if (!(words >> s.tag >> s.file >> s.entry >> s.variant))
        fail("expected TAG FILE ENTRY VARIANT");
    } else if (word == "shape") {
      if (cases.empty() || cases.back().kernels.empty()) fail("shape before kernel");
      Shape sh;
      words >> sh.name;
      while (words >> word) {
        if (word == "untimed") {
          sh.timed = false;
          continue;
        }
        auto eq = word.find('=');
        if (eq == std::string::npos) fail("expected key=value, got " + word);
        sh.v[word.substr(0, eq)] = std::stoll(word.substr(eq + 1));
      }
      cases.back().kernels.back().shapes.push_back(sh);
    } else {
      fail("unknown line " + word);
    }
  }
  return cases;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// The mean of what is left after the lowest and the highest 10%.
double trimmed_mean(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t cut = v.size() / 10;
  double sum = 0;
  for (size_t i = cut; i < v.size() - cut; ++i) sum += v[i];
  return sum / double(v.size() - 2 * cut);
}

// 99% interval of centre(head) / centre(base), resampling each side.
template <typename Centre>
std::pair<double, double> bootstrap(const std::vector<double>& base,
                                    const std::vector<double>& head, Centre centre) {
  std::mt19937_64 rng(12345);
  std::vector<double> ratios, b(base.size()), h(head.size());
  for (int r = 0; r < 2000; ++r) {
    for (auto& x : b) x = base[rng() % base.size()];
    for (auto& x : h) x = head[rng() % head.size()];
    ratios.push_back(centre(h) / centre(b));
  }
  std::sort(ratios.begin(), ratios.end());
  return {ratios[size_t(0.005 * ratios.size())], ratios[size_t(0.995 * ratios.size()) - 1]};
}

constexpr size_t kGuard = 4096;
constexpr uint8_t kGuardByte = 0xA5, kPoison = 0xFF;
constexpr size_t kFlushBytes = size_t(128) << 20;  // the default; --flush-mb sets it

struct Loaded {
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  std::string symbol;
  std::string error;  // why the side cannot run: no cubin (does not compile), no entry
};

Loaded load(const std::string& cubin_dir, const Side& s) {
  Loaded l;
  if (s.file == "-") return l.error = "absent", l;
  const std::string path = cubin_dir + "/" + s.tag + "/" + s.file + ".cubin";
  std::ifstream in(path, std::ios::binary);
  if (!in) return l.error = "does not compile (no " + s.tag + "/" + s.file + ".cubin)", l;
  std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (driver().cuModuleLoadData(&l.module, image.data()) != CUDA_SUCCESS)
    return l.error = "cuModuleLoadData failed", l;
  if (driver().cuModuleGetFunction(&l.fn, l.module, s.entry.c_str()) != CUDA_SUCCESS)
    return l.error = "no entry " + s.entry, l;
  l.symbol = s.entry;
  return l;
}

void launch(const Loaded& l, const Launch& spec, CUstream stream) {
  std::vector<void*> args;
  for (const Param& p : spec.params) args.push_back(const_cast<uint64_t*>(&p.slot));
  ck(driver().cuLaunchKernel(l.fn, spec.grid, 1, 1, spec.block, 1, 1, 0, stream, args.data(),
                             nullptr),
     "cuLaunchKernel");
}

struct SideRun {
  std::string status = "ok";  // or why the side's output is wrong / it did not run
  std::vector<uint8_t> out;
};

// One checked run: poisoned output, guard after it, host check.
SideRun checked(const Family& fam, const Loaded& l, const std::string& variant, const Shape& s,
                const Problem& p, CUdeviceptr out, size_t out_bytes) {
  SideRun r;
  if (!l.error.empty()) return r.status = l.error, r;
  ck(driver().cuMemsetD8(out, kPoison, out_bytes), "poison");
  ck(driver().cuMemsetD8(out + out_bytes, kGuardByte, kGuard), "guard");
  try {
    launch(l, fam.launch(variant, s, p, out), nullptr);
  } catch (const std::exception& e) {
    return r.status = std::string("cannot launch: ") + e.what(), r;
  }
  if (CUresult e = driver().cuCtxSynchronize(); e != CUDA_SUCCESS) {
    const char* msg = nullptr;
    driver().cuGetErrorString(e, &msg);
    throw std::runtime_error(std::string("kernel failed: ") + (msg ? msg : "?"));
  }
  r.out.resize(out_bytes + kGuard);
  ck(driver().cuMemcpyDtoH(r.out.data(), out, out_bytes + kGuard), "download");
  for (size_t i = 0; i < kGuard; ++i)
    if (r.out[out_bytes + i] != kGuardByte)
      return r.status =
                 "wrote past the end of the output (byte " + std::to_string(i) + " after it)",
             r;
  r.out.resize(out_bytes);
  if (std::string why = fam.check(s, p, r.out.data()); !why.empty()) r.status = "wrong: " + why;
  return r;
}

std::string agreement(const Family& fam, const Problem& p, const SideRun& a, const SideRun& b) {
  if (a.out.empty() || b.out.empty()) return "-";
  if (a.out == b.out) return "identical";
  double worst = 0;
  for (size_t i = 0; i < p.out_count; ++i) {
    const double x = elem_value(p.out_elem, a.out.data(), i),
                 y = elem_value(p.out_elem, b.out.data(), i);
    if (std::isnan(x) && std::isnan(y)) continue;
    const double excess = std::fabs(x - y) / (fam.atol() + fam.rtol() * std::fabs(y) + 1e-300);
    if (!(excess <= worst)) worst = std::isnan(excess) ? INFINITY : excess;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s(%.2g of tol)", worst <= 1 ? "within-tol" : "DIFFER", worst);
  return buf;
}

struct Timing {
  std::vector<double> base, head;
  std::vector<double> base_kernel, head_kernel;  // empty where not recorded
};

// Never destroyed: its destructor would call into libcupti after libcupti's own
// exit handlers ran (it is opened after this is made), which crashed at exit.
harness_clock::KernelClock& kernel_clock() {
  static auto* clock = new harness_clock::KernelClock;
  return *clock;
}

// What time_sides is told: how long to time, and how long a launch waits after the flush.
struct TimingPlan {
  double seconds = 0.25;
  int settle_us = 0;
  size_t flush_bytes = kFlushBytes;  // 0: no flush
  bool spacer = false;               // an empty kernel between the flush and the timed launch
  CUfunction spacer_fn = nullptr;
  bool sync_each = false;    // wait for each timed launch before queuing the next flush
  bool wait_kernel = false;  // hold each timed launch behind a kernel spinning on a host flag
  CUfunction wait_fn = nullptr;
  // Sets of input and output buffers, used round by round in turn (both sides on the same
  // set in a round); 0: kgate's rule, as many as fit twice the L2 plus one, at most 16.
  int copies = 0;
  int gap_us = 0;  // with sync_each: the host waits this long after each timed launch finished
  bool cupti_each = false;  // with sync_each: CUPTI's records flushed after each sample
  size_t l2_bytes = 0;      // the device's, for the number of copies
  size_t pad_bytes = 0;     // allocated before each shape's buffers, to move where they lie
};

// A kernel of the harness's own, JIT-compiled by the driver from PTX, in the
// current context (each kernel of the spec gets a fresh one).
CUfunction load_ptx_kernel(const char* ptx, const char* entry) {
  CUmodule m;
  ck(driver().cuModuleLoadData(&m, ptx), entry);
  CUfunction f;
  ck(driver().cuModuleGetFunction(&f, m, entry), entry);
  return f;
}

// An empty kernel.
CUfunction load_spacer_kernel() {
  return load_ptx_kernel(
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry candle_ab_spacer()\n{\n\tret;\n}\n",
      "candle_ab_spacer");
}

// One thread spinning until a word of host memory reaches `value`: the launch
// queued behind it starts as soon as the host writes the word.
CUfunction load_wait_kernel() {
  return load_ptx_kernel(
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry candle_ab_wait(.param .u64 flag, .param .u32 value)\n{\n"
      "\t.reg .u64 %rd<2>;\n\t.reg .u32 %r<3>;\n\t.reg .pred %p<2>;\n"
      "\tld.param.u64 %rd0, [flag];\n\tld.param.u32 %r1, [value];\n"
      "SPIN:\n\tld.volatile.global.u32 %r0, [%rd0];\n"
      "\tsetp.lt.u32 %p0, %r0, %r1;\n\t@%p0 bra SPIN;\n\tret;\n}\n",
      "candle_ab_wait");
}

// A word of host memory the GPU can read: the stream waits on it (cuStreamWaitValue32)
// and the host writes it when the launch may start.
class HostFlag {
 public:
  HostFlag() {
    void* p = nullptr;
    ck(driver().cuMemHostAlloc(&p, sizeof(uint32_t), CU_MEMHOSTALLOC_DEVICEMAP), "host flag");
    word_ = static_cast<volatile uint32_t*>(p);
    *word_ = 0;
    ck(driver().cuMemHostGetDevicePointer(&device_, p, 0), "host flag's device address");
  }
  ~HostFlag() { driver().cuMemFreeHost(const_cast<uint32_t*>(word_)); }
  HostFlag(const HostFlag&) = delete;
  HostFlag& operator=(const HostFlag&) = delete;
  // Queues a wait for the next value; release() writes it.
  void hold(CUstream stream) {
    ck(driver().cuStreamWaitValue32(stream, device_, ++value_, CU_STREAM_WAIT_VALUE_GEQ),
       "cuStreamWaitValue32");
  }
  void release() { __atomic_store_n(const_cast<uint32_t*>(word_), value_, __ATOMIC_SEQ_CST); }
  // Queues the wait kernel for the next value instead of a stream wait.
  void hold_with_kernel(CUfunction wait_fn, CUstream stream) {
    uint64_t address = device_;
    uint32_t value = ++value_;
    void* params[] = {&address, &value};
    ck(driver().cuLaunchKernel(wait_fn, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr),
       "wait kernel");
  }

 private:
  volatile uint32_t* word_ = nullptr;
  CUdeviceptr device_ = 0;
  uint32_t value_ = 0;
};

// Returns once `flushed` completed and then `settle_us` more microseconds passed.
void settle_after(CUevent flushed, int settle_us) {
  CUresult r;
  while ((r = driver().cuEventQuery(flushed)) == CUDA_ERROR_NOT_READY) {
  }
  ck(r, "cuEventQuery");
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(settle_us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// lb[c] and lh[c]: each side's launch on copy c of the buffers (round r uses copy r % copies).
Timing time_sides(const Loaded& base, const std::vector<Launch>& lb, const Loaded& head,
                  const std::vector<Launch>& lh, CUdeviceptr flush, CUstream stream,
                  const TimingPlan& plan) {
  Timing t;
  const bool settle = plan.settle_us > 0;
  std::unique_ptr<HostFlag> flag;
  CUevent flushed = nullptr;
  if (settle || plan.wait_fn) flag = std::make_unique<HostFlag>();
  if (settle) ck(driver().cuEventCreate(&flushed, CU_EVENT_DEFAULT), "cuEventCreate");
  for (int w = 0; w < 3; ++w) {
    launch(base, lb[w % lb.size()], stream);
    launch(head, lh[w % lh.size()], stream);
  }
  ck(driver().cuStreamSynchronize(stream), "warm-up");
  kernel_clock().take();                         // the checks' and warm-up's launches
  std::vector<bool> order;                       // base side, per timed launch
  std::vector<harness_clock::KernelSpan> spans;  // with cupti_each
  const int batch = 10;
  std::vector<CUevent> ev(4 * batch);
  for (auto& e : ev) ck(driver().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 400; round += batch) {
    for (int i = 0; i < batch; ++i) {
      // Every set is read with either side first as often: with an even number of sets,
      // plain alternation would give each set one order, so it flips once per pass.
      const int r = round + i, sets = int(lb.size());
      const bool base_first = (r + (sets % 2 == 0 ? r / sets : 0)) % 2 == 0;
      const size_t copy = size_t(r % sets);
      for (int k = 0; k < 2; ++k) {
        const bool is_base = (k == 0) == base_first;
        if (plan.flush_bytes)
          ck(driver().cuMemsetD32Async(flush, uint32_t(round + i), plan.flush_bytes / 4, stream),
             "flush");
        if (settle) {
          ck(driver().cuEventRecord(flushed, stream), "record");
          flag->hold(stream);
        } else if (plan.wait_fn) {
          flag->hold_with_kernel(plan.wait_fn, stream);
        }
        if (plan.spacer_fn)
          ck(driver().cuLaunchKernel(plan.spacer_fn, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr),
             "spacer");
        const int slot = 4 * i + (is_base ? 0 : 2);
        ck(driver().cuEventRecord(ev[slot], stream), "record");
        order.push_back(is_base);
        launch(is_base ? base : head, is_base ? lb[copy] : lh[copy], stream);
        ck(driver().cuEventRecord(ev[slot + 1], stream), "record");
        if (settle) settle_after(flushed, plan.settle_us);
        if (flag) flag->release();
        if (plan.sync_each) {
          ck(driver().cuStreamSynchronize(stream), "timing");
          if (plan.cupti_each)
            for (auto& sp : kernel_clock().take()) spans.push_back(sp);
          const auto until =
              std::chrono::steady_clock::now() + std::chrono::microseconds(plan.gap_us);
          while (std::chrono::steady_clock::now() < until) {
          }
        }
      }
    }
    ck(driver().cuStreamSynchronize(stream), "timing");
    for (int i = 0; i < batch; ++i) {
      float ms;
      ck(driver().cuEventElapsedTime(&ms, ev[4 * i], ev[4 * i + 1]), "elapsed");
      t.base.push_back(ms * 1e-3);
      ck(driver().cuEventElapsedTime(&ms, ev[4 * i + 2], ev[4 * i + 3]), "elapsed");
      t.head.push_back(ms * 1e-3);
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t.base.size() >= 50 && elapsed >= plan.seconds) break;
  }
  for (auto& e : ev) driver().cuEventDestroy(e);
  if (flushed) driver().cuEventDestroy(flushed);
  for (auto& sp : kernel_clock().take()) spans.push_back(sp);
  const std::vector<double> d = harness_clock::durations_of(spans, {base.symbol, head.symbol});
  if (d.size() == order.size())
    for (size_t i = 0; i < d.size(); ++i)
      (order[i] ? t.base_kernel : t.head_kernel).push_back(d[i]);
  else if (kernel_clock().recording())
    std::fprintf(stderr, "kernel durations: %zu records for %zu launches, left out\n", d.size(),
                 order.size());
  return t;
}

void run_kernel(const KernelSpec& k, const std::string& case_id, const std::string& cubin_dir,
                TimingPlan plan, std::FILE* out) {
  if (plan.spacer) plan.spacer_fn = load_spacer_kernel();
  if (plan.wait_kernel) plan.wait_fn = load_wait_kernel();
  auto fam = make_family(k.family, k.dtype);
  Loaded base = load(cubin_dir, k.base), head = load(cubin_dir, k.head);
  CUstream stream;
  ck(driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUdeviceptr flush;
  ck(driver().cuMemAlloc(&flush, std::max<size_t>(plan.flush_bytes, 4)), "flush buffer");
  uint64_t seed = 1;
  for (const Shape& s : k.shapes) {
    Problem p = fam->make(s, seed++);
    CUdeviceptr pad = 0;
    if (plan.pad_bytes) ck(driver().cuMemAlloc(&pad, plan.pad_bytes), "padding");
    for (Input& in : p.inputs) {
      ck(driver().cuMemAlloc(&in.dev, std::max<size_t>(in.host.size(), 1)), "input");
      ck(driver().cuMemcpyHtoD(in.dev, in.host.data(), in.host.size()), "upload");
    }
    const size_t out_bytes = p.out_count * elem_bytes(p.out_elem);
    CUdeviceptr dev_out;
    ck(driver().cuMemAlloc(&dev_out, out_bytes + kGuard), "output");
    SideRun rb = checked(*fam, base, k.base.variant, s, p, dev_out, out_bytes);
    SideRun rh = checked(*fam, head, k.head.variant, s, p, dev_out, out_bytes);
    std::string line = case_id + "\t" + k.name + "\t" + s.name;
    // Timed when both sides ran and stayed within their buffers (a wrong base is still timed).
    const bool runs_b = base.error.empty() && rb.status.rfind("wrote past", 0) != 0;
    const bool runs_h = head.error.empty() && rh.status.rfind("wrote past", 0) != 0;
    char buf[256];
    if (s.timed && runs_b && runs_h) {
      // Copy 0 is the checked buffers; the others hold the same inputs.
      std::vector<Launch> lb, lh;
      std::vector<CUdeviceptr> extra;
      int copies = plan.copies;
      if (copies == 0) {  // runner/timing_schedule.cpp's input_copies, on this harness's buffers
        size_t per_copy = out_bytes;
        for (const Input& in : p.inputs) per_copy += in.host.size();
        per_copy = std::max<size_t>(per_copy, 1);
        copies = int(std::clamp<size_t>(2 * plan.l2_bytes / per_copy + 1, 1, 16));
        if (per_copy * copies > (size_t{4} << 30)) copies = 1;
      }
      for (int c = 0; c < copies; ++c) {
        Problem pc;  // copy c's device addresses (the host bytes are p's)
        const Problem* use = &p;
        CUdeviceptr out_c = dev_out;
        if (c > 0) {
          pc = p;
          use = &pc;
          for (Input& in : pc.inputs) {
            ck(driver().cuMemAlloc(&in.dev, std::max<size_t>(in.host.size(), 1)), "input copy");
            ck(driver().cuMemcpyHtoD(in.dev, in.host.data(), in.host.size()), "upload");
            extra.push_back(in.dev);
          }
          ck(driver().cuMemAlloc(&out_c, out_bytes + kGuard), "output copy");
          extra.push_back(out_c);
        }
        lb.push_back(fam->launch(k.base.variant, s, *use, out_c));
        lh.push_back(fam->launch(k.head.variant, s, *use, out_c));
      }
      Timing t = time_sides(base, lb, head, lh, flush, stream, plan);
      for (CUdeviceptr x : extra) driver().cuMemFree(x);
      const double mb = median(t.base), mh = median(t.head);
      auto [lo, hi] = bootstrap(t.base, t.head, median);
      std::snprintf(buf, sizeof buf, "\t%.3f\t%.3f\t%.4f\t%.4f\t%.4f\t%zu", mb * 1e6, mh * 1e6,
                    mh / mb, lo, hi, t.base.size());
      line += buf;
      if (!t.base_kernel.empty() && !t.head_kernel.empty()) {
        const double kb = trimmed_mean(t.base_kernel), kh = trimmed_mean(t.head_kernel);
        auto [klo, khi] = bootstrap(t.base_kernel, t.head_kernel, trimmed_mean);
        std::snprintf(buf, sizeof buf, "\t%.3f\t%.3f\t%.4f\t%.4f\t%.4f", kb * 1e6, kh * 1e6,
                      kh / kb, klo, khi);
        line += buf;
      } else {
        line += "\t-\t-\t-\t-\t-";
      }
    } else {
      line += "\t-\t-\t-\t-\t-\t0\t-\t-\t-\t-\t-";
    }
    line += "\t" + rb.status + "\t" + rh.status + "\t" + agreement(*fam, p, rh, rb);
    std::fprintf(out, "%s\n", line.c_str());
    std::fflush(out);
    std::fprintf(stderr, "%s\n", line.c_str());
    driver().cuMemFree(dev_out);
    for (Input& in : p.inputs) driver().cuMemFree(in.dev);
    if (pad) driver().cuMemFree(pad);
  }
  driver().cuMemFree(flush);
  driver().cuStreamDestroy(stream);
  if (base.module) driver().cuModuleUnload(base.module);
  if (head.module) driver().cuModuleUnload(head.module);
}

// Each side's launch on every shape, without a GPU: "case kernel shape side grid block
// sizes info", the sizes in bytes of the parameters in order and the layout the kernel is
// given ("-": none, or NULL). The bench.candle test compares them with kgate.json's arguments
// and launch at the side's tag.
void describe(const std::vector<CaseSpec>& cases) {
  set_fill_inputs(false);
  for (const CaseSpec& c : cases)
    for (const KernelSpec& k : c.kernels) {
      auto fam = make_family(k.family, k.dtype);
      for (const Shape& s : k.shapes) {
        Problem p = fam->make(s, 0);
        // A recognizable address for info, so that a NULL one shows.
        std::string info = "-";
        for (Input& in : p.inputs)
          if (in.name == "info") {
            in.dev = 0x7fffdead0000;
            info.clear();
            for (size_t i = 0; i < in.host.size() / 8; ++i) {
              uint64_t v;
              std::memcpy(&v, in.host.data() + 8 * i, 8);
              info += (i ? "," : "") + std::to_string(v);
            }
          }
        for (const Side* side : {&k.base, &k.head}) {
          if (side->file == "-") continue;
          Launch l = fam->launch(side->variant, s, p, 0);
          std::string sizes;
          bool null_info = info != "-";
          for (const Param& param : l.params) {
            sizes += (sizes.empty() ? "" : ",") + std::to_string(param.size);
            if (param.slot == 0x7fffdead0000) null_info = false;
          }
          std::printf("%s %s %s %s %u %u %s %s\n", c.id.c_str(), k.name.c_str(), s.name.c_str(),
                      side == &k.base ? "base" : "head", l.grid, l.block, sizes.c_str(),
                      null_info ? "NULL" : info.c_str());
        }
      }
    }
}

}  // namespace
}  // namespace candle_ab

int main(int argc, char** argv) {
  using namespace candle_ab;
  if (argc == 3 && std::string(argv[1]) == "--describe") {
    try {
      describe(read_spec(argv[2]));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "candle_ab: %s\n", e.what());
      return 1;
    }
    return 0;
  }
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: candle_ab SPEC CUBIN_DIR OUT.tsv [--case ID] [--kernel NAME]\n"
                 "                 [--seconds S] [--settle-us N] [--spacer 0|1]\n"
                 "                 [--flush-mb N] [--copies N] [--sync-each 0|1] [--gap-us N]\n"
                 "                 [--wait-kernel 0|1] [--cupti-each 0|1] [--pad-kb N]\n"
                 "       candle_ab --describe SPEC\n");
    return 2;
  }
  std::string only, only_kernel;
  TimingPlan plan;
  for (int i = 4; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "candle_ab: %s needs a value\n", flag.c_str());
      return 2;
    }
    if (flag == "--case")
      only = argv[i + 1];
    else if (flag == "--kernel")
      only_kernel = argv[i + 1];
    else if (flag == "--seconds")
      plan.seconds = std::atof(argv[i + 1]);
    else if (flag == "--settle-us")
      plan.settle_us = std::atoi(argv[i + 1]);
    else if (flag == "--flush-mb")
      plan.flush_bytes = size_t(std::atoi(argv[i + 1])) << 20;
    else if (flag == "--spacer")
      plan.spacer = std::string(argv[i + 1]) == "1";
    else if (flag == "--sync-each")
      plan.sync_each = std::string(argv[i + 1]) == "1";
    else if (flag == "--wait-kernel")
      plan.wait_kernel = std::string(argv[i + 1]) == "1";
    else if (flag == "--cupti-each")
      plan.cupti_each = std::string(argv[i + 1]) == "1";
    else if (flag == "--gap-us")
      plan.gap_us = std::atoi(argv[i + 1]);
    else if (flag == "--copies")
      plan.copies = std::max(0, std::atoi(argv[i + 1]));
    else if (flag == "--pad-kb")
      plan.pad_bytes = size_t(std::max(0, std::atoi(argv[i + 1]))) << 10;
    else {
      std::fprintf(stderr, "candle_ab: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    auto cases = read_spec(argv[1]);
    std::FILE* out = std::fopen(argv[3], "w");
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[3]);
    std::fprintf(out,
                 "case\tkernel\tshape\tbase_us\thead_us\tratio\tci_lo\tci_hi\tsamples\t"
                 "base_kernel_us\thead_kernel_us\tkernel_ratio\tkernel_ci_lo\tkernel_ci_hi\t"
                 "base_status\thead_status\tagree\n");
    std::fflush(out);  // a run cut short still leaves a file that names its columns
    if (std::string why = driver().load(); !why.empty()) throw std::runtime_error(why);
    if (std::string why = kernel_clock().start(); !why.empty())
      std::fprintf(stderr, "kernel durations not recorded (%s): event timing only\n", why.c_str());
    ck(driver().cuInit(0), "cuInit");
    CUdevice dev;
    ck(driver().cuDeviceGet(&dev, 0), "cuDeviceGet");
    char name[256];
    driver().cuDeviceGetName(name, sizeof name, dev);
    std::fprintf(stderr, "candle_ab on %s\n", name);
    int l2 = 0;
    ck(driver().cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev), "L2 size");
    plan.l2_bytes = size_t(l2);
    for (const CaseSpec& c : cases) {
      if (!only.empty() && c.id != only) continue;
      for (const KernelSpec& k : c.kernels) {
        if (!only_kernel.empty() && k.name != only_kernel) continue;
        // The primary context, reset after each kernel: a side that faults cannot take the
        // next kernel with it.
        CUcontext ctx;
        ck(driver().cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
        ck(driver().cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
        try {
          run_kernel(k, c.id, argv[2], plan, out);
        } catch (const std::exception& e) {
          std::fprintf(out, "%s\t%s\t*\t-\t-\t-\t-\t-\t0\t-\t-\t-\t-\t-\terror: %s\terror\t-\n",
                       c.id.c_str(), k.name.c_str(), e.what());
          std::fprintf(stderr, "%s %s: %s\n", c.id.c_str(), k.name.c_str(), e.what());
        }
        driver().cuDevicePrimaryCtxRelease(dev);
        driver().cuDevicePrimaryCtxReset(dev);
      }
    }
    std::fclose(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "candle_ab: %s\n", e.what());
    return 1;
  }
  return 0;
}
