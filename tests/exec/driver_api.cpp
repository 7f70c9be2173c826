// The CUDA driver API as programs that compile their kernels at run time
// use it: NVRTC compiles CUDA C++ to PTX, cuModuleLoadDataEx loads it,
// cuLaunchKernel runs it (with kernelParams and with a packed `extra`
// buffer); a PTX file loaded with cuModuleLoad; memory, streams, events,
// globals, attributes and the errors of images bcusim cannot run.
// Arguments: [PTX file of driver_api_kernels.cu] [race]: "race" also
// launches a kernel with a shared-memory race (the checker reports it and
// the program runs on).
#include "common.h"
#include <cstddef>
#include <cuda.h>
#include <nvrtc.h>
#include <string>

static const char *kSource = R"(
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
// Every thread adds to one shared word without atomics: a race.
extern "C" __global__ void racy_count(int *out) {
  __shared__ int count;
  if (threadIdx.x == 0)
    count = 0;
  __syncthreads();
  count += 1;
  __syncthreads();
  if (threadIdx.x == 0)
    *out = count;
}
)";

// NVRTC's output for the source above: PTX, or machine code (a cubin).
static std::string compile(bool cubin) {
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, kSource, "runtime.cu", 0, nullptr, nullptr) !=
      NVRTC_SUCCESS)
    return "";
  const char *opts[] = {cubin ? "--gpu-architecture=sm_90"
                              : "--gpu-architecture=compute_90"};
  std::string out;
  if (nvrtcCompileProgram(prog, 1, opts) == NVRTC_SUCCESS) {
    size_t n = 0;
    if (cubin) {
      nvrtcGetCUBINSize(prog, &n);
      out.resize(n);
      nvrtcGetCUBIN(prog, out.data());
    } else {
      nvrtcGetPTXSize(prog, &n);
      out.resize(n);
      nvrtcGetPTX(prog, out.data());
    }
  }
  nvrtcDestroyProgram(&prog);
  return out;
}

int main(int argc, char **argv) {
  const char *ptx_file = argc > 1 && argv[1][0] != '-' ? argv[1] : nullptr;
  const bool race = argc > 2 && std::strcmp(argv[2], "race") == 0;

  CUdevice dev;
  CUcontext ctx;
  CUmodule nvrtc_mod;
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGet(&dev, 0));
  char name[256];
  CU_CHECK(cuDeviceGetName(name, sizeof(name), dev));
  const bool bcusim = std::strstr(name, "(bcusim)") != nullptr;
  int major = 0, minor = 0, sms = 0;
  CU_CHECK(cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU_CHECK(cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  CU_CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                dev));
  EXPECT(major == 9 && minor == 0 && sms > 0);
  EXPECT(cuDeviceGet(&dev, 1) == CUDA_ERROR_INVALID_DEVICE);
  CU_CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
  CUcontext current = nullptr;
  CU_CHECK(cuCtxGetCurrent(&current));
  EXPECT(current == ctx);

  // ---- NVRTC's PTX, loaded from memory with the JIT's log buffers.
  std::string ptx = compile(false);
  EXPECT(ptx.find(".entry saxpy") != std::string::npos);
  char info_log[256] = "x", error_log[256] = "x";
  CUjit_option opts[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {info_log, reinterpret_cast<void *>(sizeof(info_log)),
                  error_log, reinterpret_cast<void *>(sizeof(error_log))};
  CU_CHECK(cuModuleLoadDataEx(&nvrtc_mod, ptx.c_str(), 4, opts, vals));
  EXPECT(error_log[0] == '\0');
  unsigned count = 0;
  CU_CHECK(cuModuleGetFunctionCount(&count, nvrtc_mod));
  EXPECT(count == 2);
  CUfunction saxpy, missing = nullptr;
  CU_CHECK(cuModuleGetFunction(&saxpy, nvrtc_mod, "saxpy"));
  EXPECT(cuModuleGetFunction(&missing, nvrtc_mod, "nope") ==
         CUDA_ERROR_NOT_FOUND);

  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i)
    hx[i] = float(i), hy[i] = 1.0f;
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_CHECK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dx, hx.data(), n * sizeof(float)));
  // 1.0f in every word: a fill of 4-byte values.
  CU_CHECK(cuMemsetD32(dy, 0x3f800000u, n));
  float a = 2.0f;
  int nn = n;
  void *params[] = {&a, &dx, &dy, &nn};
  CU_CHECK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr,
                          params, nullptr));
  CU_CHECK(cuCtxSynchronize());
  CU_CHECK(cuMemcpyDtoH(hy.data(), dy, n * sizeof(float)));
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok &= hy[i] == 2.0f * float(i) + 1.0f;
  EXPECT(ok);

  // The same kernel with its arguments packed in one buffer (`extra`): its
  // size is the parameters' bytes (28), not the struct's (32, with the
  // padding after n).
  struct {
    float a;
    int pad;
    CUdeviceptr x, y;
    int n;
  } packed{1.0f, 0, dx, dy, n};
  size_t packed_size = offsetof(decltype(packed), n) + sizeof(int);
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed,
                   CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                   CU_LAUNCH_PARAM_END};
  CU_CHECK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr,
                          nullptr, extra));
  CU_CHECK(cuMemcpyDtoH(hy.data(), dy, n * sizeof(float)));
  ok = true;
  for (int i = 0; i < n; ++i)
    ok &= hy[i] == 3.0f * float(i) + 1.0f;
  EXPECT(ok);

  if (race) {
    CUfunction racy;
    CU_CHECK(cuModuleGetFunction(&racy, nvrtc_mod, "racy_count"));
    CUdeviceptr dout;
    CU_CHECK(cuMemAlloc(&dout, sizeof(int)));
    void *rp[] = {&dout};
    CU_CHECK(cuLaunchKernel(racy, 1, 1, 1, 64, 1, 1, 0, nullptr, rp, nullptr));
    CU_CHECK(cuCtxSynchronize());
    CU_CHECK(cuMemFree(dout));
  }

  // A 2-D copy of a 4 x 3 box out of the middle of the device array (rows
  // of 40 floats) into a packed host box; what a pointer is.
  {
    std::vector<float> box(12);
    CUDA_MEMCPY2D c{};
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = dy;
    c.srcXInBytes = 2 * sizeof(float);
    c.srcY = 1;
    c.srcPitch = 40 * sizeof(float);
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = box.data();
    c.dstPitch = 4 * sizeof(float);
    c.WidthInBytes = 4 * sizeof(float);
    c.Height = 3;
    CU_CHECK(cuMemcpy2D(&c));
    EXPECT(box[0] == hy[42] && box[5] == hy[83] && box[11] == hy[125]);
    unsigned type = 0;
    CU_CHECK(
        cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dy));
    EXPECT(type == CU_MEMORYTYPE_DEVICE);
  }

  // A buffer larger than the parameters is refused; a smaller one is taken
  // (bcusim reads the bytes it lacks as zero: n = 0 here, nothing changes).
  for (size_t size : {size_t(32), size_t(40)}) {
    packed_size = size;
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 128, 1, 1, 0, nullptr, nullptr,
                          extra) == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  }
  packed_size = 24;
  CU_CHECK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr,
                          nullptr, extra));
  CU_CHECK(cuCtxSynchronize());
  if (bcusim) {
    std::vector<float> same(n);
    CU_CHECK(cuMemcpyDtoH(same.data(), dy, n * sizeof(float)));
    EXPECT(same == hy);
  }

  // ---- Images bcusim cannot run, and PTX that does not compile.
  CUmodule bad = nullptr;
  if (bcusim) { // a GPU runs its machine code
    std::string cubin = compile(true);
    EXPECT(!cubin.empty() && cuModuleLoadData(&bad, cubin.data()) ==
                                 CUDA_ERROR_NO_BINARY_FOR_GPU);
  }
  EXPECT(cuModuleLoadData(&bad, ".version 9.0\n.target sm_90\nbogus;\n") ==
         CUDA_ERROR_INVALID_PTX);
  EXPECT(cuModuleLoad(&bad, "/nonexistent/k.ptx") == CUDA_ERROR_FILE_NOT_FOUND);
  const char *err_name = nullptr;
  CU_CHECK(cuGetErrorName(CUDA_ERROR_INVALID_PTX, &err_name));
  EXPECT(err_name && std::strcmp(err_name, "CUDA_ERROR_INVALID_PTX") == 0);

  // ---- A PTX file, a stream, events, a global variable, attributes.
  if (ptx_file) {
    CUmodule mod;
    CU_CHECK(cuModuleLoad(&mod, ptx_file));
    CUfunction scale_add, block_sum;
    CU_CHECK(cuModuleGetFunction(&scale_add, mod, "scale_add"));
    CU_CHECK(cuModuleGetFunction(&block_sum, mod, "block_sum"));
    int max_threads = 0;
    CU_CHECK(cuFuncGetAttribute(
        &max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, block_sum));
    EXPECT(max_threads == 1024);
    int shared = 0;
    CU_CHECK(cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                block_sum));
    EXPECT(shared == 256 * 4);

    CUstream s;
    CUevent start, stop;
    CU_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CU_CHECK(cuEventCreate(&start, 0));
    CU_CHECK(cuEventCreate(&stop, 0));
    const int m = 4096;
    std::vector<int> hin(m), hout(m / 256);
    for (int i = 0; i < m; ++i)
      hin[i] = i % 7 - 3;
    CUdeviceptr din, dsums;
    CU_CHECK(cuMemAlloc(&din, m * sizeof(int)));
    CU_CHECK(cuMemAlloc(&dsums, m / 256 * sizeof(int)));
    CU_CHECK(cuEventRecord(start, s));
    CU_CHECK(cuMemcpyHtoDAsync(din, hin.data(), m * sizeof(int), s));
    int mm = m;
    void *bp[] = {&din, &dsums, &mm};
    CU_CHECK(
        cuLaunchKernel(block_sum, m / 256, 1, 1, 256, 1, 1, 0, s, bp, nullptr));
    CUdeviceptr dbias;
    size_t bias_size = 0;
    CU_CHECK(cuModuleGetGlobal(&dbias, &bias_size, mod, "bias"));
    EXPECT(bias_size == 4);
    const float bias = 0.25f;
    CU_CHECK(cuMemcpyHtoD(dbias, &bias, sizeof(bias)));
    float b = 0.5f;
    void *sp[] = {&a, &dx, &b, &dy, &nn};
    CU_CHECK(cuLaunchKernel(scale_add, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s,
                            sp, nullptr));
    CU_CHECK(cuMemcpyDtoHAsync(hout.data(), dsums, m / 256 * sizeof(int), s));
    int called = 0;
    CU_CHECK(cuStreamAddCallback(
        s,
        [](CUstream, CUresult status, void *flag) {
          *static_cast<int *>(flag) = status == CUDA_SUCCESS ? 1 : 2;
        },
        &called, 0));
    CU_CHECK(cuEventRecord(stop, s));
    CU_CHECK(cuStreamSynchronize(s));
    float ms = -1;
    CU_CHECK(cuEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0 && called == 1);
    ok = true;
    for (int c = 0; c < m / 256; ++c) {
      int want = 0;
      for (int i = c * 256; i < (c + 1) * 256; ++i)
        want += hin[i];
      ok &= hout[c] == want;
    }
    EXPECT(ok);
    CU_CHECK(cuMemcpyDtoH(hy.data(), dy, n * sizeof(float)));
    EXPECT(hy[10] == 2.0f * 10.0f + 0.5f + 0.25f);
    CUdeviceptr dcalls;
    size_t calls_size = 0;
    CU_CHECK(cuModuleGetGlobal(&dcalls, &calls_size, mod, "calls"));
    int calls = 0;
    CU_CHECK(cuMemcpyDtoH(&calls, dcalls, sizeof(int)));
    EXPECT(calls_size == 4 && calls == 1);
    CU_CHECK(cuEventDestroy(start));
    CU_CHECK(cuEventDestroy(stop));
    CU_CHECK(cuStreamDestroy(s));
    CU_CHECK(cuMemFree(din));
    CU_CHECK(cuMemFree(dsums));
    CU_CHECK(cuModuleUnload(mod));
  }

  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuMemFree(dy));
  CU_CHECK(cuModuleUnload(nvrtc_mod));
  CU_CHECK(cuCtxDestroy(ctx));
  std::printf("driver_api: %s\n", g_failures ? "FAIL" : "PASS");
  return g_failures ? 1 : 0;
}
