#include "kernel_clock.h"

#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace harness_clock {
namespace {

struct Cupti {
  decltype(&::cuptiActivityEnable) enable = nullptr;
  decltype(&::cuptiActivityDisable) disable = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&::cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&::cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&::cuptiGetResultString) result_string = nullptr;
};

Cupti& cupti() {
  static Cupti c;
  return c;
}

// CUPTI hands filled buffers to a plain function: the spans collect here.
// Never destroyed: CUPTI flushes its last buffers at exit, after static
// destructors have run (a destroyed vector here crashed the harness then).
std::mutex& spans_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::vector<KernelSpan>& completed() {
  static auto* spans = new std::vector<KernelSpan>;
  return *spans;
}

constexpr size_t kBufferBytes = size_t(8) << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // CUPTI wants 8-byte aligned buffers.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::vector<KernelSpan> got;
  while (valid > 0 && cupti().next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    got.push_back({k->name ? k->name : "", k->start, k->end});
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(spans_mutex());
  auto& all = completed();
  all.insert(all.end(), got.begin(), got.end());
}

std::string failed(const char* what, CUptiResult r) {
  const char* text = nullptr;
  if (cupti().result_string) cupti().result_string(r, &text);
  return std::string(what) + ": " + (text ? text : "CUPTI error " + std::to_string(int(r)));
}

}  // namespace

std::string KernelClock::start() {
  void* lib = nullptr;
  for (const char* name : {"libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so"})
    if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib) return std::string("cannot load libcupti: ") + dlerror();
  Cupti& c = cupti();
  c.enable = reinterpret_cast<decltype(c.enable)>(dlsym(lib, "cuptiActivityEnable"));
  c.disable = reinterpret_cast<decltype(c.disable)>(dlsym(lib, "cuptiActivityDisable"));
  c.register_callbacks = reinterpret_cast<decltype(c.register_callbacks)>(
      dlsym(lib, "cuptiActivityRegisterCallbacks"));
  c.flush_all = reinterpret_cast<decltype(c.flush_all)>(dlsym(lib, "cuptiActivityFlushAll"));
  c.next_record =
      reinterpret_cast<decltype(c.next_record)>(dlsym(lib, "cuptiActivityGetNextRecord"));
  c.result_string = reinterpret_cast<decltype(c.result_string)>(dlsym(lib, "cuptiGetResultString"));
  if (!c.enable || !c.disable || !c.register_callbacks || !c.flush_all || !c.next_record)
    return "libcupti lacks the activity API";
  if (CUptiResult r = c.register_callbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
    return failed("cuptiActivityRegisterCallbacks", r);
  if (CUptiResult r = c.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS)
    return failed("cuptiActivityEnable", r);
  recording_ = true;
  return "";
}

std::vector<KernelSpan> KernelClock::take() {
  if (!recording_) return {};
  cupti().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<KernelSpan> spans;
  {
    std::lock_guard<std::mutex> lock(spans_mutex());
    spans.swap(completed());
  }
  std::stable_sort(spans.begin(), spans.end(), [](const KernelSpan& a, const KernelSpan& b) {
    return a.start_ns < b.start_ns;
  });
  return spans;
}

KernelClock::~KernelClock() {
  if (recording_) cupti().disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

std::vector<double> durations_of(const std::vector<KernelSpan>& spans,
                                 const std::vector<std::string>& symbols) {
  std::vector<double> out;
  for (const KernelSpan& s : spans)
    if (std::find(symbols.begin(), symbols.end(), s.name) != symbols.end())
      out.push_back(s.seconds());
  return out;
}

}  // namespace harness_clock
