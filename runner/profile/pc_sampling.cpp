#include "runner/profile/pc_sampling.h"

#include <cupti_pcsampling.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "runner/profile/cupti_metrics.h"

namespace kgate::profile {
namespace {

constexpr size_t kMaxPcs = 10000;  // per buffer fill; more are fetched with GetData
constexpr size_t kScratchBytes = size_t(16) << 20;

// A CUpti_PCSamplingData with room for kMaxPcs PCs and every stall reason.
struct SampleBuffer {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> reasons;
  explicit SampleBuffer(size_t num_reasons) : pcs(kMaxPcs), reasons(kMaxPcs * num_reasons) {
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = kMaxPcs;
    data.pPcData = pcs.data();
    for (size_t i = 0; i < kMaxPcs; ++i) {
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReason = &reasons[i * num_reasons];
    }
  }
  // Marks what was read as consumed, so a buffer CUPTI did not refill is
  // not counted twice.
  void consumed() {
    data.totalNumPcs = 0;
    data.remainingNumPcs = 0;
    data.totalSamples = data.droppedSamples = data.nonUsrKernelsTotalSamples = 0;
    data.hardwareBufferFull = 0;
  }
};

Error pc_error(const std::string& step, CUptiResult r, const std::string& log) {
  std::string why = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                        ? "no permission to sample PCs (ERR_NVGPUCTRPERM)"
                        : "CUPTI PC sampling failed";
  return Error::infrastructure(why + " (" + step + ": " + cupti_error_text(r) + ")" +
                               (log.empty() ? "" : "; " + log));
}

// What one collection mode saw, over all its ranges.
struct Tally {
  std::map<std::pair<std::string, uint64_t>, PcCount> pcs;
  uint64_t pc_samples = 0, cupti_total = 0, dropped = 0, non_user = 0, records = 0;
  uint64_t other_cubin = 0;  // samples at PCs of another module than the kernel's
  uint64_t crc = 0;          // the kernel's cubin as CUPTI identifies it; 0: keep every PC
  bool reloaded = false;
  bool buffer_full = false;
  int launches = 0, fills = 0;
  std::set<std::string> get_data_errors;
  std::set<std::string> other_functions;  // names seen in other modules, for the log
  std::string reload_error;               // why the fresh module could not be loaded

  void absorb(const CUpti_PCSamplingData& d, const std::map<uint32_t, std::string>& names) {
    cupti_total += d.totalSamples;
    dropped += d.droppedSamples;
    non_user += d.nonUsrKernelsTotalSamples;
    buffer_full = buffer_full || d.hardwareBufferFull;
    if (d.totalNumPcs > 0) ++fills;
    for (size_t i = 0; i < d.totalNumPcs && i < kMaxPcs; ++i) {
      const CUpti_PCSamplingPCData& pc = d.pPcData[i];
      ++records;
      // functionName is shared by CUPTI across records; copied, never freed.
      std::string function = pc.functionName ? pc.functionName : "?";
      if (crc != 0 && pc.cubinCrc != crc) {
        // Another module's kernel (the harness's helpers): not the kernel's hot spots.
        for (size_t s = 0; s < pc.stallReasonCount; ++s) other_cubin += pc.stallReason[s].samples;
        if (other_functions.size() < 4) other_functions.insert(function);
        continue;
      }
      PcCount& c = pcs[{function, pc.pcOffset}];
      c.function = function;
      c.pc_offset = pc.pcOffset;
      for (size_t s = 0; s < pc.stallReasonCount; ++s) {
        uint32_t n = pc.stallReason[s].samples;
        c.count += n;
        pc_samples += n;
        auto it = names.find(pc.stallReason[s].pcSamplingStallReasonIndex);
        c.stalls[it == names.end() ? "other" : it->second] += n;
      }
    }
  }

  std::string describe(const char* mode, uint32_t period) const {
    std::string s =
        std::string(mode) + ", period 2^" + std::to_string(period) +
        " cycles: " + std::to_string(launches) + " launch(es), " + std::to_string(fills) +
        " buffer fill(s); CUPTI counted " + std::to_string(cupti_total) + " samples (" +
        std::to_string(dropped) + " dropped, " + std::to_string(non_user) + " in non-user kernels" +
        (buffer_full ? ", HARDWARE BUFFER FULL" : "") + "), " + std::to_string(pcs.size()) +
        " PCs with " + std::to_string(pc_samples) + " samples";
    if (other_cubin > 0) {
      s += ", " + std::to_string(other_cubin) + " samples in other modules (";
      bool first = true;
      for (const std::string& f : other_functions) s += (first ? "" : ", ") + f, first = false;
      s += ")";
    }
    if (!reloaded)
      s += ", sampled the module loaded before sampling was enabled" +
           (reload_error.empty() ? std::string() : " (reloading it failed: " + reload_error + ")");
    if (!get_data_errors.empty()) {
      s += "; cuptiPCSamplingGetData:";
      for (const std::string& e : get_data_errors) s += " " + e;
    }
    if (pc_samples == 0) s += ": " + sampling_shortfall(counts());
    return s;
  }

  SamplingCounts counts() const {
    SamplingCounts c;
    c.cupti_total = cupti_total;
    c.dropped = dropped;
    c.non_user = non_user;
    c.kept = pc_samples;
    c.other_cubin = other_cubin;
    c.buffer_full = buffer_full;
    c.reloaded = reloaded;
    return c;
  }
};

// One enable/configure/ranges/disable cycle in one collection mode.
Result<Tally> collect(CUcontext context, const LaunchOnce& original,
                      CUpti_PCSamplingCollectionMode mode, uint32_t period,
                      const SamplingOptions& options, const std::string& log,
                      const ReloadForSampling& reload, uint64_t crc) {
  CUpti_PCSamplingEnableParams enable{};
  enable.size = CUpti_PCSamplingEnableParamsSize;
  enable.ctx = context;
  if (CUptiResult r = cuptiPCSamplingEnable(&enable); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingEnable", r, log);
  struct Disable {
    CUcontext ctx;
    bool armed = true;
    void now() {
      if (!armed) return;
      armed = false;
      CUpti_PCSamplingDisableParams d{};
      d.size = CUpti_PCSamplingDisableParamsSize;
      d.ctx = ctx;
      cuptiPCSamplingDisable(&d);
    }
    ~Disable() { now(); }
  } disable{context};

  size_t num_reasons = 0;
  CUpti_PCSamplingGetNumStallReasonsParams nr{};
  nr.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
  nr.ctx = context;
  nr.numStallReasons = &num_reasons;
  if (CUptiResult r = cuptiPCSamplingGetNumStallReasons(&nr); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingGetNumStallReasons", r, log);
  std::vector<uint32_t> reason_index(num_reasons);
  std::vector<std::vector<char>> reason_text(num_reasons,
                                             std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> reason_ptrs;
  for (auto& t : reason_text) reason_ptrs.push_back(t.data());
  CUpti_PCSamplingGetStallReasonsParams gr{};
  gr.size = CUpti_PCSamplingGetStallReasonsParamsSize;
  gr.ctx = context;
  gr.numStallReasons = num_reasons;
  gr.stallReasonIndex = reason_index.data();
  gr.stallReasons = reason_ptrs.data();
  if (CUptiResult r = cuptiPCSamplingGetStallReasons(&gr); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingGetStallReasons", r, log);
  std::map<uint32_t, std::string> reason_name;
  for (size_t i = 0; i < num_reasons; ++i)
    reason_name[reason_index[i]] = short_stall_name(reason_text[i].data());

  SampleBuffer buffer(num_reasons);
  std::vector<CUpti_PCSamplingConfigurationInfo> info(7);
  info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  info[0].attributeData.samplingPeriodData.samplingPeriod = period;
  info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  info[1].attributeData.stallReasonData.stallReasonCount = num_reasons;
  info[1].attributeData.stallReasonData.pStallReasonIndex = reason_index.data();
  info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  info[2].attributeData.collectionModeData.collectionMode = mode;
  info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
  info[3].attributeData.enableStartStopControlData.enableStartStopControl = 1;
  info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  info[4].attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  info[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  info[5].attributeData.samplingDataBufferData.samplingDataBuffer = &buffer.data;
  info[6].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
  info[6].attributeData.scratchBufferSizeData.scratchBufferSize = kScratchBytes;
  CUpti_PCSamplingConfigurationInfoParams config{};
  config.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  config.ctx = context;
  config.numAttributes = info.size();
  config.pPCSamplingConfigurationInfo = info.data();
  if (CUptiResult r = cuptiPCSamplingSetConfigurationAttribute(&config); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingSetConfigurationAttribute", r, log);

  Tally tally;
  tally.crc = crc;
  // The module CUPTI attributes samples to: one loaded now, with sampling enabled.
  LaunchOnce launch = original;
  if (reload) {
    auto fresh = reload();
    if (fresh.ok()) {
      launch = *fresh;
      tally.reloaded = true;
    } else {
      tally.reload_error = fresh.error().message;
    }
  }
  auto drain = [&] {
    // The stop put the range's first PCs into the configured buffer...
    tally.absorb(buffer.data, reason_name);
    buffer.consumed();
    // ...and GetData hands over the rest, kMaxPcs at a time.
    for (int round = 0; round < 1000; ++round) {
      CUpti_PCSamplingGetDataParams get{};
      get.size = CUpti_PCSamplingGetDataParamsSize;
      get.ctx = context;
      get.pcSamplingData = &buffer.data;
      CUptiResult r = cuptiPCSamplingGetData(&get);
      if (r != CUPTI_SUCCESS) {
        tally.get_data_errors.insert(cupti_error_text(r));
        break;
      }
      bool more = buffer.data.remainingNumPcs > 0;
      tally.absorb(buffer.data, reason_name);
      buffer.consumed();
      if (!more) break;
    }
  };

  auto began = std::chrono::steady_clock::now();
  while (tally.launches < options.max_launches) {
    CUpti_PCSamplingStartParams start{};
    start.size = CUpti_PCSamplingStartParamsSize;
    start.ctx = context;
    if (CUptiResult r = cuptiPCSamplingStart(&start); r != CUPTI_SUCCESS)
      return pc_error("cuptiPCSamplingStart", r, log + tally.describe("", period));
    Status launched = launch();  // launches and waits
    ++tally.launches;
    CUpti_PCSamplingStopParams stop{};
    stop.size = CUpti_PCSamplingStopParamsSize;
    stop.ctx = context;
    CUptiResult stopped = cuptiPCSamplingStop(&stop);
    if (!launched.ok()) return launched.error().with_context("the sampled launch");
    if (stopped != CUPTI_SUCCESS)
      return pc_error("cuptiPCSamplingStop", stopped, log + tally.describe("", period));
    drain();
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (tally.pc_samples >= options.min_samples || elapsed > options.max_seconds) break;
  }
  disable.now();
  // Whatever the disable flushed into the configured buffer.
  tally.absorb(buffer.data, reason_name);
  return tally;
}

}  // namespace

uint32_t sampling_period_exponent(double seconds, double clock_hz, int multiprocessors,
                                  double target) {
  constexpr uint32_t kMin = 8, kMax = 20;
  if (seconds <= 0 || clock_hz <= 0 || multiprocessors <= 0 || target <= 0) return 12;
  double cycles_per_sample = seconds * clock_hz * multiprocessors / target;
  if (cycles_per_sample <= 1) return kMin;
  double e = std::floor(std::log2(cycles_per_sample));
  return uint32_t(std::clamp(e, double(kMin), double(kMax)));
}

std::string short_stall_name(const std::string& name) {
  for (const char* prefix : {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_"})
    if (name.rfind(prefix, 0) == 0) return name.substr(std::string(prefix).size());
  return name;
}

std::string sampling_shortfall(const SamplingCounts& c) {
  if (c.kept > 0) return "";
  if (c.cupti_total == 0)
    return "CUPTI counted no sample at all (the launches may be shorter than one period, or "
           "sampling is not supported here)";
  if (c.buffer_full)
    return "the hardware buffer filled, after which CUPTI reports no PCs (a longer period "
           "helps)";
  if (c.dropped >= c.cupti_total) return "every sample was dropped by the hardware (backpressure)";
  if (c.non_user > 0 && c.non_user + c.dropped >= c.cupti_total)
    return std::string(
               "every sample fell in kernels CUPTI does not attribute to a module it saw "
               "loaded (\"non-user kernels\"); ") +
           (c.reloaded ? "the kernel's module was loaded after sampling was enabled, so CUPTI "
                         "should have seen it: a driver or CUPTI limitation on this GPU"
                       : "the kernel's module was loaded before sampling was enabled, so CUPTI "
                         "never registered it");
  if (c.other_cubin > 0)
    return "the samples CUPTI attributed were all in other modules than the kernel's";
  return "CUPTI counted samples but gave no PC records for them";
}

Result<SampledPcs> sample_pcs(CUcontext context, const LaunchOnce& launch,
                              const SamplingOptions& options, const ReloadForSampling& reload,
                              const std::string& cubin) {
  uint32_t period = sampling_period_exponent(options.kernel_seconds, options.sm_clock_hz,
                                             options.multiprocessors);
  std::string log;
  // CUPTI's identity of the kernel's cubin, to keep only its PCs.
  uint64_t crc = 0;
  if (!cubin.empty()) {
    CUpti_GetCubinCrcParams c{};
    c.size = CUpti_GetCubinCrcParamsSize;
    c.cubin = cubin.data();
    c.cubinSize = cubin.size();
    if (cuptiGetCubinCrc(&c) == CUPTI_SUCCESS) crc = c.cubinCrc;
  }
  const std::pair<CUpti_PCSamplingCollectionMode, const char*> modes[] = {
      {CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED, "kernel-serialized"},
      {CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS, "continuous"},
  };
  std::string shortfall;
  for (const auto& [mode, name] : modes) {
    auto tally = collect(context, launch, mode, period, options, log, reload, crc);
    if (!tally.ok()) return tally.error();
    shortfall = sampling_shortfall(tally->counts());
    log += (log.empty() ? "" : "; then ") + tally->describe(name, period);
    if (tally->pc_samples == 0) continue;
    SampledPcs out;
    out.samples = tally->pc_samples;
    out.log = "pc sampling, " + log;
    for (auto& [key, pc] : tally->pcs) out.pcs.push_back(std::move(pc));
    return out;
  }
  return Error::infrastructure("PC sampling attributed no sample to the kernel: " + shortfall +
                               " (" + log + ")");
}

}  // namespace kgate::profile
