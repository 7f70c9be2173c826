// Texture objects over linear memory, pitched memory and CUDA arrays:
// tex1Dfetch, tex2D with point and linear filtering, normalized
// coordinates, the address modes, normalized-float reads of 8-bit data and
// tex2Dgather. Expected values are computed on the host.
#include "common.h"
#include <cmath>
#include <vector>

__global__ void fetch1d(cudaTextureObject_t t, float *out, int n) {
  int i = threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch<float>(t, i) * 2.0f;
}

__global__ void sample2d(cudaTextureObject_t t, const float2 *at, float *out,
                         int n) {
  int i = threadIdx.x;
  if (i < n)
    out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

__global__ void sample_rgba(cudaTextureObject_t t, float4 *out) {
  out[threadIdx.x] = tex2D<float4>(t, threadIdx.x + 0.5f, 0.5f);
}

__global__ void gather(cudaTextureObject_t t, float4 *out) {
  out[0] = tex2Dgather<float4>(t, 2.0f, 2.0f, 0);
}

static cudaTextureObject_t make(cudaArray_t a, cudaTextureFilterMode filter,
                                cudaTextureAddressMode mode, bool normalized,
                                cudaTextureReadMode read =
                                    cudaReadModeElementType) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = mode;
  td.filterMode = filter;
  td.readMode = read;
  td.normalizedCoords = normalized;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
  return t;
}

int main() {
  // tex1Dfetch over linear memory.
  const int n = 64;
  float *lin, *out;
  CHECK(cudaMalloc(&lin, n * sizeof(float)));
  CHECK(cudaMallocManaged(&out, 256 * sizeof(float)));
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i * i);
  CHECK(cudaMemcpy(lin, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = lin;
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = n * sizeof(float);
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t1 = 0;
  CHECK(cudaCreateTextureObject(&t1, &res, &td, nullptr));
  fetch1d<<<1, n>>>(t1, out, n);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 0.0f && out[7] == 98.0f && out[63] == 2.0f * 63 * 63);

  // A 2-D CUDA array of floats: 8 x 4, value 10*x + 100*y.
  const int w = 8, hgt = 4;
  std::vector<float> img(w * hgt);
  for (int y = 0; y < hgt; ++y)
    for (int x = 0; x < w; ++x)
      img[y * w + x] = 10.0f * x + 100.0f * y;
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &fdesc, w, hgt));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * sizeof(float),
                            w * sizeof(float), hgt, cudaMemcpyHostToDevice));
  float2 *at;
  CHECK(cudaMallocManaged(&at, 16 * sizeof(float2)));
  const float2 pts[] = {
      {3.5f, 2.5f},  // texel (3,2) exactly
      {3.9f, 2.1f},  // point: still (3,2)
      {-4.0f, 1.5f}, // clamp: (0,1)
      {20.0f, 9.0f}, // clamp: (7,3)
      {1.0f, 0.5f},  // linear: halfway between x=0 and x=1
      {2.75f, 1.0f}, // linear: 3/4 across x, halfway across y
  };
  for (int i = 0; i < 6; ++i)
    at[i] = pts[i];
  cudaTextureObject_t point = make(arr, cudaFilterModePoint,
                                   cudaAddressModeClamp, false);
  sample2d<<<1, 6>>>(point, at, out, 6);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 230.0f && out[1] == 230.0f);
  EXPECT(out[2] == 100.0f && out[3] == 370.0f);
  cudaTextureObject_t lerp = make(arr, cudaFilterModeLinear,
                                  cudaAddressModeClamp, false);
  sample2d<<<1, 6>>>(lerp, at, out, 6);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 230.0f);
  EXPECT(std::fabs(out[4] - 5.0f) < 1e-4f);
  EXPECT(std::fabs(out[5] - (22.5f + 50.0f)) < 1e-3f);

  // Normalized coordinates: wrap, mirror and border.
  const float2 npts[] = {{1.25f + 0.5f / w, 0.5f / hgt},  // wrap -> x = 2
                         {-0.25f + 0.5f / w, 0.5f / hgt}}; // wrap -> x = 6
  at[0] = npts[0];
  at[1] = npts[1];
  cudaTextureObject_t wrap = make(arr, cudaFilterModePoint,
                                  cudaAddressModeWrap, true);
  sample2d<<<1, 2>>>(wrap, at, out, 2);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 20.0f && out[1] == 60.0f);
  cudaTextureObject_t mirror = make(arr, cudaFilterModePoint,
                                    cudaAddressModeMirror, true);
  sample2d<<<1, 2>>>(mirror, at, out, 2);
  CHECK(cudaDeviceSynchronize());
  // 1.25 mirrors to 0.75 (x = 6... reflected: 10 - 1 - 10 = 5 of 8), -0.25
  // to 0.25 reflected (x = 1).
  EXPECT(out[0] == 50.0f && out[1] == 10.0f);
  cudaTextureObject_t border = make(arr, cudaFilterModePoint,
                                    cudaAddressModeBorder, true);
  sample2d<<<1, 2>>>(border, at, out, 2);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 0.0f && out[1] == 0.0f);

  // uchar4 read as normalized floats.
  cudaChannelFormatDesc cdesc = cudaCreateChannelDesc<uchar4>();
  cudaArray_t carr;
  CHECK(cudaMallocArray(&carr, &cdesc, 4, 1));
  const unsigned char px[16] = {255, 0, 51, 255, 0, 255, 0, 128,
                                10,  20, 30, 40, 1,   2,  3,  4};
  CHECK(cudaMemcpy2DToArray(carr, 0, 0, px, 16, 16, 1,
                            cudaMemcpyHostToDevice));
  cudaTextureObject_t rgba = make(carr, cudaFilterModePoint,
                                  cudaAddressModeClamp, false,
                                  cudaReadModeNormalizedFloat);
  float4 *o4;
  CHECK(cudaMallocManaged(&o4, 4 * sizeof(float4)));
  sample_rgba<<<1, 4>>>(rgba, o4);
  CHECK(cudaDeviceSynchronize());
  EXPECT(o4[0].x == 1.0f && o4[0].y == 0.0f && o4[0].z == 0.2f);
  EXPECT(std::fabs(o4[1].w - 128.0f / 255.0f) < 1e-6f);

  // tex2Dgather: component x of the 2x2 footprint around (2, 2), counter-
  // clockwise from the lower left: (1,2) (2,2) (2,1) (1,1).
  gather<<<1, 1>>>(point, o4);
  CHECK(cudaDeviceSynchronize());
  EXPECT(o4[0].x == 210.0f && o4[0].y == 220.0f && o4[0].z == 120.0f &&
         o4[0].w == 110.0f);

  // Reading an array back.
  std::vector<float> back(w * hgt);
  CHECK(cudaMemcpy2DFromArray(back.data(), w * sizeof(float), arr, 0, 0,
                              w * sizeof(float), hgt,
                              cudaMemcpyDeviceToHost));
  EXPECT(back == img);
  for (auto t : {t1, point, lerp, wrap, mirror, border, rgba})
    CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(arr));
  CHECK(cudaFreeArray(carr));
  return finish("texture");
}
