#include "runner/profile/sass_counts.h"

#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <map>
#include <vector>

#include "runner/profile/cupti_metrics.h"

namespace kgate::profile {
namespace {

Error sass_error(const std::string& step, CUptiResult r) {
  return Error::infrastructure("CUPTI SASS metrics failed (" + step + ": " + cupti_error_text(r) +
                               ")");
}

#define KGATE_SASS(step, call)                                        \
  do {                                                                \
    CUptiResult kgate_r_ = (call);                                    \
    if (kgate_r_ != CUPTI_SUCCESS) return sass_error(step, kgate_r_); \
  } while (0)

}  // namespace

Result<SampledPcs> count_instructions(CUcontext context, CUdevice device,
                                      const LaunchOnce& launch) {
  return count_sass_metric(context, device, launch, "smsp__sass_inst_executed");
}

Result<SampledPcs> count_sass_metric(CUcontext context, CUdevice device, const LaunchOnce& launch,
                                     const std::string& metric) {
  const char* kMetric = metric.c_str();
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  KGATE_SASS("cuptiProfilerInitialize", cuptiProfilerInitialize(&init));
  struct DeInit {
    ~DeInit() {
      CUpti_Profiler_DeInitialize_Params p{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
      cuptiProfilerDeInitialize(&p);
    }
  } deinit;

  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<size_t>(device);
  KGATE_SASS("cuptiDeviceGetChipName", cuptiDeviceGetChipName(&chip));
  CUpti_SassMetrics_GetProperties_Params props{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
  props.pChipName = chip.pChipName;
  props.pMetricName = kMetric;
  KGATE_SASS(std::string("cuptiSassMetricsGetProperties(") + kMetric + ")",
             cuptiSassMetricsGetProperties(&props));

  CUpti_SassMetrics_Config config{};
  config.metricId = props.metric.metricId;
  config.outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
  CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.numOfMetricConfig = 1;
  set.pConfigs = &config;
  set.deviceIndex = static_cast<uint32_t>(device);
  KGATE_SASS("cuptiSassMetricsSetConfig", cuptiSassMetricsSetConfig(&set));
  struct Unset {
    uint32_t device;
    ~Unset() {
      CUpti_SassMetricsUnsetConfig_Params u{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
      u.deviceIndex = device;
      cuptiSassMetricsUnsetConfig(&u);
    }
  } unset{static_cast<uint32_t>(device)};

  CUpti_SassMetricsEnable_Params enable{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  enable.ctx = context;
  enable.enableLazyPatching = 1;  // patch only what runs in the range: this kernel
  KGATE_SASS("cuptiSassMetricsEnable", cuptiSassMetricsEnable(&enable));
  struct Disable {
    CUcontext ctx;
    ~Disable() {
      CUpti_SassMetricsDisable_Params d{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
      d.ctx = ctx;
      cuptiSassMetricsDisable(&d);
    }
  } disable{context};

  if (Status s = launch(); !s.ok()) return s.error().with_context("the counted launch");

  CUpti_SassMetricsGetDataProperties_Params dp{
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  dp.ctx = context;
  KGATE_SASS("cuptiSassMetricsGetDataProperties", cuptiSassMetricsGetDataProperties(&dp));
  const bool instructions = metric == "smsp__sass_inst_executed";
  if (dp.numOfPatchedInstructionRecords == 0 && !instructions) {
    // CUPTI patches only the instructions a metric applies to: none patched
    // for a branch metric means the kernel has no branch instruction (a copy
    // whose bounds check is predicated), an answer rather than a failure.
    SampledPcs none;
    none.log = "SASS metrics (" + metric + "): patched no instruction (the kernel has none)";
    return none;
  }
  if (dp.numOfPatchedInstructionRecords == 0 || dp.numOfInstances == 0)
    return Error::infrastructure("CUPTI SASS metrics patched no instruction of the kernel");
  std::vector<CUpti_SassMetrics_InstanceValue> values(dp.numOfPatchedInstructionRecords *
                                                      dp.numOfInstances);
  std::vector<CUpti_SassMetrics_Data> records(dp.numOfPatchedInstructionRecords);
  for (size_t i = 0; i < records.size(); ++i) {
    records[i].structSize = sizeof(CUpti_SassMetrics_Data);
    records[i].pInstanceValues = &values[i * dp.numOfInstances];
  }
  CUpti_SassMetricsFlushData_Params flush{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
  flush.ctx = context;
  flush.numOfPatchedInstructionRecords = records.size();
  flush.numOfInstances = dp.numOfInstances;
  flush.pMetricsData = records.data();
  KGATE_SASS("cuptiSassMetricsFlushData", cuptiSassMetricsFlushData(&flush));

  std::map<std::pair<std::string, uint64_t>, PcCount> pcs;
  SampledPcs out;
  for (const CUpti_SassMetrics_Data& r : records) {
    std::string function = r.functionName ? r.functionName : "?";
    PcCount& c = pcs[{function, r.pcOffset}];
    c.function = function;
    c.pc_offset = r.pcOffset;
    for (size_t k = 0; k < dp.numOfInstances; ++k) c.count += r.pInstanceValues[k].value;
  }
  for (auto& [key, c] : pcs) {
    out.samples += c.count;
    out.pcs.push_back(std::move(c));
  }
  out.log = "SASS metrics (" + metric + "): " + std::to_string(records.size()) +
            " patched instructions, " + std::to_string(out.samples) + " counted";
  // Only the instruction count must be positive (every launch executes
  // something); a branch count of 0 is a valid answer.
  if (out.samples == 0 && instructions)
    return Error::infrastructure("CUPTI SASS metrics counted no executed instruction (" + out.log +
                                 ")");
  return out;
}

}  // namespace kgate::profile
