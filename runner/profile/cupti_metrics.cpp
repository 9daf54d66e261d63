#include "runner/profile/cupti_metrics.h"

#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include "runner/profile_model/profile_data.h"

namespace kgate::profile {
namespace {

// Warp stall reasons present on Ampere and Hopper (Hopper adds gmma).
const char* const kStallReasons[] = {
    "barrier",
    "branch_resolving",
    "dispatch_stall",
    "drain",
    "imc_miss",
    "lg_throttle",
    "long_scoreboard",
    "math_pipe_throttle",
    "membar",
    "mio_throttle",
    "misc",
    "no_instruction",
    "not_selected",
    "selected",
    "short_scoreboard",
    "sleeping",
    "tex_throttle",
    "wait",
};

CUpti_Profiler_Host_Object* host(void* p) {
  return static_cast<CUpti_Profiler_Host_Object*>(p);
}

Error cupti_error(const std::string& what, CUptiResult r) {
  return Error::infrastructure(what + " failed: " + cupti_error_text(r));
}

}  // namespace

std::vector<MetricSpec> metric_list(const std::string& chip) {
  std::vector<MetricSpec> m = {
      {profile_model::metric::kDurationNs, "gpu__time_duration.sum"},
      {profile_model::metric::kDramPct, "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
      {profile_model::metric::kDramBytes, "dram__bytes.sum"},
      {profile_model::metric::kL1HitPct, "l1tex__t_sector_hit_rate.pct"},
      // L2 hit rate from sector counts of one unit (l2_hit_rate): the ratio
      // lts__t_sector_hit_rate.pct read 104% on a one-block launch.
      {profile_model::metric::kL2HitSectors, "lts__t_sectors_srcunit_tex_lookup_hit.sum"},
      {profile_model::metric::kL2MissSectors, "lts__t_sectors_srcunit_tex_lookup_miss.sum"},
      {profile_model::metric::kLdSectors, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
      {profile_model::metric::kLdRequests, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
      {profile_model::metric::kLdBytesRequested, "smsp__sass_data_bytes_mem_global_op_ld.sum"},
      {profile_model::metric::kStSectors, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
      {profile_model::metric::kStRequests, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
      {profile_model::metric::kStBytesRequested, "smsp__sass_data_bytes_mem_global_op_st.sum"},
      {profile_model::metric::kAchievedOccupancyPct,
       "sm__warps_active.avg.pct_of_peak_sustained_active"},
      {profile_model::metric::kSmPct, "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
      {profile_model::metric::kMemPct,
       "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
      // Branch efficiency from the counts of warp branch executions
      // (branch_efficiency); the ready-made ratio read 0% for every kernel
      // on the H200, loops included, and is kept only for diagnosis.
      {profile_model::metric::kBranchTargets, "smsp__sass_branch_targets.sum"},
      {profile_model::metric::kBranchUniform, "smsp__sass_branch_targets_threads_uniform.sum"},
      {profile_model::metric::kBranchDivergent, "smsp__sass_branch_targets_threads_divergent.sum"},
      {profile_model::metric::kBranchInstructions, "smsp__sass_inst_executed_op_branch.sum"},
      {profile_model::metric::kBranchUniformPctReported,
       "smsp__sass_average_branch_targets_threads_uniform.pct"},
      // The check on every SASS-patched counter (patched_counter_problem).
      {profile_model::metric::kInstExecuted, "smsp__inst_executed.sum"},
      {profile_model::metric::kSassInstExecuted, "smsp__sass_inst_executed.sum"},
      {profile_model::metric::kThreadsPerInstruction,
       "smsp__thread_inst_executed_per_inst_executed.ratio"},
      // FLOPs = fadd + fmul + 2 * ffma; the three parts are summed after evaluation.
      {"fp32_fadd", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"},
      {"fp32_fmul", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"},
      {"fp32_ffma", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"},
      {"local_ld_bytes", "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"},
      {"local_st_bytes", "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"},
  };
  for (const char* reason : kStallReasons)
    m.push_back(
        {reason,
         std::string("smsp__average_warps_issue_stalled_") + reason + "_per_issue_active.ratio",
         true});
  if (chip.rfind("GH", 0) == 0 || chip.rfind("GB", 0) == 0)
    m.push_back({"gmma", "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio", true});
  return m;
}

std::vector<std::string> metric_names(const std::vector<MetricSpec>& specs) {
  std::vector<std::string> names;
  for (const MetricSpec& s : specs) names.push_back(s.name);
  return names;
}

std::string cupti_error_text(int result) {
  const char* text = nullptr;
  cuptiGetResultString(static_cast<CUptiResult>(result), &text);
  return std::string(text ? text : "CUPTI error") + " (" + std::to_string(result) + ")";
}

Result<CuptiHost> CuptiHost::open(const std::string& chip,
                                  const std::vector<uint8_t>& counter_availability) {
  CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage =
      counter_availability.empty() ? nullptr : counter_availability.data();
  CUptiResult r = cuptiProfilerHostInitialize(&p);
  if (r != CUPTI_SUCCESS)
    return Error::infrastructure("CUPTI does not know the chip '" + chip +
                                 "': " + cupti_error_text(r));
  return CuptiHost(p.pHostObject);
}

CuptiHost::CuptiHost(CuptiHost&& other) noexcept : object_(other.object_) {
  other.object_ = nullptr;
}

CuptiHost::~CuptiHost() {
  if (!object_) return;
  CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  p.pHostObject = host(object_);
  cuptiProfilerHostDeinitialize(&p);
}

Result<std::vector<uint8_t>> CuptiHost::config_image(const std::vector<std::string>& metrics) {
  // One at a time, so an unknown name is named.
  for (const std::string& name : metrics) {
    const char* one[] = {name.c_str()};
    CUpti_Profiler_Host_ConfigAddMetrics_Params p{
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    p.pHostObject = host(object_);
    p.ppMetricNames = one;
    p.numMetrics = 1;
    CUptiResult r = cuptiProfilerHostConfigAddMetrics(&p);
    if (r != CUPTI_SUCCESS)
      return Error::infrastructure("CUPTI rejects the metric '" + name +
                                   "': " + cupti_error_text(r));
  }
  CUpti_Profiler_Host_GetConfigImageSize_Params s{
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  s.pHostObject = host(object_);
  if (CUptiResult r = cuptiProfilerHostGetConfigImageSize(&s); r != CUPTI_SUCCESS)
    return cupti_error("cuptiProfilerHostGetConfigImageSize", r);
  std::vector<uint8_t> image(s.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params g{
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  g.pHostObject = host(object_);
  g.configImageSize = image.size();
  g.pConfigImage = image.data();
  if (CUptiResult r = cuptiProfilerHostGetConfigImage(&g); r != CUPTI_SUCCESS)
    return cupti_error("cuptiProfilerHostGetConfigImage", r);
  return image;
}

Result<size_t> CuptiHost::passes(std::vector<uint8_t>& config_image) {
  CUpti_Profiler_Host_GetNumOfPasses_Params p{
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  p.configImageSize = config_image.size();
  p.pConfigImage = config_image.data();
  if (CUptiResult r = cuptiProfilerHostGetNumOfPasses(&p); r != CUPTI_SUCCESS)
    return cupti_error("cuptiProfilerHostGetNumOfPasses", r);
  return p.numOfPasses;
}

Result<std::vector<double>> CuptiHost::evaluate(const std::vector<uint8_t>& counter_data,
                                                size_t range,
                                                const std::vector<std::string>& metrics) {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  std::vector<double> values(metrics.size(), 0);
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p{
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  p.pHostObject = host(object_);
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  if (CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&p); r != CUPTI_SUCCESS)
    return cupti_error("cuptiProfilerHostEvaluateToGpuValues", r);
  return values;
}

}  // namespace kgate::profile
