# The bundled example of `make run` (examples/kernels/pipeline.cu): every
# consumer thread's last result is 2*in+1, odd, and the producers' are 0, so
# __syncthreads_count gives 64 in each CTA.
# RUN: bcusim run ../../../examples/kernels/pipeline.ptx -g 2 -b 128 -a s32[512]=iota -a s32[512] -a s32[2] -a s32:4 --dump 2
