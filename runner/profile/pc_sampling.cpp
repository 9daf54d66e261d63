#include "runner/profile/pc_sampling.h"

#include <cupti_pcsampling.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "runner/profile/cupti_metrics.h"

namespace kgate::profile {
namespace {

constexpr size_t kMaxPcs = 20000;
constexpr uint64_t kRegionBytes = 64;

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
};

struct Region {
  std::string function, source;
  uint64_t pc = 0;
  uint64_t samples = 0;
  std::map<std::string, uint64_t> stalls;
};

Error pc_error(const std::string& step, CUptiResult r) {
  std::string why = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                        ? "no permission to sample PCs (ERR_NVGPUCTRPERM)"
                        : "CUPTI PC sampling failed";
  return Error::infrastructure(why + " (" + step + ": " + cupti_error_text(r) + ")");
}

}  // namespace

std::string short_stall_name(const std::string& name) {
  for (const char* prefix : {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_"})
    if (name.rfind(prefix, 0) == 0) return name.substr(std::string(prefix).size());
  return name;
}

Result<std::vector<HotRegion>> hot_regions(CUcontext context, const LaunchOnce& launch,
                                           const std::string& cubin, size_t top) {
  CUpti_PCSamplingEnableParams enable{CUpti_PCSamplingEnableParamsSize};
  enable.ctx = context;
  if (CUptiResult r = cuptiPCSamplingEnable(&enable); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingEnable", r);
  struct Disable {
    CUcontext ctx;
    bool armed = true;
    ~Disable() {
      if (!armed) return;
      CUpti_PCSamplingDisableParams d{CUpti_PCSamplingDisableParamsSize};
      d.ctx = ctx;
      cuptiPCSamplingDisable(&d);
    }
  } disable{context};

  size_t num_reasons = 0;
  CUpti_PCSamplingGetNumStallReasonsParams nr{CUpti_PCSamplingGetNumStallReasonsParamsSize};
  nr.ctx = context;
  nr.numStallReasons = &num_reasons;
  if (CUptiResult r = cuptiPCSamplingGetNumStallReasons(&nr); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingGetNumStallReasons", r);
  std::vector<uint32_t> reason_index(num_reasons);
  std::vector<std::vector<char>> reason_text(num_reasons,
                                             std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> reason_ptrs;
  for (auto& t : reason_text) reason_ptrs.push_back(t.data());
  CUpti_PCSamplingGetStallReasonsParams gr{CUpti_PCSamplingGetStallReasonsParamsSize};
  gr.ctx = context;
  gr.numStallReasons = num_reasons;
  gr.stallReasonIndex = reason_index.data();
  gr.stallReasons = reason_ptrs.data();
  if (CUptiResult r = cuptiPCSamplingGetStallReasons(&gr); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingGetStallReasons", r);
  std::map<uint32_t, std::string> reason_name;
  for (size_t i = 0; i < num_reasons; ++i)
    reason_name[reason_index[i]] = short_stall_name(reason_text[i].data());

  SampleBuffer configured(num_reasons), fetched(num_reasons);
  std::vector<CUpti_PCSamplingConfigurationInfo> info(6);
  info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  info[0].attributeData.samplingPeriodData.samplingPeriod = 5;  // every 2^10 cycles: dense
  info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  info[1].attributeData.stallReasonData.stallReasonCount = num_reasons;
  info[1].attributeData.stallReasonData.pStallReasonIndex = reason_index.data();
  info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  info[2].attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
  info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
  info[3].attributeData.enableStartStopControlData.enableStartStopControl = 1;
  info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  info[4].attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  info[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  info[5].attributeData.samplingDataBufferData.samplingDataBuffer = &configured.data;
  CUpti_PCSamplingConfigurationInfoParams config{CUpti_PCSamplingConfigurationInfoParamsSize};
  config.ctx = context;
  config.numAttributes = info.size();
  config.pPCSamplingConfigurationInfo = info.data();
  if (CUptiResult r = cuptiPCSamplingSetConfigurationAttribute(&config); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingSetConfigurationAttribute", r);

  CUpti_PCSamplingStartParams start{CUpti_PCSamplingStartParamsSize};
  start.ctx = context;
  if (CUptiResult r = cuptiPCSamplingStart(&start); r != CUPTI_SUCCESS)
    return pc_error("cuptiPCSamplingStart", r);
  Status launched = launch();
  CUpti_PCSamplingStopParams stop{CUpti_PCSamplingStopParamsSize};
  stop.ctx = context;
  CUptiResult stopped = cuptiPCSamplingStop(&stop);
  if (!launched.ok()) return launched.error().with_context("the sampled launch");
  if (stopped != CUPTI_SUCCESS) return pc_error("cuptiPCSamplingStop", stopped);

  std::map<std::string, Region> regions;
  uint64_t total = 0;
  auto absorb = [&](const CUpti_PCSamplingData& d) {
    for (size_t i = 0; i < d.totalNumPcs && i < kMaxPcs; ++i) {
      const CUpti_PCSamplingPCData& pc = d.pPcData[i];
      std::string function = pc.functionName ? pc.functionName : "?";
      std::string source;
      if (!cubin.empty() && pc.functionName) {
        CUpti_GetSassToSourceCorrelationParams corr{CUpti_GetSassToSourceCorrelationParamsSize};
        corr.cubin = cubin.data();
        corr.cubinSize = cubin.size();
        corr.functionName = pc.functionName;
        corr.pcOffset = pc.pcOffset;
        if (cuptiGetSassToSourceCorrelation(&corr) == CUPTI_SUCCESS && corr.lineNumber > 0) {
          source = std::string(corr.fileName ? corr.fileName : "?") + ":" +
                   std::to_string(corr.lineNumber);
          std::free(corr.fileName);  // CUPTI allocates both; the caller frees them
          std::free(corr.dirName);
        }
      }
      uint64_t window = pc.pcOffset / kRegionBytes * kRegionBytes;
      std::string key = source.empty() ? function + "+" + std::to_string(window) : source;
      Region& region = regions[key];
      if (region.samples == 0) {
        region.function = function;
        region.source = source;
        region.pc = source.empty() ? window : pc.pcOffset;
      }
      region.pc = std::min(region.pc, source.empty() ? window : pc.pcOffset);
      for (size_t s = 0; s < pc.stallReasonCount; ++s) {
        uint32_t n = pc.stallReason[s].samples;
        region.samples += n;
        total += n;
        region.stalls[reason_name[pc.stallReason[s].pcSamplingStallReasonIndex]] += n;
      }
    }
  };
  for (int round = 0; round < 64; ++round) {
    CUpti_PCSamplingGetDataParams get{CUpti_PCSamplingGetDataParamsSize};
    get.ctx = context;
    get.pcSamplingData = &fetched.data;
    fetched.data.totalNumPcs = 0;
    if (cuptiPCSamplingGetData(&get) != CUPTI_SUCCESS) break;
    absorb(fetched.data);
    if (fetched.data.remainingNumPcs == 0) break;
  }
  disable.armed = false;
  CUpti_PCSamplingDisableParams d{CUpti_PCSamplingDisableParamsSize};
  d.ctx = context;
  cuptiPCSamplingDisable(&d);
  absorb(configured.data);  // what Disable flushed into the configured buffer

  if (total == 0)
    return Error::infrastructure("PC sampling recorded no samples (the launch was too short)");
  std::vector<Region> sorted;
  for (auto& [key, r] : regions) sorted.push_back(r);
  std::sort(sorted.begin(), sorted.end(),
            [](const Region& a, const Region& b) { return a.samples > b.samples; });
  std::vector<HotRegion> out;
  for (size_t i = 0; i < sorted.size() && i < top; ++i) {
    HotRegion h;
    h.function = sorted[i].function;
    h.pc_offset = sorted[i].pc;
    h.source = sorted[i].source;
    h.share_pct = 100.0 * double(sorted[i].samples) / double(total);
    uint64_t best = 0;
    for (const auto& [name, n] : sorted[i].stalls)
      if (n > best && name != "selected") best = n, h.top_stall = name;
    out.push_back(h);
  }
  return out;
}

}  // namespace kgate::profile
