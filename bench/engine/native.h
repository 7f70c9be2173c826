// Native C++ versions of the benchmark kernels (bench_kernels.cu), each in
// a translation unit with the flags its comparison names (CMakeLists.txt):
// native_o2.cpp at -O2, native_o3.cpp at -O3 -march=native.
#pragma once

#include <cstdint>

namespace bcusim::bench {

// C = A * B, n x n floats, row-major; the same sum order as the kernel
// (acc += A[row][k] * B[k][col] for k = 0..n-1).
void native_matmul_o2(const float *A, const float *B, float *C, int n);
// y[i] = x[i].
void native_copy_o2(const float *x, float *y, uint32_t n);
// y[i] = a * x[i] + y[i].
void native_stream_o2(float a, const float *x, float *y, uint32_t n);
// The compute kernel's FMA chain for `threads` threads (thread t starts
// from a = t % block * 1e-3): _loop as the kernel is written (one thread's
// dependent chain after the other: the compiler cannot vectorize across
// threads), _vec interchanged by hand so that the threads are the inner
// loop and vectorize (the hardware's throughput: a bound no interpreter
// approaches).
void native_compute_o3_loop(float *out, uint32_t threads, uint32_t block,
                            uint32_t iters);
void native_compute_o3_vec(float *out, uint32_t threads, uint32_t block,
                           uint32_t iters);

} // namespace bcusim::bench
