// Models of the H100's multi-function unit (MUFU) and of the instruction
// sequences the PTX `.approx` forms (and `div.full`) become around it
// (docs/engine.md "Approximate functions"). The unit reads denormal inputs
// as zero and flushes denormal results; the non-.ftz PTX forms scale their
// operand into its range and back, as the machine code does. Function
// values are the exact function rounded once (the hardware's own tables are
// within the bounds docs/engine.md lists); special values follow the
// hardware bit for bit, every NaN result being 0x7fffffff (16-bit: 0x7fff).
#pragma once

#include <cstdint>

namespace bcusim::engine::detail::mufu {

// The unit on f32 operands. sin_turns/cos_turns take the angle in turns:
// sin_turns(t) = sin(2 pi t).
float rcp(float x);
float rsq(float x);
float sqrt(float x);
float ex2(float x);
float lg2(float x);
float sin_turns(float t);
float cos_turns(float t);
float tanh(float x);

// The PTX forms.
float rcp_approx(float x, bool ftz);
float sqrt_approx(float x, bool ftz);
float rsqrt_approx(float x, bool ftz);
float ex2_approx(float x, bool ftz);
float lg2_approx(float x, bool ftz);
float sin_approx(float x);
float cos_approx(float x);
float tanh_approx(float x);
float div_approx(float x, float y, bool ftz);
float div_full(float x, float y, bool ftz);

// rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 (MUFU.RCP64H / RSQ64H): only
// the operand's high 32 bits are read (a denormal is zero), the result is
// the function's high 32 bits, truncated, with a zero low word.
double rcp_approx_ftz64(double x);
double rsqrt_approx_ftz64(double x);

// ex2.approx and tanh.approx on one f16 (bf = false) or bf16 (bf = true)
// value, as bit patterns.
uint32_t ex2_approx16(uint32_t h, bool bf);
uint32_t tanh_approx16(uint32_t h, bool bf);

} // namespace bcusim::engine::detail::mufu
