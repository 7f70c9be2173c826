// NVIDIA's precompiled GPU libraries as `bcusim exec` recognizes them, and
// the summary and report that name them (docs/exec.md "Precompiled GPU
// libraries").
#include <gtest/gtest.h>

#include "bcusim/runtime/runtime.h"
#include "precompiled.h"

using namespace bcusim;

TEST(Precompiled, LibrariesByFileName) {
  EXPECT_EQ(
      runtime::precompiled_product("/usr/local/cuda/lib64/libcublas.so.13"),
      "NVIDIA cuBLAS");
  EXPECT_EQ(runtime::precompiled_product("libcublasLt.so.13"),
            "NVIDIA cuBLASLt");
  EXPECT_EQ(runtime::precompiled_product("libcufft.so"), "NVIDIA cuFFT");
  EXPECT_EQ(runtime::precompiled_product("libcufftw.so.12"), "NVIDIA cuFFTW");
  EXPECT_EQ(runtime::precompiled_product("/x/libcudnn_ops.so.9"),
            "NVIDIA cuDNN");
  EXPECT_EQ(runtime::precompiled_product("libnppif.so.13"), "NVIDIA NPP");
  EXPECT_EQ(runtime::precompiled_product("libcusolverMg.so.12"),
            "NVIDIA cuSOLVERMg");
  // The runtime and driver (bcusim's stand-ins), compilers and other names.
  for (const char *other :
       {"libcudart.so.13", "libcuda.so.1", "libnvrtc.so.13",
        "libnvJitLink.so.13", "libcublas_static.a", "libcublasX.so.1",
        "/opt/libcublas/libfoo.so", "libcublas", ""})
    EXPECT_EQ(runtime::precompiled_product(other), "") << other;
}

TEST(Precompiled, Warnings) {
  EXPECT_EQ(
      runtime::precompiled_library_warning({"libcufft.so.12", "NVIDIA cuFFT"})
          .rfind("bcusim: warning: the program loaded libcufft.so.12 "
                 "(NVIDIA cuFFT): its kernels are GPU machine code",
                 0),
      0u);
  EXPECT_EQ(runtime::missing_driver_function_warning(
                "cuGetProcAddress", "cuLaunchKernel", "CUDA_ERROR_NOT_FOUND"),
            "bcusim: warning: cuGetProcAddress: the CUDA driver function "
            "'cuLaunchKernel' is not provided by bcusim; the caller gets a "
            "null pointer (CUDA_ERROR_NOT_FOUND)\n");
  // This test links none of them, and its own code is in none.
  EXPECT_TRUE(runtime::loaded_precompiled_libraries().empty());
  EXPECT_TRUE(runtime::precompiled_library_at(
                  reinterpret_cast<const void *>(&runtime::precompiled_product))
                  .file.empty());
}

TEST(Precompiled, SummaryNamesThem) {
  runtime::Runtime rt;
  const std::string plain = rt.summary();
  EXPECT_EQ(plain.find("precompiled"), std::string::npos);
  rt.precompiled_libraries = {"libcublas.so.13", "libcublasLt.so.13"};
  rt.missing_driver_functions = {"cuLinkCreate"};
  EXPECT_EQ(rt.summary(),
            plain + "; not run (precompiled GPU code): libcublas.so.13, "
                    "libcublasLt.so.13; driver functions not provided: "
                    "cuLinkCreate");
}
