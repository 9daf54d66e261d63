#include "runner/cuda/kernel_timestamps.h"

#include <cupti.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace kgate::cuda {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;  // a sample records two or three kernels

// Filled by CUPTI's callback; never destroyed, because CUPTI may hand over
// its last buffers while the process exits, after static destructors ran.
std::mutex& spans_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::vector<KernelSpan>& recorded() {
  static auto* spans = new std::vector<KernelSpan>;
  return *spans;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));  // CUPTI: 8-byte aligned
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::vector<KernelSpan> spans;
  CUpti_Activity* record = nullptr;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    spans.push_back({k->start, k->end});
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(spans_mutex());
  recorded().insert(recorded().end(), spans.begin(), spans.end());
}

std::string activity_error(const char* call, CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return std::string(call) + ": " + (text ? text : "CUPTI error " + std::to_string(r));
}

}  // namespace

KernelTimestamps& KernelTimestamps::instance() {
  static KernelTimestamps timestamps;
  return timestamps;
}

Status KernelTimestamps::begin() {
  if (!broken_.empty()) return Error::infrastructure(broken_);
  if (!registered_) {
    if (CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        r != CUPTI_SUCCESS) {
      broken_ = activity_error("cuptiActivityRegisterCallbacks", r);
      return Error::infrastructure(broken_);
    }
    registered_ = true;
  }
  {
    std::lock_guard<std::mutex> lock(spans_mutex());
    recorded().clear();
  }
  if (CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      r != CUPTI_SUCCESS) {
    broken_ = activity_error("cuptiActivityEnable", r);
    return Error::infrastructure(broken_);
  }
  return {};
}

Result<std::vector<KernelSpan>> KernelTimestamps::end() {
  CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (flushed != CUPTI_SUCCESS) {
    broken_ = activity_error("cuptiActivityFlushAll", flushed);
    return Error::infrastructure(broken_);
  }
  std::vector<KernelSpan> spans;
  {
    std::lock_guard<std::mutex> lock(spans_mutex());
    spans.swap(recorded());
  }
  std::sort(spans.begin(), spans.end(),
            [](const KernelSpan& a, const KernelSpan& b) { return a.start_ns < b.start_ns; });
  return spans;
}

}  // namespace kgate::cuda
