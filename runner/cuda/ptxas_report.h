#pragma once
// Reads the resource report out of ptxas's verbose log (-Xptxas -v, which
// NVRTC takes as --ptxas-options=-v):
//   ptxas info    : Compiling entry function 'rmsnorm' for 'sm_90'
//   ptxas info    : Function properties for rmsnorm
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 18 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0]
#include <string>
#include <string_view>

#include "runner/program.h"

namespace kgate::cuda {

// The report for `entry`; fields ptxas did not print stay -1.
ResourceReport parse_ptxas_report(std::string_view log, const std::string& entry);

}  // namespace kgate::cuda
