#pragma once
// Tiny kernels the timer needs, written in PTX so they load without a
// compiler (the driver JITs them once per process, in microseconds):
//   kgate_wait_flag(flag*, timeout_ns, timed_out*)  holds the stream until the
//     host sets *flag, so a timed launch is queued before the GPU reaches it;
//   kgate_sm_clock(out*, spin_ns)  clock64 cycles over a %globaltimer interval;
//   kgate_words_differ(a*, b*, words, flag*)  sets *flag when two buffers differ
//     (the inputs-unchanged check, in place);
//   kgate_empty()  for measuring the overhead that remains.
#include <cstddef>

namespace kgate::cuda {

extern const char* const kHelperKernelsPtx;

// The input draw kernel (input_draw.cu, kgate_draw_input), a fat binary
// nvcc builds with kgate and runner/CMakeLists.txt embeds.
extern const unsigned char kInputDrawImage[];
extern const size_t kInputDrawImageSize;

}  // namespace kgate::cuda
