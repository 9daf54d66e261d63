// libkgate_trace.so: the launch tracer `kgate extract` injects into a
// workload. Loaded by the CUDA driver through CUDA_INJECTION64_PATH (entry
// point InitializeInjection) and by NVTX through NVTX_INJECTION64_PATH
// (InitializeInjectionNvtx2). It records every kernel's execution (CUPTI
// activity: name, start, end, grid, block, stream) and the NVTX range stack
// of the host thread at the moment of the launch (matched by CUPTI
// correlation id), and writes them as JSON to $KGATE_TRACE_FILE at exit.
//
// It handles NVTX push/pop itself rather than through CUPTI's NVTX support:
// the attribution needs only the range stack at launch time, and it keeps
// working where CUPTI's NVTX handling misbehaves (NVIDIA/NVTX#125, CUDA 13.0).
// Format: docs/workload.md ("Launch traces").
#include <cupti.h>
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct Launch {
  std::string name;
  uint64_t start = 0, end = 0;
  uint32_t grid[3] = {}, block[3] = {};
  uint32_t stream = 0, correlation = 0;
};

std::mutex mu;
std::vector<std::string> range_paths;  // "prefill", "decode/layer0": index = id
std::unordered_map<std::string, int> range_ids;
std::unordered_map<uint32_t, int> launch_range;  // correlation id -> range id (-1: none)
std::unordered_map<uint32_t, bool> is_launch_cache;
std::vector<Launch> launches;
std::atomic<long> nvtx_pushes{0};
std::atomic<long> dropped_records{0};
thread_local std::vector<std::string> stack;
thread_local int current_range = -1;

void update_current_range() {
  if (stack.empty()) {
    current_range = -1;
    return;
  }
  std::string path;
  for (const std::string& s : stack) path += (path.empty() ? "" : "/") + s;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, inserted] = range_ids.emplace(path, int(range_paths.size()));
  if (inserted) range_paths.push_back(path);
  current_range = it->second;
}

int push(const char* message) {
  stack.push_back(message ? message : "(unnamed)");
  nvtx_pushes++;
  update_current_range();
  return int(stack.size()) - 1;
}

int pop() {
  if (stack.empty()) return -1;
  stack.pop_back();
  update_current_range();
  return int(stack.size());
}

const char* attrib_message(const nvtxEventAttributes_t* a) {
  if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII) return a->message.ascii;
  return "(non-ascii range)";
}

int NVTX_API range_push_a(const char* message) {
  return push(message);
}
int NVTX_API range_push_ex(const nvtxEventAttributes_t* a) {
  return push(attrib_message(a));
}
int NVTX_API range_pop() {
  return pop();
}
int NVTX_API domain_range_push_ex(nvtxDomainHandle_t, const nvtxEventAttributes_t* a) {
  return push(attrib_message(a));
}
int NVTX_API domain_range_pop(nvtxDomainHandle_t) {
  return pop();
}

bool is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  uint32_t key = (uint32_t(domain) << 16) | cbid;
  auto it = is_launch_cache.find(key);
  if (it != is_launch_cache.end()) return it->second;
  const char* name = nullptr;
  cuptiGetCallbackName(domain, cbid, &name);
  bool launch = name && std::strstr(name, "Launch") && !std::strstr(name, "Host");
  is_launch_cache.emplace(key, launch);
  return launch;
}

void CUPTIAPI on_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite != CUPTI_API_ENTER) return;
  int range = current_range;
  std::lock_guard<std::mutex> lock(mu);
  if (!is_launch(domain, cbid)) return;
  launch_range[info->correlationId] = range;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::vector<Launch> got;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_KERNEL &&
        record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
      continue;
    auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    Launch l;
    l.name = k->name ? k->name : "(unnamed)";
    l.start = k->start;
    l.end = k->end;
    l.grid[0] = k->gridX, l.grid[1] = k->gridY, l.grid[2] = k->gridZ;
    l.block[0] = k->blockX, l.block[1] = k->blockY, l.block[2] = k->blockZ;
    l.stream = k->streamId;
    l.correlation = k->correlationId;
    got.push_back(std::move(l));
  }
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  dropped_records += long(dropped);
  std::free(buffer);
  std::lock_guard<std::mutex> lock(mu);
  for (Launch& l : got) launches.push_back(std::move(l));
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

void write_trace() {
  cuptiActivityFlushAll(1);
  const char* path = std::getenv("KGATE_TRACE_FILE");
  if (!path || !*path) path = "kgate-trace.json";
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "kgate trace: cannot write %s: %s\n", path, std::strerror(errno));
    return;
  }
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(f, "{\"version\": 1, \"tool\": \"kgate-trace\", \"nvtx_pushes\": %ld, ",
               nvtx_pushes.load());
  std::fprintf(f, "\"dropped_records\": %ld,\n\"launches\": [\n", dropped_records.load());
  for (size_t i = 0; i < launches.size(); ++i) {
    const Launch& l = launches[i];
    auto it = launch_range.find(l.correlation);
    int range = it == launch_range.end() ? -1 : it->second;
    std::fprintf(f,
                 "{\"name\": %s, \"start_ns\": %llu, \"end_ns\": %llu, \"grid\": [%u, %u, %u], "
                 "\"block\": [%u, %u, %u], \"stream\": %u, \"range\": %s}%s\n",
                 json_string(l.name).c_str(), (unsigned long long)l.start,
                 (unsigned long long)l.end, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                 l.block[2], l.stream, range < 0 ? "null" : json_string(range_paths[range]).c_str(),
                 i + 1 < launches.size() ? "," : "");
  }
  std::fprintf(f, "]}\n");
  std::fclose(f);
  std::fprintf(stderr, "kgate trace: %zu kernel launches written to %s\n", launches.size(), path);
}

bool cupti_ok(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return true;
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  std::fprintf(stderr, "kgate trace: %s failed: %s\n", what, msg ? msg : "unknown error");
  return false;
}

}  // namespace

extern "C" {

// Called by the CUDA driver when it initializes (CUDA_INJECTION64_PATH).
__attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return 1;
  CUpti_SubscriberHandle subscriber;
  if (!cupti_ok(cuptiSubscribe(&subscriber, on_api, nullptr), "cuptiSubscribe")) return 0;
  cupti_ok(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), "enable runtime API");
  cupti_ok(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API), "enable driver API");
  cupti_ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
           "cuptiActivityRegisterCallbacks");
  if (!cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "kernel activity"))
    return 0;
  std::atexit(write_trace);
  return 1;
}

// Called by NVTX on the first NVTX call (NVTX_INJECTION64_PATH): routes
// range push/pop here.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
  auto set = [&](NvtxCallbackModule module, unsigned id, NvtxFunctionPointer fn) {
    NvtxFunctionTable table = nullptr;
    unsigned size = 0;
    if (!callbacks->GetModuleFunctionTable(module, &table, &size) || !table || id > size) return;
    if (table[id]) *table[id] = fn;
  };
  set(NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)range_push_a);
  set(NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)range_push_ex);
  set(NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)range_pop);
  set(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx,
      (NvtxFunctionPointer)domain_range_push_ex);
  set(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)domain_range_pop);
  return 1;
}

}  // extern "C"
