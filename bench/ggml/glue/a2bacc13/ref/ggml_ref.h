// Host references for ggml's CUDA kernels, in double, written for kgate from
// the operations' definitions (ggml.h's documentation of ggml_rms_norm,
// ggml_norm, ggml_group_norm, ggml_soft_max_ext, ggml_sum_rows, ggml_argmax),
// not from the kernels. The entry points (norm_ref.cpp, softmax_ref.cpp,
// rows_ref.cpp) take the kernels' parameter lists as kgate.json declares them
// and call these.
//
// The kernels read part of their geometry from gridDim (rows, channels,
// samples), which a reference does not see; kgate.json's shapes are laid out
// so that the parameters give it back (each function says how).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

namespace ggml_ref {

// Rows of `ncols` floats, row r of channel c at x + c * s_ch + r * s_row, one
// sample: the shapes make s_ch = nrows * s_row and s_sm = nch * s_ch, so the
// strides say how many rows and channels there are. dst is contiguous.
struct Rows {
  int64_t nrows, nch;
};
inline Rows rows_of(int64_t s_row, int64_t s_ch, int64_t s_sm) {
  return {s_row > 0 ? s_ch / s_row : 1, s_ch > 0 ? s_sm / s_ch : 1};
}

// A broadcast operand of rms_norm's fused multiply or add: element (col, row,
// ch) of the result reads src[(ch % nch) * s_ch + (row % nrows) * s_row +
// col % ncols], as ggml_mul / ggml_add broadcast a smaller tensor.
struct Operand {
  const float* src = nullptr;
  int64_t s_row = 0, s_ch = 0;
  int64_t ncols = 1, nrows = 1, nch = 1;
  double at(int64_t col, int64_t row, int64_t ch) const {
    return src[(ch % nch) * s_ch + (row % nrows) * s_row + col % ncols];
  }
};

// y = x / sqrt(mean(x^2) + eps), then * mul, then + add where given.
inline void rms_norm(const float* x, double* dst, int64_t ncols, int64_t s_row, int64_t s_ch,
                     int64_t s_sm, float eps, const Operand& mul, const Operand& add) {
  const Rows g = rows_of(s_row, s_ch, s_sm);
  for (int64_t ch = 0; ch < g.nch; ++ch)
    for (int64_t row = 0; row < g.nrows; ++row) {
      const float* in = x + ch * s_ch + row * s_row;
      double* out = dst + (ch * g.nrows + row) * ncols;
      double sum = 0;
      for (int64_t c = 0; c < ncols; ++c) sum += double(in[c]) * in[c];
      const double scale = 1.0 / std::sqrt(sum / ncols + double(eps));
      for (int64_t c = 0; c < ncols; ++c) {
        double y = in[c] * scale;
        if (mul.src) y *= mul.at(c, row, ch);
        if (add.src) y += add.at(c, row, ch);
        out[c] = y;
      }
    }
}

// Layer norm without affine: y = (x - mean) / sqrt(var + eps).
inline void norm(const float* x, double* dst, int64_t ncols, int64_t s_row, int64_t s_ch,
                 int64_t s_sm, float eps) {
  const Rows g = rows_of(s_row, s_ch, s_sm);
  for (int64_t ch = 0; ch < g.nch; ++ch)
    for (int64_t row = 0; row < g.nrows; ++row) {
      const float* in = x + ch * s_ch + row * s_row;
      double* out = dst + (ch * g.nrows + row) * ncols;
      double mean = 0, var = 0;
      for (int64_t c = 0; c < ncols; ++c) mean += in[c];
      mean /= ncols;
      for (int64_t c = 0; c < ncols; ++c) var += (in[c] - mean) * (in[c] - mean);
      var /= ncols;
      const double inv_std = 1.0 / std::sqrt(var + double(eps));
      for (int64_t c = 0; c < ncols; ++c) out[c] = (in[c] - mean) * inv_std;
    }
}

// Group norm over a flat tensor of ne elements cut in groups of group_size
// consecutive elements (the last one may be shorter): ggml_group_norm of a
// [W, H, C, N] tensor whose groups are whole channels, as the CUDA launcher
// lays them out.
inline void group_norm(const float* x, double* dst, int64_t group_size, int64_t ne, float eps) {
  for (int64_t start = 0; start < ne; start += group_size) {
    const int64_t end = start + group_size < ne ? start + group_size : ne;
    double mean = 0, var = 0;
    for (int64_t j = start; j < end; ++j) mean += x[j];
    mean /= group_size;  // ggml divides by group_size, also for a short last group
    for (int64_t j = start; j < end; ++j) var += (x[j] - mean) * (x[j] - mean);
    var /= group_size;
    const double scale = 1.0 / std::sqrt(var + double(eps));
    for (int64_t j = start; j < end; ++j) dst[j] = (x[j] - mean) * scale;
  }
}

// softmax(x * scale + slope * mask (+ a sink logit)) along rows of ncols.
// Row (i01, i02, i03) of x is row (i01 * ne02 + i02) * ne03 ... contiguous;
// the mask row is (i01, i02 % ne12, i03 % ne13) with byte strides nb11, nb12,
// nb13. max_bias = 0 (no ALiBi): slope 1.
struct SoftMax {
  int64_t ncols, ne01, ne02, ne03;
  int64_t nb11, nb12, nb13, ne12, ne13;
  float scale;
};
inline void soft_max(const float* x, const float* mask, const float* sinks, double* dst,
                     const SoftMax& p) {
  for (int64_t i03 = 0; i03 < p.ne03; ++i03)
    for (int64_t i02 = 0; i02 < p.ne02; ++i02)
      for (int64_t i01 = 0; i01 < p.ne01; ++i01) {
        const int64_t row = (i03 * p.ne02 + i02) * p.ne01 + i01;
        const float* in = x + row * p.ncols;
        const float* m =
            mask ? mask + (i01 * p.nb11 + (i02 % p.ne12) * p.nb12 + (i03 % p.ne13) * p.nb13) /
                              int64_t(sizeof(float))
                 : nullptr;
        double* out = dst + row * p.ncols;
        double max = sinks ? double(sinks[i02]) : -std::numeric_limits<double>::infinity();
        for (int64_t c = 0; c < p.ncols; ++c) {
          out[c] = double(in[c]) * p.scale + (m ? double(m[c]) : 0.0);
          if (out[c] > max) max = out[c];
        }
        double sum = sinks ? std::exp(double(sinks[i02]) - max) : 0.0;
        for (int64_t c = 0; c < p.ncols; ++c) sum += (out[c] = std::exp(out[c] - max));
        for (int64_t c = 0; c < p.ncols; ++c) out[c] /= sum;
      }
}

}  // namespace ggml_ref
