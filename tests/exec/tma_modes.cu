// What the tensor memory accelerator writes, byte for byte: tensor maps
// encoded through cudaGetDriverEntryPoint, one cp.async.bulk.tensor load per
// case into shared memory (filled with 0xa5 before), completing on an
// mbarrier whose expect_tx is the box's bytes (out-of-bounds elements
// included), and the raw shared-memory bytes printed in hex, 16 per line:
//   - 2-D boxes of f32, u16 and u8 with swizzle none, 32B, 64B and 128B
//     (the swizzled boxes one swizzle span wide);
//   - boxes partly out of bounds with OOB fill NONE and NAN_REQUEST_ZERO_FMA,
//     of f32 and f16 data;
//   - a 3-D and a 5-D tile;
//   - an im2col load of an NHWC tensor (pixel-box corners, pixels per
//     column, channels per pixel, im2col offsets);
//   - a tensor store and a cp.reduce.async.bulk.tensor add of a box partly
//     out of bounds: the whole global buffer is printed.
// The program checks what it can on its own: the unswizzled box equals the
// source, the swizzled ones are its 16-byte chunks moved by the address's
// bits 7 and up, out-of-bounds elements are zero or NaN, and so on. Every
// wait is bounded, so a count that never completes is reported, not hung.
// Build: nvcc -gencode=arch=compute_90a,code=[sm_90a,compute_90a]
// -cudart shared. Usage: tma_modes [NAME] (only the cases whose name
// contains NAME; all by default).
#include <cstdint>
#include <cstring>
#include <cuda.h>
#include <vector>

#include "common.h"

constexpr int kBuf = 4096;

struct Copy {
  int rank;
  int im2col;
  int c[5];
  unsigned short off[3];
  unsigned bytes;
};

__device__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Bounded: false when the phase did not complete.
__device__ bool wait_phase0(uint32_t bar) {
  for (int i = 0; i < (1 << 20); ++i) {
    uint32_t done;
    asm volatile("{ .reg .pred p;\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                 "  selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar)
                 : "memory");
    if (done)
      return true;
  }
  return false;
}

__global__ void load(const __grid_constant__ CUtensorMap tm, Copy cp,
                     unsigned char *out, int *timed_out) {
  __shared__ alignas(1024) unsigned char buf[kBuf];
  __shared__ alignas(8) uint64_t bar;
  for (int i = threadIdx.x; i < kBuf; i += blockDim.x)
    buf[i] = 0xa5;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t b = smem_addr(&bar), d = smem_addr(buf);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b),
        "r"(cp.bytes)
        : "memory");
    if (cp.im2col) {
      asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col"
                   ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
                   "%5}], [%6], {%7, %8};" ::"r"(d),
                   "l"(&tm), "r"(cp.c[0]), "r"(cp.c[1]), "r"(cp.c[2]),
                   "r"(cp.c[3]), "r"(b), "h"(cp.off[0]), "h"(cp.off[1])
                   : "memory");
    } else if (cp.rank == 2) {
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                   ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                   "[%4];" ::"r"(d),
                   "l"(&tm), "r"(cp.c[0]), "r"(cp.c[1]), "r"(b)
                   : "memory");
    } else if (cp.rank == 3) {
      asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile"
                   ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
                   "[%5];" ::"r"(d),
                   "l"(&tm), "r"(cp.c[0]), "r"(cp.c[1]), "r"(cp.c[2]), "r"(b)
                   : "memory");
    } else {
      asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile"
                   ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, "
                   "%6}], [%7];" ::"r"(d),
                   "l"(&tm), "r"(cp.c[0]), "r"(cp.c[1]), "r"(cp.c[2]),
                   "r"(cp.c[3]), "r"(cp.c[4]), "r"(b)
                   : "memory");
    }
  }
  __syncthreads();
  if (!wait_phase0(b))
    atomicAdd(timed_out, 1);
  for (int i = threadIdx.x; i < kBuf; i += blockDim.x)
    out[i] = buf[i];
}

// A 2-D box of f32 from `in` (dense, box[0] fastest) stored (reduce = 0) or
// added (reduce = 1) into the tensor at (x, y).
__global__ void store(const __grid_constant__ CUtensorMap tm, const float *in,
                      int n, int x, int y, int reduce) {
  __shared__ alignas(1024) float tile[kBuf / 4];
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    tile[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    if (reduce)
      asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile"
                   ".bulk_group [%0, {%1, %2}], [%3];" ::"l"(&tm),
                   "r"(x), "r"(y), "r"(smem_addr(tile))
                   : "memory");
    else
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile"
                   ".bulk_group [%0, {%1, %2}], [%3];" ::"l"(&tm),
                   "r"(x), "r"(y), "r"(smem_addr(tile))
                   : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

using EncodeTiled = decltype(&cuTensorMapEncodeTiled);
using EncodeIm2col = decltype(&cuTensorMapEncodeIm2col);
static EncodeTiled encode_tiled;
static EncodeIm2col encode_im2col;
static unsigned char *d_out;
static const char *g_only; // run only the cases whose name contains it
static int g_store_x = 12;

static bool selected(const char *name) {
  return !g_only || std::strstr(name, g_only);
}
static int *d_timeout;

static void dump(const char *name, const unsigned char *p, size_t n) {
  std::printf("%s: %zu bytes\n", name, n);
  for (size_t i = 0; i < n; i += 16) {
    std::printf("%04zx:", i);
    for (size_t j = i; j < i + 16 && j < n; ++j)
      std::printf(" %02x", p[j]);
    std::printf("\n");
  }
  std::fflush(stdout);
}

// Runs one load and returns the shared-memory bytes (kBuf of them; the
// first `bytes` are printed).
static std::vector<unsigned char>
run_load(const char *name, const CUtensorMap &tm, const Copy &cp) {
  std::vector<unsigned char> h(kBuf, 0);
  int timed_out = 0;
  if (!selected(name))
    return {};
  CHECK(cudaMemset(d_timeout, 0, 4));
  load<<<1, 128>>>(tm, cp, d_out, d_timeout);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h.data(), d_out, kBuf, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&timed_out, d_timeout, 4, cudaMemcpyDeviceToHost));
  if (timed_out)
    std::printf("%s: the mbarrier did not complete\n", name);
  EXPECT(timed_out == 0);
  dump(name, h.data(), cp.bytes);
  // Nothing past the box is written.
  for (size_t i = cp.bytes; i < kBuf; ++i)
    if (h[i] != 0xa5) {
      std::printf("%s: byte %zu past the box written\n", name, i);
      ++g_failures;
      break;
    }
  return h;
}

static bool encode(CUtensorMap *tm, CUtensorMapDataType type, int rank,
                   void *base, const cuuint64_t *dims,
                   const cuuint64_t *strides, const cuuint32_t *box,
                   CUtensorMapSwizzle swizzle, CUtensorMapFloatOOBfill fill) {
  cuuint32_t estr[5] = {1, 1, 1, 1, 1};
  CUresult r = encode_tiled(tm, type, rank, base, dims, strides, box, estr,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, fill);
  if (r != CUDA_SUCCESS)
    std::printf("cuTensorMapEncodeTiled failed: %d\n", int(r));
  EXPECT(r == CUDA_SUCCESS);
  return r == CUDA_SUCCESS;
}

// The source bytes of a 2-D box (rows of `row_bytes` from byte (x, y) of a
// tensor with rows of `pitch` bytes), all in bounds.
static std::vector<unsigned char> box_bytes(const std::vector<unsigned char> &s,
                                            int pitch, int xb, int y,
                                            int row_bytes, int rows) {
  std::vector<unsigned char> v;
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < row_bytes; ++i)
      v.push_back(s[(y + r) * pitch + xb + i]);
  return v;
}

// The swizzled position of byte `o` of a box at a 1024-byte aligned base:
// bits 4 and up of the offset XOR its bits 7 and up (one, two or three bits
// for the 32, 64 and 128 byte spans).
static size_t swizzle(size_t o, int span) {
  size_t mask = span / 16 - 1;
  return o ^ (((o >> 7) & mask) << 4);
}

static void swizzle_cases(std::vector<unsigned char> &src, void *d_src) {
  // One 6400-byte tensor of 40 rows of 160 bytes, read as f32, u16 and u8.
  struct T {
    const char *name;
    CUtensorMapDataType type;
    int size;
  } types[] = {{"f32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4},
               {"u16", CU_TENSOR_MAP_DATA_TYPE_UINT16, 2},
               {"u8", CU_TENSOR_MAP_DATA_TYPE_UINT8, 1}};
  struct S {
    const char *name;
    CUtensorMapSwizzle mode;
    int span;
  } swizzles[] = {{"none", CU_TENSOR_MAP_SWIZZLE_NONE, 0},
                  {"32b", CU_TENSOR_MAP_SWIZZLE_32B, 32},
                  {"64b", CU_TENSOR_MAP_SWIZZLE_64B, 64},
                  {"128b", CU_TENSOR_MAP_SWIZZLE_128B, 128}};
  for (const T &t : types)
    for (const S &s : swizzles) {
      // Unswizzled: 48-byte rows, 8 of them; swizzled: rows one span wide,
      // 1024 bytes in all (every row pattern of the span).
      int row_bytes = s.span ? s.span : 48;
      int rows = s.span ? 1024 / s.span : 8;
      // Dimension 0's coordinate is a multiple of 16 bytes: the H100 raises
      // an illegal instruction for a box that starts elsewhere.
      int x = 16 / t.size, y = 3;
      cuuint64_t dims[2] = {cuuint64_t(160 / t.size), 40};
      cuuint64_t strides[1] = {160};
      cuuint32_t box[2] = {cuuint32_t(row_bytes / t.size), cuuint32_t(rows)};
      alignas(64) CUtensorMap tm;
      if (!encode(&tm, t.type, 2, d_src, dims, strides, box, s.mode,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
        continue;
      Copy cp{2, 0, {x, y}, {}, unsigned(row_bytes * rows)};
      char name[64];
      std::snprintf(name, sizeof name, "tile_%s_swizzle_%s", t.name, s.name);
      auto got = run_load(name, tm, cp);
      if (got.empty())
        continue;
      auto want = box_bytes(src, 160, x * t.size, y, row_bytes, rows);
      int wrong = 0;
      for (size_t o = 0; o < want.size(); ++o)
        wrong += got[s.span ? swizzle(o, s.span) : o] != want[o];
      if (wrong)
        std::printf("%s: %d bytes not where the swizzle puts them\n", name,
                    wrong);
      EXPECT(wrong == 0);
    }
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Boxes partly out of bounds: 16 x 8 elements at (-16 bytes, 20) of a
// 40 x 24 tensor (f32, then f16), zero-filled and NaN-filled.
static void oob_cases(void *d_f32, void *d_f16) {
  const int W = 40, H = 24, BX = 16, BY = 8, Y = 20;
  for (int half = 0; half < 2; ++half)
    for (int nan = 0; nan < 2; ++nan) {
      int size = half ? 2 : 4, X = -16 / size;
      cuuint64_t dims[2] = {W, H}, strides[1] = {cuuint64_t(W * size)};
      cuuint32_t box[2] = {BX, BY};
      alignas(64) CUtensorMap tm;
      if (!encode(&tm,
                  half ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                       : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                  2, half ? d_f16 : d_f32, dims, strides, box,
                  CU_TENSOR_MAP_SWIZZLE_NONE,
                  nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                      : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
        continue;
      Copy cp{2, 0, {X, Y}, {}, unsigned(BX * BY * size)};
      char name[64];
      std::snprintf(name, sizeof name, "oob_%s_fill_%s", half ? "f16" : "f32",
                    nan ? "nan" : "zero");
      auto got = run_load(name, tm, cp);
      if (got.empty())
        continue;
      int wrong = 0;
      for (int r = 0; r < BY; ++r)
        for (int c = 0; c < BX; ++c) {
          int gx = X + c, gy = Y + r, i = r * BX + c;
          bool in = gx >= 0 && gx < W && gy >= 0 && gy < H;
          uint32_t v = half ? got[2 * i] | got[2 * i + 1] << 8
                            : got[4 * i] | got[4 * i + 1] << 8 |
                                  got[4 * i + 2] << 16 |
                                  uint32_t(got[4 * i + 3]) << 24;
          uint32_t want = 0;
          if (in) {
            // The sources hold the element's index + 0.5 (f16: + 0.25).
            want = half ? uint32_t(0x3c00 + ((gy * W + gx) & 0x3ff))
                        : f32_bits(float(gy * W + gx) + 0.5f);
            wrong += v != want;
          } else if (nan) {
            bool is_nan =
                half ? (v & 0x7c00) == 0x7c00 && (v & 0x3ff)
                     : (v & 0x7f800000) == 0x7f800000 && (v & 0x7fffff);
            wrong += !is_nan;
          } else {
            wrong += v != 0;
          }
        }
      if (wrong)
        std::printf("%s: %d elements differ\n", name, wrong);
      EXPECT(wrong == 0);
    }
}

// A 3-D tile (u32: 12 x 7 x 5, box 8 x 4 x 3 at (4, 2, 1)) and a 5-D tile
// (u16: 8 x 3 x 4 x 3 x 2, box 8 x 2 x 3 x 2 x 2 at (0, 1, 2, 1, 0), its
// last rows out of bounds in dimension 2).
static void rank_cases(void *d_src, const std::vector<unsigned char> &src) {
  {
    cuuint64_t dims[3] = {12, 7, 5}, strides[2] = {48, 48 * 7};
    cuuint32_t box[3] = {8, 4, 3};
    alignas(64) CUtensorMap tm;
    if (encode(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT32, 3, d_src, dims, strides,
               box, CU_TENSOR_MAP_SWIZZLE_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)) {
      Copy cp{3, 0, {4, 2, 1}, {}, 8 * 4 * 3 * 4};
      auto got = run_load("tile_3d_u32", tm, cp);
      int wrong = 0;
      if (!got.empty())
        for (int z = 0; z < 3; ++z)
          for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 8; ++x)
              for (int k = 0; k < 4; ++k)
                wrong += got[((z * 4 + y) * 8 + x) * 4 + k] !=
                         src[(z + 1) * 48 * 7 + (y + 2) * 48 + (x + 4) * 4 + k];
      EXPECT(wrong == 0);
    }
  }
  {
    cuuint64_t dims[5] = {8, 3, 4, 3, 2};
    cuuint64_t strides[4] = {16, 16 * 3, 16 * 3 * 4, 16 * 3 * 4 * 3};
    cuuint32_t box[5] = {8, 2, 3, 2, 2};
    alignas(64) CUtensorMap tm;
    if (encode(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT16, 5, d_src, dims, strides,
               box, CU_TENSOR_MAP_SWIZZLE_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)) {
      int c0[5] = {0, 1, 2, 1, 0};
      Copy cp{5, 0, {0, 1, 2, 1, 0}, {}, 8 * 2 * 3 * 2 * 2 * 2};
      auto got = run_load("tile_5d_u16", tm, cp);
      int wrong = 0, i = 0;
      if (!got.empty())
        for (int e = 0; e < 2; ++e)
          for (int d = 0; d < 2; ++d)
            for (int z = 0; z < 3; ++z)
              for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 8; ++x, ++i) {
                  int g[5] = {x + c0[0], y + c0[1], z + c0[2], d + c0[3],
                              e + c0[4]};
                  bool in = true;
                  size_t off = 0;
                  for (int k = 0; k < 5; ++k) {
                    in = in && g[k] < int(dims[k]);
                    off += g[k] * (k ? strides[k - 1] : 2);
                  }
                  for (int b = 0; b < 2; ++b)
                    wrong += got[2 * i + b] != (in ? src[off + b] : 0);
                }
      EXPECT(wrong == 0);
    }
  }
}

// im2col of an NHWC f32 tensor (C 8, W 6, H 5, N 2): pixel box corners
// lower (-1, -1), upper (-1, 0); 24 pixels per column, 8 channels per pixel,
// from (c 0, w -1, h -1, n 0) with offsets (1, 0). What the hardware loads
// is what this records; the program checks only that every value is one of
// the tensor's or zero.
static void im2col_case(void *d_f32, const std::vector<float> &f32) {
  cuuint64_t dims[4] = {8, 6, 5, 2}, strides[3] = {32, 32 * 6, 32 * 6 * 5};
  cuuint32_t estr[4] = {1, 1, 1, 1};
  int lower[2] = {-1, -1}, upper[2] = {-1, 0};
  alignas(64) CUtensorMap tm;
  CUresult r = encode_im2col(
      &tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, d_f32, dims, strides, lower,
      upper, 8, 24, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    std::printf("cuTensorMapEncodeIm2col failed: %d\n", int(r));
  EXPECT(r == CUDA_SUCCESS);
  if (r != CUDA_SUCCESS)
    return;
  Copy cp{4, 1, {0, -1, -1, 0}, {1, 0}, 24 * 8 * 4};
  auto got = run_load("im2col_4d_f32", tm, cp);
  int foreign = 0;
  for (int i = 0; i < (got.empty() ? 0 : 24 * 8); ++i) {
    float v;
    std::memcpy(&v, &got[4 * i], 4);
    // The source holds index + 0.5 at index; channel i % 8 of a pixel.
    int idx = int(v - 0.5f);
    bool ok = v == 0.0f || (idx >= 0 && idx < int(f32.size()) &&
                            f32[idx] == v && idx % 8 == i % 8);
    foreign += !ok;
  }
  EXPECT(foreign == 0);
}

// A tensor store and a reduce-add of a 16 x 8 f32 box at (-4, 5) of a 24 x 10
// f32 tensor (64-byte swizzle for the store: a 16-element row is 64 bytes;
// the box in shared memory is swizzled the same way as a load's).
static void store_cases(void *d_dst) {
  const int W = 24, H = 10, BX = 16, BY = 8, Y = 5;
  const int X = g_store_x;
  std::vector<float> init(W * H), box(BX * BY);
  for (int i = 0; i < W * H; ++i)
    init[i] = float(i) * 0.25f - 7.0f;
  for (int i = 0; i < BX * BY; ++i)
    box[i] = float(1000 + i);
  float *d_box;
  CHECK(cudaMalloc(&d_box, box.size() * 4));
  CHECK(cudaMemcpy(d_box, box.data(), box.size() * 4, cudaMemcpyHostToDevice));
  for (int reduce = 0; reduce < 2; ++reduce) {
    const char *name =
        reduce ? "reduce_add_f32_global" : "store_f32_swizzle_64b_global";
    if (!selected(name))
      continue;
    CHECK(cudaMemcpy(d_dst, init.data(), init.size() * 4,
                     cudaMemcpyHostToDevice));
    cuuint64_t dims[2] = {W, H}, strides[1] = {W * 4};
    cuuint32_t bx[2] = {BX, BY};
    CUtensorMapSwizzle sw =
        reduce ? CU_TENSOR_MAP_SWIZZLE_NONE : CU_TENSOR_MAP_SWIZZLE_64B;
    alignas(64) CUtensorMap tm;
    if (!encode(&tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d_dst, dims, strides,
                bx, sw, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
      continue;
    store<<<1, 128>>>(tm, d_box, BX * BY, X, Y, reduce);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> got(W * H);
    CHECK(
        cudaMemcpy(got.data(), d_dst, got.size() * 4, cudaMemcpyDeviceToHost));
    dump(name, reinterpret_cast<unsigned char *>(got.data()), got.size() * 4);
    int wrong = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        int bxi = x - X, byi = y - Y;
        float want = init[y * W + x];
        if (bxi >= 0 && bxi < BX && byi >= 0 && byi < BY) {
          // Shared-memory element of box position (bxi, byi): the store
          // reads it through the swizzle.
          size_t o = size_t(byi * BX + bxi) * 4;
          if (!reduce)
            o = swizzle(o, 64);
          float v = box[o / 4];
          want = reduce ? want + v : v;
        }
        wrong += got[y * W + x] != want;
      }
    EXPECT(wrong == 0);
  }
  CHECK(cudaFree(d_box));
}

int main(int argc, char **argv) {
  // Options (arguments that start with '-') are ignored.
  g_only = argc > 1 && argv[1][0] != '-' ? argv[1] : nullptr;
  if (argc > 2)
    g_store_x = std::atoi(argv[2]);
  void *fn = nullptr, *fn2 = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                         cudaEnableDefault, &q));
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", &fn2, 12000,
                                         cudaEnableDefault, &q));
  encode_tiled = reinterpret_cast<EncodeTiled>(fn);
  encode_im2col = reinterpret_cast<EncodeIm2col>(fn2);
  EXPECT(encode_tiled && encode_im2col);
  if (!encode_tiled || !encode_im2col)
    return finish("tma_modes");

  // Sources: bytes of a fixed pattern; f32 and f16 tensors holding their
  // element's index + 0.5 (f16: 1 + index / 1024, the bits 0x3c00 + index).
  std::vector<unsigned char> src(8192);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<unsigned char>((i * 151 + (i >> 8) * 29 + 7) & 0xff);
  std::vector<float> f32(40 * 24);
  std::vector<uint16_t> f16(40 * 24);
  for (size_t i = 0; i < f32.size(); ++i) {
    f32[i] = float(i) + 0.5f;
    f16[i] = static_cast<uint16_t>(0x3c00 + (i & 0x3ff));
  }
  void *d_src, *d_f32, *d_f16, *d_dst;
  CHECK(cudaMalloc(&d_src, src.size()));
  CHECK(cudaMalloc(&d_f32, f32.size() * 4));
  CHECK(cudaMalloc(&d_f16, f16.size() * 2));
  CHECK(cudaMalloc(&d_dst, 4096));
  CHECK(cudaMalloc(&d_out, kBuf));
  CHECK(cudaMalloc(&d_timeout, 4));
  CHECK(cudaMemcpy(d_src, src.data(), src.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_f32, f32.data(), f32.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_f16, f16.data(), f16.size() * 2, cudaMemcpyHostToDevice));

  swizzle_cases(src, d_src);
  oob_cases(d_f32, d_f16);
  rank_cases(d_src, src);
  im2col_case(d_f32, f32);
  store_cases(d_dst);

  CHECK(cudaFree(d_src));
  CHECK(cudaFree(d_f32));
  CHECK(cudaFree(d_f16));
  CHECK(cudaFree(d_dst));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_timeout));
  return finish("tma_modes");
}
