#!/bin/sh
# Regenerates the PTX of the report tests from neighbours.cu,
# diagnostics.cu and callstack.cu: with line information (<name>.ptx,
# -lineinfo) and without (<name>_noline.ptx). nvcc writes the absolute path of the .cu into
# `.file`; only the file name is kept so that the PTX does not depend on the
# checkout. The tests themselves never need nvcc. Environment: CUDA_HOME
# (default /usr/local/cuda).
set -eu
cuda=${CUDA_HOME:-/usr/local/cuda}
cd "$(dirname "$0")"
dir=$(pwd)
for name in neighbours diagnostics callstack; do
  "$cuda/bin/nvcc" -ptx -lineinfo -arch=sm_80 -o $name.ptx $name.cu
  "$cuda/bin/nvcc" -ptx -arch=sm_80 -o ${name}_noline.ptx $name.cu
  sed -i "s|^\(\t\.file\t[0-9]* \"\)$dir/|\1|" $name.ptx
  for p in $name.ptx ${name}_noline.ptx; do
    "$cuda/bin/ptxas" -arch=sm_90 "$p" -o /dev/null
  done
done
