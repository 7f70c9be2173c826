#!/bin/sh
# Regenerates the committed PTX of the tests/exec programs (their kernels,
# as nvcc embeds them with -arch=sm_90) for tests/unit/runtime.
set -e
cd "$(dirname "$0")"
for f in memory launch fault reduce_scan sync_samples texture pipeline_tiles \
  race_loop streams heap clock concurrent shared_layout driver_api_kernels; do
  /usr/local/cuda/bin/nvcc -ptx -arch=sm_90 -I. "$f.cu" -o "$f.ptx"
done
# Hopper-only kernels (TMA) need the sm_90a target.
for f in tma tma_refused; do
  /usr/local/cuda/bin/nvcc -ptx -arch=sm_90a -I. "$f.cu" -o "$f.ptx"
done
# The Hopper pipelines need the sm_90a features (wgmma, setmaxnreg).
for f in hopper_gemm hopper_attention tma_modes wgmma_numerics; do
  /usr/local/cuda/bin/nvcc -ptx -gencode arch=compute_90a,code=compute_90a \
    -I. "$f.cu" -o "$f.ptx"
  /usr/local/cuda/bin/ptxas -arch=sm_90a "$f.ptx" -o /dev/null
done
# Relocatable device code: each unit's PTX, linked by the runtime.
for f in link_a link_b; do
  /usr/local/cuda/bin/nvcc -ptx -rdc=true -arch=sm_90 -I. "$f.cu" -o "$f.ptx"
done
