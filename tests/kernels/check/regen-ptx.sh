#!/bin/sh
# Regenerates the committed PTX of the checker's test kernels:
#   nvcc -ptx -lineinfo -arch=<arch> -o <name>.ptx <name>.cu
# and checks each result with ptxas for sm_90 (sm_90a for sm_90a PTX). -lineinfo makes nvcc emit
# .file/.loc, so that findings can name CUDA source lines (cases.txt lists
# the expected findings by .cu line). <arch> is sm_80 unless the .cu file
# has a line `// arch: sm_XX` (clusters, elect.sync, bulk copies and
# mbarrier tx-counts need sm_90). The tests themselves never need nvcc.
#
# Usage: tests/kernels/check/regen-ptx.sh [FILE.cu...]  (default: all here)
# Environment: CUDA_HOME (default /usr/local/cuda).
set -eu
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ $# -eq 0 ]; then
  cd "$(dirname "$0")"
  set -- *.cu
fi
for cu in "$@"; do
  arch=$(sed -n 's|^// arch: \(sm_[0-9a-z]*\).*|\1|p' "$cu" | head -n 1)
  arch=${arch:-sm_80}
  ptx=${cu%.cu}.ptx
  "$cuda/bin/nvcc" -ptx -lineinfo -arch="$arch" -o "$ptx" "$cu"
  # nvcc writes the absolute path of the .cu into `.file`; keep only the
  # file name so the committed PTX does not depend on the checkout.
  dir=$(cd "$(dirname "$cu")" && pwd)
  sed -i "s|^\(\t\.file\t[0-9]* \"\)$dir/|\1|" "$ptx"
  # sm_90a PTX (wgmma) is checked for sm_90a, every other for sm_90.
  pa=sm_90
  [ "$arch" = sm_90a ] && pa=sm_90a
  "$cuda/bin/ptxas" -arch="$pa" "$ptx" -o /dev/null
  echo "$ptx ($arch)"
done
