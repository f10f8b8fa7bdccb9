// Host-side tensor descriptors and the conversion of a convolution problem into the
// ConvParams block consumed by the kernels.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <hipconv/config.h>
#include <hipconv/math.h>

namespace hipconv {

struct TensorDesc {
  DataType type;
  Layout layout;
  int dims[4];       // logical N C H W (or K C Y X for weights)
  int64_t strides[4];// element strides in the same order

  int n() const { return dims[0]; }
  int c() const { return dims[1]; }
  int h() const { return dims[2]; }
  int w() const { return dims[3]; }
  int64_t elements() const { return int64_t(dims[0]) * dims[1] * dims[2] * dims[3]; }
};

struct ConvDesc {
  int pad_h, pad_w;
  int stride_h, stride_w;
  int dil_h, dil_w;
  int groups;
};

inline TensorDesc make_nhwc(DataType t, int n, int c, int h, int w) {
  TensorDesc d{t, Layout::nhwc, {n, c, h, w}, {0, 0, 0, 0}};
  d.strides[1] = 1;
  d.strides[3] = c;
  d.strides[2] = int64_t(w) * c;
  d.strides[0] = int64_t(h) * w * c;
  return d;
}

inline int conv_out_size(int in, int pad, int dil, int k, int stride) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

inline bool is_supported_wgrad(const TensorDesc& x, const TensorDesc& dy, const TensorDesc& dw, const ConvDesc& cd) {
  if (x.layout != Layout::nhwc || dy.layout != Layout::nhwc) return false;
  if (x.type != DataType::bf16 || dy.type != DataType::bf16) return false;
  if (dw.type != DataType::f32 && dw.type != DataType::bf16) return false;
  if (cd.groups != 1) return false;
  if (x.c() % 8 != 0 || dy.c() % 8 != 0) return false;  // 16-byte channel vectors
  return true;
}

// Fill the kernel parameter block. `stage` is the GEMM-K size of one pipeline stage of the
// kernel that will run (k_per_split is rounded to it).
inline ConvParams make_wgrad_params(const TensorDesc& x, const TensorDesc& dy, const TensorDesc& dw,
                                    const ConvDesc& cd, int split_k, int stage) {
  ConvParams p{};
  p.n = x.n(); p.c = x.c(); p.h = x.h(); p.w = x.w();
  p.k = dy.c(); p.ho = dy.h(); p.wo = dy.w();
  p.fy = dw.h(); p.fx = dw.w();
  p.stride_h = cd.stride_h; p.stride_w = cd.stride_w;
  p.pad_h = cd.pad_h; p.pad_w = cd.pad_w;
  p.dil_h = cd.dil_h; p.dil_w = cd.dil_w;
  p.groups = cd.groups;
  p.in_type = x.type; p.out_type = dw.type; p.layout = x.layout;
  p.gemm_k = p.n * p.ho * p.wo;
  p.split_k = split_k < 1 ? 1 : split_k;
  p.k_per_split = round_up(ceil_div(p.gemm_k, p.split_k), stage);
  p.div_wo = make_fast_divmod(uint32_t(p.wo));
  p.div_ho = make_fast_divmod(uint32_t(p.ho));
  p.alpha = 1.0f; p.beta = 0.0f;
  p.x_stride_n = x.strides[0]; p.x_stride_h = x.strides[2]; p.x_stride_w = x.strides[3];
  p.dy_stride_n = dy.strides[0]; p.dy_stride_h = dy.strides[2]; p.dy_stride_w = dy.strides[3];
  p.dw_stride_k = int64_t(p.fy) * p.fx * p.c;
  return p;
}

// Bytes of workspace SplitMode::workspace needs.
inline size_t wgrad_workspace_bytes(const ConvParams& p) {
  return size_t(p.split_k) * size_t(p.k) * size_t(p.fy * p.fx) * size_t(p.c) * sizeof(float);
}

} // namespace hipconv
