#!/bin/sh
# Regenerates the PTX of the report tests from neighbours.cu: with line
# information (neighbours.ptx, -lineinfo) and without (neighbours_noline.ptx).
# nvcc writes the absolute path of the .cu into `.file`; only the file name
# is kept so that the PTX does not depend on the checkout. The tests
# themselves never need nvcc. Environment: CUDA_HOME (default
# /usr/local/cuda).
set -eu
cuda=${CUDA_HOME:-/usr/local/cuda}
cd "$(dirname "$0")"
"$cuda/bin/nvcc" -ptx -lineinfo -arch=sm_80 -o neighbours.ptx neighbours.cu
"$cuda/bin/nvcc" -ptx -arch=sm_80 -o neighbours_noline.ptx neighbours.cu
dir=$(pwd)
sed -i "s|^\(\t\.file\t[0-9]* \"\)$dir/|\1|" neighbours.ptx
for p in neighbours.ptx neighbours_noline.ptx; do
  "$cuda/bin/ptxas" -arch=sm_90 "$p" -o /dev/null
done
