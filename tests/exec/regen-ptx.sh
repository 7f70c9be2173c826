#!/bin/sh
# Regenerates the committed PTX of the tests/exec programs (their kernels,
# as nvcc embeds them with -arch=sm_90) for tests/unit/runtime.
set -e
cd "$(dirname "$0")"
for f in memory launch fault reduce_scan sync_samples texture pipeline_tiles \
  race_loop streams heap clock; do
  /usr/local/cuda/bin/nvcc -ptx -arch=sm_90 -I. "$f.cu" -o "$f.ptx"
done
# Relocatable device code: each unit's PTX, linked by the runtime.
for f in link_a link_b; do
  /usr/local/cuda/bin/nvcc -ptx -rdc=true -arch=sm_90 -I. "$f.cu" -o "$f.ptx"
done
