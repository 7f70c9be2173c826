#!/bin/sh
# Regenerates the committed PTX of every conformance kernel:
#   nvcc -ptx -arch=<arch> -o <name>.ptx <name>.cu
# and checks each result with ptxas for sm_90 (for <arch> itself when it is
# newer). <arch> is sm_80 unless the .cu file has a line `// arch: sm_XX`
# (clusters, elect.sync, bulk copies and mbarrier tx-counts need sm_90; the
# FP6/FP4 conversions sm_100a). The tests themselves never need nvcc.
# The checker's test kernels in check/ have their own script
# (check/regen-ptx.sh: -lineinfo, file names in .file).
#
# Usage: tests/kernels/regen-ptx.sh [FILE.cu...]   (default: all kernels)
# Environment: CUDA_HOME (default /usr/local/cuda).
set -eu
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ $# -eq 0 ]; then
  cd "$(dirname "$0")"
  set -- $(find . -mindepth 2 -name '*.cu' -not -path './ref/*' -not -path './check/*' | sort)
fi
for cu in "$@"; do
  arch=$(sed -n 's|^// arch: \(sm_[0-9a-z]*\).*|\1|p' "$cu" | head -n 1)
  arch=${arch:-sm_80}
  ptx=${cu%.cu}.ptx
  "$cuda/bin/nvcc" -ptx -arch="$arch" -o "$ptx" "$cu"
  check=sm_90
  case $arch in sm_1[0-9][0-9]* | *a) check=$arch ;; esac
  "$cuda/bin/ptxas" -arch="$check" "$ptx" -o /dev/null
  echo "$ptx ($arch)"
done
