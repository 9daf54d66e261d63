#include "runner/profile/counter_profiler.h"

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <vector>

#include "runner/profile/cupti_metrics.h"
#include "runner/profile_model/profile_data.h"

namespace kgate::profile {
namespace {

// Why counters are unreadable, in words a user can act on.
Error counter_error(const std::string& step, CUptiResult r) {
  std::string why;
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      why =
          "no permission to read GPU performance counters (ERR_NVGPUCTRPERM): run as root, "
          "or load the driver with NVreg_RestrictProfilingToAdminUsers=0";
      break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      why = "the GPU is virtualized and its profiling is not enabled";
      break;
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
      why = "this GPU or configuration does not support the CUPTI profiler";
      break;
    default:
      why = "CUPTI failed";
  }
  return Error::infrastructure(why + " (" + step + ": " + cupti_error_text(r) + ")");
}

#define KGATE_CUPTI(step, call)                                          \
  do {                                                                   \
    CUptiResult kgate_r_ = (call);                                       \
    if (kgate_r_ != CUPTI_SUCCESS) return counter_error(step, kgate_r_); \
  } while (0)

std::string support_problem(const CUpti_Profiler_DeviceSupported_Params& s) {
  if (s.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "";
  if (s.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "the GPU architecture is older than the CUPTI profiler supports";
  if (s.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
    return "the GPU is virtualized (vGPU) and profiling is disabled for it";
  if (s.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "profiling is not supported on this vGPU";
  if (s.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "confidential computing is enabled, which forbids counters";
  if (s.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "mining processors have no counters";
  if (s.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "profiling is not supported under WSL";
  if (s.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "profiling is not supported with SLI";
  return "the CUPTI profiler does not support this device";
}

// Disables the range profiler and deinitializes CUPTI's profiler on every path.
struct Session {
  CUpti_RangeProfiler_Object* object = nullptr;
  bool initialized = false;
  ~Session() {
    if (object) {
      CUpti_RangeProfiler_Disable_Params d{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
      d.pRangeProfilerObject = object;
      cuptiRangeProfilerDisable(&d);
    }
    if (initialized) {
      CUpti_Profiler_DeInitialize_Params p{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
      cuptiProfilerDeInitialize(&p);
    }
  }
};

}  // namespace

Result<CounterValues> collect_counters(CUcontext context, CUdevice device,
                                       const LaunchOnce& launch) {
  Session session;
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  KGATE_CUPTI("cuptiProfilerInitialize", cuptiProfilerInitialize(&init));
  session.initialized = true;

  CUpti_Profiler_DeviceSupported_Params supported{
      CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  supported.cuDevice = device;
  supported.api = CUPTI_PROFILER_RANGE_PROFILING;
  KGATE_CUPTI("cuptiProfilerDeviceSupported", cuptiProfilerDeviceSupported(&supported));
  if (std::string problem = support_problem(supported); !problem.empty())
    return Error::infrastructure(problem);

  CUpti_Device_GetChipName_Params chip_params{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip_params.deviceIndex = static_cast<size_t>(device);
  KGATE_CUPTI("cuptiDeviceGetChipName", cuptiDeviceGetChipName(&chip_params));
  CounterValues out;
  out.chip = chip_params.pChipName;

  CUpti_Profiler_GetCounterAvailability_Params avail{
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.ctx = context;
  KGATE_CUPTI("cuptiProfilerGetCounterAvailability", cuptiProfilerGetCounterAvailability(&avail));
  std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  KGATE_CUPTI("cuptiProfilerGetCounterAvailability", cuptiProfilerGetCounterAvailability(&avail));

  std::vector<MetricSpec> specs = metric_list(out.chip);
  std::vector<std::string> names = metric_names(specs);
  auto host = CuptiHost::open(out.chip, availability);
  if (!host.ok()) return host.error();
  auto config = host->config_image(names);
  if (!config.ok()) return config.error();
  if (auto passes = host->passes(*config); passes.ok()) out.passes = *passes;

  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = context;
  KGATE_CUPTI("cuptiRangeProfilerEnable", cuptiRangeProfilerEnable(&enable));
  session.object = enable.pRangeProfilerObject;

  std::vector<const char*> cnames;
  for (const std::string& n : names) cnames.push_back(n.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size{
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = session.object;
  size.pMetricNames = cnames.data();
  size.numMetrics = cnames.size();
  size.maxNumOfRanges = 1;
  size.maxNumRangeTreeNodes = 1;
  KGATE_CUPTI("cuptiRangeProfilerGetCounterDataSize", cuptiRangeProfilerGetCounterDataSize(&size));
  std::vector<uint8_t> counter_data(size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params cinit{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  cinit.pRangeProfilerObject = session.object;
  cinit.counterDataSize = counter_data.size();
  cinit.pCounterData = counter_data.data();
  KGATE_CUPTI("cuptiRangeProfilerCounterDataImageInitialize",
              cuptiRangeProfilerCounterDataImageInitialize(&cinit));

  CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = session.object;
  set.configSize = config->size();
  set.pConfig = config->data();
  set.counterDataImageSize = counter_data.size();
  set.pCounterDataImage = counter_data.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = CUPTI_KernelReplay;
  set.maxRangesPerPass = 1;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  KGATE_CUPTI("cuptiRangeProfilerSetConfig", cuptiRangeProfilerSetConfig(&set));

  // Kernel replay submits every pass within one Start/Stop; the loop guards
  // the replay modes that need the launch repeated, within a bound.
  bool all_submitted = false;
  for (size_t round = 0; !all_submitted && round < out.passes + 2; ++round) {
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = session.object;
    KGATE_CUPTI("cuptiRangeProfilerStart", cuptiRangeProfilerStart(&start));
    Status launched = launch();
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = session.object;
    CUptiResult stopped = cuptiRangeProfilerStop(&stop);
    if (!launched.ok()) return launched.error().with_context("the profiled launch");
    if (stopped != CUPTI_SUCCESS) return counter_error("cuptiRangeProfilerStop", stopped);
    all_submitted = stop.isAllPassSubmitted != 0;
  }
  if (!all_submitted)
    return Error::infrastructure("CUPTI did not finish its " + std::to_string(out.passes) +
                                 " counter passes");

  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = session.object;
  KGATE_CUPTI("cuptiRangeProfilerDecodeData", cuptiRangeProfilerDecodeData(&decode));

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  KGATE_CUPTI("cuptiRangeProfilerGetCounterDataInfo", cuptiRangeProfilerGetCounterDataInfo(&info));
  if (info.numTotalRanges < 1)
    return Error::infrastructure(
        "CUPTI recorded no kernel in the profiled range (did the callback launch one?)");

  auto values = host->evaluate(counter_data, 0, names);
  if (!values.ok()) return values.error();
  double fadd = 0, fmul = 0, ffma = 0, local = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const MetricSpec& s = specs[i];
    double v = (*values)[i];
    if (s.stall)
      out.stalls[s.key] = v;
    else if (s.key == "fp32_fadd")
      fadd = v;
    else if (s.key == "fp32_fmul")
      fmul = v;
    else if (s.key == "fp32_ffma")
      ffma = v;
    else if (s.key == "local_ld_bytes" || s.key == "local_st_bytes")
      local += v;
    else
      out.metrics[s.key] = v;
  }
  out.metrics[profile_model::metric::kFp32Flops] = fadd + fmul + 2 * ffma;
  out.metrics[profile_model::metric::kLocalBytes] = local;
  return out;
}

}  // namespace kgate::profile
