#!/bin/sh
# Regenerates the committed PTX of the tests/exec programs (their kernels,
# as nvcc embeds them with -arch=sm_90) for tests/unit/runtime.
set -e
cd "$(dirname "$0")"
for f in memory launch fault reduce_scan sync_samples texture pipeline_tiles \
  race_loop streams heap clock; do
  /usr/local/cuda/bin/nvcc -ptx -arch=sm_90 -I. "$f.cu" -o "$f.ptx"
done
# Hopper-only kernels (TMA) need the sm_90a target.
for f in tma; do
  /usr/local/cuda/bin/nvcc -ptx -arch=sm_90a -I. "$f.cu" -o "$f.ptx"
done
