// The PTX facts table and the operand signatures (docs/ptx-validation.md),
// applied by validate.cpp. Requirements are those ptxas 13 enforces; the
// probes in tests/ptx-probes check every rule against it.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "bcusim/ptx/instructions.h"

namespace bcusim::ptx {

namespace {

using K = Feature::Kind;
using F = Family;

constexpr Requirement req(uint16_t sm, uint16_t ptx, bool a = false) {
  return Requirement{sm, ptx, a};
}

// clang-format off
constexpr Feature kFeatures[] = {
    // ---- instructions (opcode and the modifiers that name the form) ----
    {K::Instruction, "barrier.cluster", "", F::Cluster, req(90, 78), "arrive wait aligned release relaxed acquire"},
    {K::Instruction, "barrier.cluster.arrive", "", F::Cluster, req(90, 78), "aligned release relaxed"},
    {K::Instruction, "barrier.cluster.wait", "", F::Cluster, req(90, 78), "aligned acquire"},
    {K::Instruction, "elect", "", F::Warp, req(90, 80), "sync"},
    {K::Instruction, "griddepcontrol", "", F::Cluster, req(90, 78), "launch_dependents wait"},
    {K::Instruction, "mapa", "", F::Cluster, req(90, 78), "-"},
    {K::Instruction, "getctarank", "", F::Cluster, req(90, 78), "-"},
    {K::Instruction, "mbarrier", "", F::Mbarrier, req(80, 70), "init inval arrive arrive_drop expect_tx complete_tx test_wait try_wait parity pending_count noComplete release acquire relaxed cta cluster"},
    {K::Instruction, "mbarrier.test_wait.parity", "", F::Mbarrier, req(80, 71), ""},
    {K::Instruction, "mbarrier.try_wait", "", F::Mbarrier, req(90, 78), ""},
    {K::Instruction, "mbarrier.expect_tx", "", F::Mbarrier, req(90, 80), ""},
    {K::Instruction, "mbarrier.complete_tx", "", F::Mbarrier, req(90, 80), ""},
    {K::Instruction, "cp.async", "", F::AsyncCopy, req(80, 70), ""},
    {K::Instruction, "cp.async.bulk", "", F::AsyncCopy, req(90, 80), ""},
    {K::Instruction, "cp.reduce.async.bulk", "", F::AsyncCopy, req(90, 80), ""},
    {K::Instruction, "cp.async.bulk.tensor", "", F::AsyncCopy, req(90, 80), ""},
    {K::Instruction, "cp.async.bulk.prefetch", "", F::AsyncCopy, req(90, 80), ""},
    {K::Instruction, "cp.async.bulk.prefetch.tensor", "", F::AsyncCopy, req(90, 80), ""},
    {K::Instruction, "cp.reduce.async.bulk.tensor", "", F::AsyncCopy, req(90, 80), "1d 2d 3d 4d 5d add min max inc dec and or xor tile im2col_no_offs bulk_group L2::cache_hint"},
    {K::Instruction, "redux", "", F::Warp, req(80, 70), "sync add min max and or xor abs NaN"},
    {K::Instruction, "match", "", F::Warp, req(70, 60), "any all sync"},
    {K::Instruction, "activemask", "", F::Warp, req(30, 62), "-"},
    {K::Instruction, "vote", "", F::Warp, req(0, 0), "sync any all uni ballot"},
    {K::Instruction, "shfl", "", F::Warp, req(0, 0), "sync up down bfly idx"},
    {K::Instruction, "bar.warp.sync", "", F::Warp, req(30, 60), "-"},
    {K::Instruction, "bar", "", F::CtaBarrier, req(0, 0), "cta sync arrive red popc and or"},
    {K::Instruction, "bar.arrive", "", F::CtaBarrier, req(20, 0), ""},
    {K::Instruction, "bar.red", "", F::CtaBarrier, req(20, 0), ""},
    {K::Instruction, "barrier", "", F::CtaBarrier, req(30, 60), "cta sync arrive red popc and or aligned"},
    {K::Instruction, "fence", "", F::Fence, req(70, 60), "sc acq_rel acquire release cta cluster gpu sys proxy alias async tensormap mbarrier_init shared::cta shared::cluster global generic async::generic async::global async::shared::cta async::shared::cluster tensormap::generic sync_restrict::shared::cta sync_restrict::shared::cluster"},
    {K::Instruction, "membar", "", F::Fence, req(0, 0), "cta gl sys proxy alias"},
    {K::Instruction, "nanosleep", "", F::Control, req(70, 63), ""},
    {K::Instruction, "setmaxnreg", "", F::Control, req(90, 80, true), ""},
    {K::Instruction, "shfl.sync", "", F::Warp, req(0, 60), ""},
    {K::Instruction, "vote.sync", "", F::Warp, req(0, 60), ""},
    {K::Instruction, "membar.proxy", "", F::Fence, req(60, 75), ""},
    {K::Instruction, "tanh", "", F::Other, req(75, 70), ""},
    {K::Instruction, "dp4a", "", F::Other, req(61, 50), ""},
    {K::Instruction, "dp2a", "", F::Other, req(61, 50), ""},
    {K::Instruction, "lop3", "", F::Other, req(0, 43), ""},
    {K::Instruction, "szext", "", F::Other, req(70, 76), ""},
    {K::Instruction, "bmsk", "", F::Other, req(70, 76), ""},
    {K::Instruction, "ldmatrix", "", F::Other, req(75, 65), ""},
    {K::Instruction, "stmatrix", "", F::Other, req(90, 78), ""},
    {K::Instruction, "movmatrix", "", F::Other, req(75, 78), ""},
    {K::Instruction, "wgmma", "", F::Other, req(90, 80, true), ""},
    {K::Instruction, "multimem", "", F::Memory, req(90, 81), ""},
    {K::Instruction, "stacksave", "", F::Other, req(52, 73), ""},
    {K::Instruction, "stackrestore", "", F::Other, req(52, 73), ""},
    {K::Instruction, "alloca", "", F::Other, req(52, 73), ""},
    {K::Instruction, "createpolicy", "", F::Other, req(80, 74), ""},
    {K::Instruction, "discard", "", F::Memory, req(80, 74), ""},
    {K::Instruction, "applypriority", "", F::Memory, req(80, 74), ""},
    {K::Instruction, "st.async", "", F::Memory, req(90, 81), ""},
    {K::Instruction, "red.async", "", F::Memory, req(90, 81), ""},
    {K::Instruction, "clusterlaunchcontrol", "", F::Cluster, req(100, 86), ""},
    {K::Instruction, "tensormap", "", F::Other, req(90, 83, true), ""},
    // ---- modifiers (of the instructions under `scope`) ----
    {K::Modifier, "expect_tx", "mbarrier", F::Mbarrier, req(90, 80), ""},
    {K::Modifier, "sp", "wgmma", F::Other, req(90, 82, true), ""},
    {K::Modifier, "cp_mask", "cp.async.bulk", F::AsyncCopy, req(100, 86), ""},
    {K::Modifier, "m16n8", "stmatrix", F::Other, req(100, 86, true), ""},
    {K::Modifier, "release", "mbarrier", F::Mbarrier, req(0, 80), ""},
    {K::Modifier, "acquire", "mbarrier", F::Mbarrier, req(0, 80), ""},
    {K::Modifier, "relaxed", "mbarrier", F::Mbarrier, req(90, 80), ""},
    {K::Modifier, "relaxed", "mbarrier.arrive", F::Mbarrier, req(90, 86), ""},
    {K::Modifier, "relaxed", "mbarrier.arrive_drop", F::Mbarrier, req(90, 86), ""},
    {K::Modifier, "relaxed", "mbarrier.test_wait", F::Mbarrier, req(90, 86), ""},
    {K::Modifier, "relaxed", "mbarrier.try_wait", F::Mbarrier, req(90, 86), ""},
    {K::Modifier, "cta", "bar", F::CtaBarrier, req(0, 78), ""},
    {K::Modifier, "cta", "barrier", F::CtaBarrier, req(0, 78), ""},
    {K::Modifier, "shared::cta", "*", F::Memory, req(0, 78), ""},
    {K::Modifier, "release", "fence.proxy", F::Fence, req(90, 83), ""},
    {K::Modifier, "acquire", "fence.proxy", F::Fence, req(90, 83), ""},
    {K::Modifier, "sync_restrict::shared::cta", "fence", F::Fence, req(90, 86), ""},
    {K::Modifier, "sync_restrict::shared::cluster", "fence", F::Fence, req(90, 86), ""},
    {K::Modifier, "relaxed", "barrier.cluster", F::Cluster, req(90, 80), ""},
    {K::Modifier, "release", "barrier.cluster", F::Cluster, req(90, 80), ""},
    {K::Modifier, "acquire", "barrier.cluster", F::Cluster, req(90, 80), ""},
    {K::Modifier, "cluster", "*", F::Memory, req(90, 78), ""},
    {K::Modifier, "shared::cluster", "*", F::Memory, req(90, 78), ""},
    {K::Modifier, "async", "fence", F::Fence, req(90, 80), ""},
    {K::Modifier, "mbarrier_init", "fence", F::Fence, req(90, 80), ""},
    {K::Modifier, "mbarrier::complete_tx::bytes", "*", F::AsyncCopy, req(90, 80), ""},
    {K::Modifier, "f32", "redux", F::Warp, req(100, 86, true), ""},
    // ---- types and modifiers of the arithmetic and memory instructions ----
    {K::Modifier, "bf16", "*", F::Other, req(80, 70), ""},
    {K::Modifier, "bf16x2", "*", F::Other, req(80, 70), ""},
    {K::Modifier, "bf16", "add", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16", "sub", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16", "mul", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16", "setp", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16", "tanh", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16", "ex2", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16x2", "add", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16x2", "sub", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16x2", "mul", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16x2", "setp", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16x2", "tanh", F::Other, req(90, 78), ""},
    {K::Modifier, "bf16x2", "ex2", F::Other, req(90, 78), ""},
    {K::Modifier, "f16", "add", F::Other, req(53, 42), ""},
    {K::Modifier, "f16", "sub", F::Other, req(53, 42), ""},
    {K::Modifier, "f16", "mul", F::Other, req(53, 42), ""},
    {K::Modifier, "f16", "fma", F::Other, req(53, 42), ""},
    {K::Modifier, "f16", "setp", F::Other, req(53, 42), ""},
    {K::Modifier, "f16", "set", F::Other, req(53, 65), ""},
    {K::Modifier, "f16", "abs", F::Other, req(53, 65), ""},
    {K::Modifier, "f16", "neg", F::Other, req(53, 60), ""},
    {K::Modifier, "f16", "min", F::Other, req(80, 70), ""},
    {K::Modifier, "f16", "max", F::Other, req(80, 70), ""},
    {K::Modifier, "f16", "ex2", F::Other, req(75, 70), ""},
    {K::Modifier, "f16x2", "add", F::Other, req(53, 42), ""},
    {K::Modifier, "f16x2", "sub", F::Other, req(53, 42), ""},
    {K::Modifier, "f16x2", "mul", F::Other, req(53, 42), ""},
    {K::Modifier, "f16x2", "fma", F::Other, req(53, 42), ""},
    {K::Modifier, "f16x2", "setp", F::Other, req(53, 42), ""},
    {K::Modifier, "f16x2", "abs", F::Other, req(53, 65), ""},
    {K::Modifier, "f16x2", "neg", F::Other, req(53, 60), ""},
    {K::Modifier, "f16x2", "min", F::Other, req(80, 70), ""},
    {K::Modifier, "f16x2", "max", F::Other, req(80, 70), ""},
    {K::Modifier, "f16x2", "ex2", F::Other, req(75, 70), ""},
    {K::Modifier, "f32x2", "*", F::Other, req(100, 86), ""},
    {K::Modifier, "u16x2", "*", F::Other, req(90, 80), ""},
    {K::Modifier, "s16x2", "*", F::Other, req(90, 80), ""},
    {K::Modifier, "relu", "min", F::Other, req(90, 80), ""},
    {K::Modifier, "relu", "max", F::Other, req(90, 80), ""},
    {K::Modifier, "relu", "fma", F::Other, req(80, 70), ""},
    {K::Modifier, "relu", "cvt", F::Other, req(80, 70), ""},
    {K::Modifier, "NaN", "min", F::Other, req(80, 70), ""},
    {K::Modifier, "NaN", "max", F::Other, req(80, 70), ""},
    {K::Modifier, "xorsign", "min", F::Other, req(86, 72), ""},
    {K::Modifier, "xorsign", "max", F::Other, req(86, 72), ""},
    {K::Modifier, "abs", "min", F::Other, req(86, 72), ""},
    {K::Modifier, "abs", "max", F::Other, req(86, 72), ""},
    {K::Modifier, "oob", "fma", F::Other, req(90, 81), ""},
    {K::Modifier, "tf32", "cvt", F::Other, req(80, 70), ""},
    {K::Modifier, "f64", "atom", F::Memory, req(60, 50), ""},
    {K::Modifier, "f64", "red", F::Memory, req(60, 50), ""},
    {K::Modifier, "f16", "atom", F::Memory, req(70, 63), ""},
    {K::Modifier, "f16", "red", F::Memory, req(70, 63), ""},
    {K::Modifier, "f16x2", "atom", F::Memory, req(60, 62), ""},
    {K::Modifier, "f16x2", "red", F::Memory, req(60, 62), ""},
    {K::Modifier, "bf16", "atom", F::Memory, req(90, 78), ""},
    {K::Modifier, "bf16", "red", F::Memory, req(90, 78), ""},
    {K::Modifier, "bf16x2", "atom", F::Memory, req(90, 78), ""},
    {K::Modifier, "bf16x2", "red", F::Memory, req(90, 78), ""},
    {K::Modifier, "b16", "atom", F::Memory, req(70, 63), ""},
    {K::Modifier, "cta", "atom", F::Memory, req(60, 50), ""},
    {K::Modifier, "gpu", "atom", F::Memory, req(60, 50), ""},
    {K::Modifier, "sys", "atom", F::Memory, req(60, 50), ""},
    {K::Modifier, "cta", "red", F::Memory, req(60, 50), ""},
    {K::Modifier, "gpu", "red", F::Memory, req(60, 50), ""},
    {K::Modifier, "sys", "red", F::Memory, req(60, 50), ""},
    {K::Modifier, "relaxed", "ld", F::Memory, req(70, 60), ""},
    {K::Modifier, "acquire", "ld", F::Memory, req(70, 60), ""},
    {K::Modifier, "relaxed", "st", F::Memory, req(70, 60), ""},
    {K::Modifier, "release", "st", F::Memory, req(70, 60), ""},
    {K::Modifier, "relaxed", "atom", F::Memory, req(70, 60), ""},
    {K::Modifier, "acquire", "atom", F::Memory, req(70, 60), ""},
    {K::Modifier, "release", "atom", F::Memory, req(70, 60), ""},
    {K::Modifier, "acq_rel", "atom", F::Memory, req(70, 60), ""},
    {K::Modifier, "relaxed", "red", F::Memory, req(70, 60), ""},
    {K::Modifier, "release", "red", F::Memory, req(70, 60), ""},
    {K::Modifier, "mmio", "ld", F::Memory, req(70, 82), ""},
    {K::Modifier, "mmio", "st", F::Memory, req(70, 82), ""},
    {K::Modifier, "L2::cache_hint", "*", F::Memory, req(80, 74), ""},
    {K::Modifier, "L2::64B", "*", F::Memory, req(75, 74), ""},
    {K::Modifier, "L2::128B", "*", F::Memory, req(75, 74), ""},
    {K::Modifier, "L2::256B", "*", F::Memory, req(80, 74), ""},
    {K::Modifier, "L1::evict_normal", "*", F::Memory, req(70, 74), ""},
    {K::Modifier, "L1::evict_unchanged", "*", F::Memory, req(70, 74), ""},
    {K::Modifier, "L1::evict_first", "*", F::Memory, req(70, 74), ""},
    {K::Modifier, "L1::evict_last", "*", F::Memory, req(70, 74), ""},
    {K::Modifier, "L1::no_allocate", "*", F::Memory, req(70, 74), ""},
    {K::Modifier, "tensormap", "prefetch", F::Memory, req(90, 80), ""},
    {K::Modifier, "L2::evict_first", "prefetch", F::Memory, req(80, 74), ""},
    {K::Modifier, "L2::evict_last", "prefetch", F::Memory, req(80, 74), ""},
    {K::Modifier, "v8", "ld", F::Memory, req(100, 88), ""},
    {K::Modifier, "v8", "st", F::Memory, req(100, 88), ""},
    {K::Modifier, "v2", "atom", F::Memory, req(90, 81), ""},
    {K::Modifier, "v4", "atom", F::Memory, req(90, 81), ""},
    {K::Modifier, "v8", "atom", F::Memory, req(90, 81), ""},
    {K::Modifier, "v2", "red", F::Memory, req(90, 81), ""},
    {K::Modifier, "v4", "red", F::Memory, req(90, 81), ""},
    {K::Modifier, "v8", "red", F::Memory, req(90, 81), ""},
    // ---- special registers ----
    {K::SpecialRegister, "%cluster_*", "", F::Cluster, req(90, 78), ""},
    {K::SpecialRegister, "%clusterid*", "", F::Cluster, req(90, 78), ""},
    {K::SpecialRegister, "%nclusterid*", "", F::Cluster, req(90, 78), ""},
    {K::SpecialRegister, "%is_explicit_cluster", "", F::Cluster, req(90, 78), ""},
    {K::SpecialRegister, "%dynamic_smem_size", "", F::Other, req(0, 41), ""},
    {K::SpecialRegister, "%total_smem_size", "", F::Other, req(0, 41), ""},
    {K::SpecialRegister, "%aggr_smem_size", "", F::Other, req(90, 81), ""},
    {K::SpecialRegister, "%reserved_smem_offset_*", "", F::Other, req(0, 76), ""},
    {K::SpecialRegister, "%current_graph_exec", "", F::Other, req(50, 80), ""},
    // ---- kernel directives ----
    {K::Directive, "reqnctapercluster", "", F::Cluster, req(90, 78), ""},
    {K::Directive, "maxclusterrank", "", F::Cluster, req(90, 78), ""},
    {K::Directive, "explicitcluster", "", F::Cluster, req(90, 78), ""},
    // ---- targets: the PTX version each needs ----
    {K::Target, "sm_50", "", F::Other, req(0, 40), ""},
    {K::Target, "sm_52", "", F::Other, req(0, 41), ""},
    {K::Target, "sm_53", "", F::Other, req(0, 42), ""},
    {K::Target, "sm_60", "", F::Other, req(0, 50), ""},
    {K::Target, "sm_61", "", F::Other, req(0, 50), ""},
    {K::Target, "sm_62", "", F::Other, req(0, 50), ""},
    {K::Target, "sm_70", "", F::Other, req(0, 60), ""},
    {K::Target, "sm_72", "", F::Other, req(0, 61), ""},
    {K::Target, "sm_75", "", F::Other, req(0, 63), ""},
    {K::Target, "sm_80", "", F::Other, req(0, 70), ""},
    {K::Target, "sm_86", "", F::Other, req(0, 71), ""},
    {K::Target, "sm_87", "", F::Other, req(0, 74), ""},
    {K::Target, "sm_89", "", F::Other, req(0, 78), ""},
    {K::Target, "sm_90", "", F::Other, req(0, 78), ""},
    {K::Target, "sm_90a", "", F::Other, req(0, 80), ""},
    {K::Target, "sm_100", "", F::Other, req(0, 86), ""},
    {K::Target, "sm_100a", "", F::Other, req(0, 86), ""},
    {K::Target, "sm_101", "", F::Other, req(0, 86), ""},
    {K::Target, "sm_101a", "", F::Other, req(0, 86), ""},
    {K::Target, "sm_120", "", F::Other, req(0, 87), ""},
    {K::Target, "sm_120a", "", F::Other, req(0, 87), ""},
};
// clang-format on

// The operand signatures (instructions.h, docs/ptx-validation.md).
// clang-format off
constexpr Signature kSignatures[] = {
    {"bar", "warp", "", "U"},
    {"bar", "popc", "", "U U ?U P"},
    {"bar", "and", "", "P U ?U P"},
    {"bar", "or", "", "P U ?U P"},
    {"bar", "arrive", "", "U U"},
    {"bar", "", "", "U ?U"},
    {"barrier", "cluster", "", ""},
    {"barrier", "popc", "", "U U ?U P"},
    {"barrier", "and", "", "P U ?U P"},
    {"barrier", "or", "", "P U ?U P"},
    {"barrier", "arrive", "", "U U"},
    {"barrier", "", "", "U ?U"},
    {"elect", "", "", "Q U"},
    {"mbarrier", "init", "", "A U"},
    {"mbarrier", "inval", "", "A"},
    {"mbarrier", "arrive expect_tx", "", "T A U"},
    {"mbarrier", "arrive_drop expect_tx", "", "T A U"},
    {"mbarrier", "arrive", "", "T A ?U"},
    {"mbarrier", "arrive_drop", "", "T A ?U"},
    {"mbarrier", "expect_tx", "", "A U"},
    {"mbarrier", "complete_tx", "", "A U"},
    {"mbarrier", "test_wait parity", "", "P A U"},
    {"mbarrier", "try_wait parity", "", "P A U ?U"},
    {"mbarrier", "test_wait", "", "P A T"},
    {"mbarrier", "try_wait", "", "P A T ?U"},
    {"mbarrier", "pending_count", "", "U T"},
    {"add", "", "u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64 f16x2 bf16x2 f32x2 u16x2 s16x2", "T T T"},
    {"sub", "", "u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64 f16x2 bf16x2 f32x2", "T T T"},
    {"addc", "", "u32 s32 u64 s64", "T T T"},
    {"subc", "", "u32 s32 u64 s64", "T T T"},
    {"mul", "wide", "u16 s16 u32 s32", "W T T"},
    {"mul", "", "u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64 f16x2 bf16x2 f32x2", "T T T"},
    {"mad", "wide", "u16 s16 u32 s32", "W T T W"},
    {"mad", "", "u16 s16 u32 s32 u64 s64 f32 f64", "T T T T"},
    {"mul24", "", "u32 s32", "T T T"},
    {"mad24", "", "u32 s32", "T T T T"},
    {"sad", "", "u16 s16 u32 s32 u64 s64", "T T T T"},
    {"div", "", "u16 s16 u32 s32 u64 s64 f32 f64", "T T T"},
    {"rem", "", "u16 s16 u32 s32 u64 s64", "T T T"},
    {"abs", "", "s16 s32 s64 f16 bf16 f32 f64 f16x2 bf16x2", "T T"},
    {"neg", "", "s16 s32 s64 f16 bf16 f32 f64 f16x2 bf16x2", "T T"},
    {"min", "", "u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64 f16x2 bf16x2 u16x2 s16x2", "T T T ?T"},
    {"max", "", "u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64 f16x2 bf16x2 u16x2 s16x2", "T T T ?T"},
    {"fma", "", "f16 bf16 f32 f64 f16x2 bf16x2 f32x2", "T T T T"},
    {"copysign", "", "f32 f64", "T T T"},
    {"testp", "", "f32 f64", "P T"},
    {"rcp", "", "f32 f64", "T T"},
    {"sqrt", "", "f32 f64", "T T"},
    {"rsqrt", "", "f32 f64", "T T"},
    {"ex2", "", "f16 bf16 f32 f16x2 bf16x2", "T T"},
    {"tanh", "", "f16 bf16 f32 f16x2 bf16x2", "T T"},
    {"lg2", "", "f32", "T T"},
    {"sin", "", "f32", "T T"},
    {"cos", "", "f32", "T T"},
    {"and", "", "pred b16 b32 b64", "T T T"},
    {"or", "", "pred b16 b32 b64", "T T T"},
    {"xor", "", "pred b16 b32 b64", "T T T"},
    {"not", "", "pred b16 b32 b64", "T T"},
    {"cnot", "", "b16 b32 b64", "T T"},
    {"lop3", "", "b32", "T T T T I ?P"},
    {"shl", "", "b16 b32 b64", "T T U"},
    {"shr", "", "b16 u16 s16 b32 u32 s32 b64 u64 s64", "T T U"},
    {"shf", "", "b32", "T T T U"},
    {"popc", "", "b32 b64", "U T"},
    {"clz", "", "b32 b64", "U T"},
    {"bfind", "", "u32 s32 u64 s64", "U T"},
    {"brev", "", "b32 b64", "T T"},
    {"bfe", "", "u32 s32 u64 s64", "T T U U"},
    {"bfi", "", "b32 b64", "T T T U U"},
    {"prmt", "", "b32", "T T T T"},
    {"dp4a", "", "", "U T T2 U"},
    {"dp2a", "", "", "U T T2 U"},
    {"szext", "", "u32 s32", "T T U"},
    {"bmsk", "", "b32", "T T U"},
    {"mov", "", "pred b16 u16 s16 b32 u32 s32 f32 b64 u64 s64 f64 b128", "T T"},
    {"selp", "", "b16 u16 s16 b32 u32 s32 f32 b64 u64 s64 f64", "T T T P"},
    {"setp", "", "b16 u16 s16 b32 u32 s32 b64 u64 s64 f16 bf16 f32 f64 f16x2 bf16x2", "P T T ?P"},
    {"set", "", "", "T T2 T2 ?P"},
    {"slct", "", "", "T T T T2"},
    {"cvta", "", "u32 u64", "T T"},
    {"cvt", "", "", "L L2"},
    {"st", "async", "", "A * A"},
    {"ld", "", "b8 u8 s8 b16 u16 s16 b32 u32 s32 b64 u64 s64 b128 f32 f64", "L A H"},
    {"st", "", "b8 u8 s8 b16 u16 s16 b32 u32 s32 b64 u64 s64 b128 f32 f64", "A L H"},
    {"atom", "cas", "b16 b32 b64 b128", "T A T T H"},
    {"atom", "exch", "b32 b64 b128", "T A T H"},
    {"atom", "add", "u32 s32 u64 f16 bf16 f32 f64 f16x2 bf16x2", "T A T H"},
    {"atom", "inc", "u32", "T A T H"},
    {"atom", "dec", "u32", "T A T H"},
    {"atom", "min", "u32 s32 u64 s64 f16 bf16 f16x2 bf16x2", "T A T H"},
    {"atom", "max", "u32 s32 u64 s64 f16 bf16 f16x2 bf16x2", "T A T H"},
    {"atom", "and", "b32 b64", "T A T H"},
    {"atom", "or", "b32 b64", "T A T H"},
    {"atom", "xor", "b32 b64", "T A T H"},
    {"red", "async", "", "A * A"},
    {"red", "add", "u32 s32 u64 f16 bf16 f32 f64 f16x2 bf16x2", "A T H"},
    {"red", "inc", "u32", "A T H"},
    {"red", "dec", "u32", "A T H"},
    {"red", "min", "u32 s32 u64 s64 f16 bf16 f16x2 bf16x2", "A T H"},
    {"red", "max", "u32 s32 u64 s64 f16 bf16 f16x2 bf16x2", "A T H"},
    {"red", "and", "b32 b64", "A T H"},
    {"red", "or", "b32 b64", "A T H"},
    {"red", "xor", "b32 b64", "A T H"},
};
// clang-format on

} // namespace

std::span<const Feature> features() { return kFeatures; }

std::span<const Signature> signatures() { return kSignatures; }

std::vector<std::string_view> row_words(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    size_t sp = list.find(' ');
    out.push_back(list.substr(0, sp));
    list = sp == list.npos ? "" : list.substr(sp + 1);
  }
  return out;
}

namespace {

// Resolves the rows once; `missing` collects the names that do not resolve.
struct Resolved {
  std::vector<FeatureRow> features;
  std::vector<SignatureRow> signatures;
  std::vector<std::string> missing;

  Mod mod(std::string_view w) {
    Mod m = modifier_of(w);
    if (m == Mod::unknown)
      missing.push_back(fmt::format("modifier: {}", w));
    return m;
  }
  DottedName dotted(std::string_view name) {
    DottedName d;
    size_t dot = name.find('.');
    std::string_view op = name.substr(0, dot);
    d.op = opcode_of(op);
    if (d.op == Op::unknown)
      missing.push_back(fmt::format("opcode: {}", op));
    while (dot != name.npos) {
      name = name.substr(dot + 1);
      dot = name.find('.');
      d.mods.push_back(mod(name.substr(0, dot)));
    }
    return d;
  }

  Resolved() {
    for (const Feature &f : kFeatures) {
      FeatureRow r;
      r.row = &f;
      if (f.kind == Feature::Kind::Instruction) {
        r.name = dotted(f.name);
        if (f.modifiers != "-")
          for (auto w : row_words(f.modifiers))
            r.modifiers.push_back(mod(w));
      } else if (f.kind == Feature::Kind::Modifier) {
        r.mod = mod(f.name);
        r.any_scope = f.scope == "*";
        if (!r.any_scope)
          r.scope = dotted(f.scope);
      }
      features.push_back(std::move(r));
    }
    for (const Signature &s : kSignatures) {
      SignatureRow r;
      r.row = &s;
      r.op = opcode_of(s.opcode);
      if (r.op == Op::unknown)
        missing.push_back(fmt::format("opcode: {}", s.opcode));
      for (auto w : row_words(s.modifier))
        r.mods.push_back(mod(w));
      for (auto w : row_words(s.types)) {
        r.types.push_back(type_named(w));
        if (r.types.back() == Type::unknown)
          missing.push_back(fmt::format("type: {}", w));
      }
      signatures.push_back(std::move(r));
    }
  }
};

const Resolved &resolved() {
  static const Resolved r;
  return r;
}

} // namespace

std::span<const FeatureRow> feature_rows() { return resolved().features; }

std::span<const SignatureRow> signature_rows() { return resolved().signatures; }

std::vector<std::string> unresolved_row_names() { return resolved().missing; }

namespace {

constexpr OpInfo kUnknownRow{Op::unknown,  "", Family::Other,
                             Effect::None, 0,  ""};

constexpr OpInfo kOpRows[] = {
#define PTX_OPCODE(id, name, family, effect, hooks, summary)                   \
  {Op::id,                                                                     \
   name,                                                                       \
   Family::family,                                                             \
   Effect::effect,                                                             \
   [] {                                                                        \
     using namespace hook;                                                     \
     return static_cast<uint16_t>(hooks);                                      \
   }(),                                                                        \
   summary},
#include "bcusim/ptx/opcodes.def"
#undef PTX_OPCODE
};

constexpr std::string_view kModNames[] = {
    "",
#define PTX_MODIFIER(id, text) text,
#include "bcusim/ptx/modifiers.def"
#undef PTX_MODIFIER
};
static_assert(std::size(kModNames) == kModCount);

// Name -> enumerator maps, sorted by name (built once).
template <typename E, size_t N>
std::vector<std::pair<std::string_view, E>>
sorted_names(const std::string_view (&names)[N]) {
  std::vector<std::pair<std::string_view, E>> v;
  for (size_t i = 1; i < N; ++i)
    v.emplace_back(names[i], static_cast<E>(i));
  std::sort(v.begin(), v.end());
  return v;
}

template <typename E>
E find_name(const std::vector<std::pair<std::string_view, E>> &v,
            std::string_view name) {
  auto it = std::lower_bound(
      v.begin(), v.end(), name,
      [](const auto &p, std::string_view n) { return p.first < n; });
  return it != v.end() && it->first == name ? it->second : E{};
}

// Name -> enumerator of a table whose rows have a `name`, sorted by name.
template <typename E, typename Row, size_t N>
std::vector<std::pair<std::string_view, E>> rows_by_name(const Row (&rows)[N],
                                                         E Row::*id) {
  std::vector<std::pair<std::string_view, E>> r;
  for (const Row &row : rows)
    r.emplace_back(row.name, row.*id);
  std::sort(r.begin(), r.end());
  return r;
}

const std::vector<std::pair<std::string_view, Op>> &op_index() {
  static const auto v = rows_by_name(kOpRows, &OpInfo::op);
  return v;
}

const std::vector<std::pair<std::string_view, Mod>> &mod_index() {
  static const auto v = sorted_names<Mod>(kModNames);
  return v;
}

// The flags of types.def.
enum : uint8_t { kInstr = 1, kFloat = 2 };

constexpr TypeInfo kUnknownType{Type::unknown, "", '?', 0, 0, false, false};

constexpr TypeInfo kTypeRows[] = {
#define PTX_TYPE(id, text, cls, bits, bytes, flags)                            \
  {Type::id,                                                                   \
   text,                                                                       \
   cls,                                                                        \
   bits,                                                                       \
   bytes,                                                                      \
   ((flags)&kInstr) != 0,                                                      \
   ((flags)&kFloat) != 0},
#include "bcusim/ptx/types.def"
#undef PTX_TYPE
};

const std::vector<std::pair<std::string_view, Type>> &type_index() {
  static const auto v = rows_by_name(kTypeRows, &TypeInfo::type);
  return v;
}

} // namespace

std::span<const TypeInfo> type_rows() { return kTypeRows; }

const TypeInfo &info(Type type) {
  size_t i = static_cast<size_t>(type);
  return i == 0 || i > std::size(kTypeRows) ? kUnknownType : kTypeRows[i - 1];
}

Type type_named(std::string_view text) { return find_name(type_index(), text); }

std::string_view name_of(Type type) { return info(type).name; }

Type type_of(Mod mod) {
  // Modifier -> type, through the names of the two tables (built once).
  static const auto by_mod = [] {
    std::array<Type, kModCount> a{};
    for (const TypeInfo &row : kTypeRows) {
      Mod m = modifier_of(row.name);
      if (m != Mod::unknown)
        a[static_cast<size_t>(m)] = row.type;
    }
    return a;
  }();
  size_t i = static_cast<size_t>(mod);
  return i < by_mod.size() ? by_mod[i] : Type::unknown;
}

Space space_of(Mod mod) {
  switch (mod) {
  case Mod::global:
    return Space::Global;
  case Mod::shared:
  case Mod::shared_cta:
    return Space::Shared;
  case Mod::shared_cluster:
    return Space::SharedCluster;
  case Mod::local:
    return Space::Local;
  case Mod::const_:
    return Space::Const;
  case Mod::param:
  case Mod::param_entry:
  case Mod::param_func:
    return Space::Param;
  case Mod::tex:
    return Space::Tex;
  default:
    return Space::None;
  }
}

uint32_t type_bytes(Type type) { return info(type).bytes; }

uint32_t type_bytes(std::string_view type) {
  return type_bytes(type_named(type));
}

std::span<const OpInfo> opcode_rows() { return kOpRows; }

const OpInfo &info(Op op) {
  size_t i = static_cast<size_t>(op);
  return i == 0 || i > std::size(kOpRows) ? kUnknownRow : kOpRows[i - 1];
}

Op opcode_of(std::string_view name) { return find_name(op_index(), name); }

Mod modifier_of(std::string_view text) { return find_name(mod_index(), text); }

std::string_view name_of(Op op) { return info(op).name; }

std::string_view name_of(Mod mod) {
  size_t i = static_cast<size_t>(mod);
  return i < std::size(kModNames) ? kModNames[i] : "";
}

void resolve(Instruction &in) {
  in.op = opcode_of(in.opcode);
  in.mods.clear();
  in.mod_set.reset();
  in.types.clear();
  for (const auto &m : in.modifiers) {
    Mod id = modifier_of(m);
    in.mods.push_back(id);
    if (id != Mod::unknown)
      in.mod_set.set(static_cast<size_t>(id));
    Type t = type_of(id);
    if (info(t).instruction)
      in.types.push_back(t);
  }
}

std::optional<MatrixShape> matrix_shape(const Instruction &in) {
  std::optional<MatrixShape> shape;
  for (size_t i = 0; i < in.modifiers.size(); ++i) {
    const std::string &md = in.modifiers[i];
    if (md.size() > 1 && md[0] == 'm' && std::isdigit(uint8_t(md[1]))) {
      MatrixShape s;
      s.index = i;
      s.complete = std::sscanf(md.c_str(), "m%un%uk%u", &s.m, &s.n, &s.k) == 3;
      shape = s;
    }
  }
  return shape;
}

bool affects_other_threads(const Instruction &in) {
  if (info(in.op).effect == Effect::None)
    return false;
  return !in.has_any({Mod::param, Mod::const_, Mod::local});
}

namespace {

std::string_view family_name(Family f) {
  switch (f) {
  case Family::Other:
    return "other";
  case Family::Warp:
    return "warp";
  case Family::CtaBarrier:
    return "CTA barrier";
  case Family::Cluster:
    return "cluster";
  case Family::Mbarrier:
    return "mbarrier";
  case Family::AsyncCopy:
    return "async copy";
  case Family::Fence:
    return "fence";
  case Family::Memory:
    return "memory";
  case Family::Control:
    return "control";
  }
  return "other";
}

std::string needs_text(const Requirement &r) {
  std::string s;
  if (r.sm)
    s = fmt::format("sm_{}{}", r.sm, r.arch_specific ? "a" : "");
  if (r.ptx)
    s += fmt::format("{}PTX {}.{}", s.empty() ? "" : ", ", r.ptx / 10,
                     r.ptx % 10);
  return s.empty() ? "-" : s;
}

std::string hooks_text(uint16_t hooks) {
  static constexpr std::string_view kNames[hook::kCount] = {
      "integer", "float",    "compare", "convert", "memory",  "control", "warp",
      "cluster", "mbarrier", "async",   "sync",    "texture", "mma"};
  std::string s;
  for (unsigned i = 0; i < hook::kCount; ++i)
    if (hooks & (1u << i))
      s += fmt::format("{}{}", s.empty() ? "" : ", ", kNames[i]);
  return s.empty() ? "validated only" : s;
}

std::string_view effect_text(Effect e) {
  switch (e) {
  case Effect::None:
    return "-";
  case Effect::Memory:
    return "memory";
  case Effect::Sync:
    return "sync";
  }
  return "-";
}

// A table cell: "-" when empty, `|` escaped.
std::string cell(std::string_view v) {
  if (v.empty())
    return "-";
  std::string s;
  for (char ch : v) {
    if (ch == '|')
      s += '\\';
    s += ch;
  }
  return s;
}

} // namespace

std::string instruction_reference_markdown() {
  std::string md;
  md += "# PTX instruction reference\n\n"
        "Generated from the instruction table (`include/bcusim/ptx/"
        "opcodes.def`, `src/ptx/instructions.cpp`) by `bcusim ptx table "
        "--markdown`; do not edit by hand. The test "
        "`PtxTable.ReferenceIsCurrent` "
        "fails when this file differs from what the rows produce "
        "(docs/engine.md \"The instruction table\").\n\n"
        "## Opcodes\n\n"
        "Effect: `memory` reads or writes memory other threads see (not in "
        ".param/.const/.local), `sync` synchronizes with other threads; both "
        "are where a random schedule may preempt a warp. Engine: the compile "
        "hooks that execute the opcode. Needs: the target and PTX ISA "
        "version the opcode itself needs (forms and modifiers may need "
        "more, below).\n\n"
        "| Opcode | Family | Effect | Engine | Needs | Semantics |\n"
        "|---|---|---|---|---|---|\n";
  for (const OpInfo &row : kOpRows) {
    Requirement need;
    for (const Feature &f : kFeatures)
      if (f.kind == Feature::Kind::Instruction && f.name == row.name)
        need = f.req;
    md +=
        fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", row.name,
                    family_name(row.family), effect_text(row.effect),
                    hooks_text(row.hooks), needs_text(need), cell(row.summary));
  }
  md += "\n## Forms\n\n"
        "The forms (opcode and naming modifiers) with their own "
        "requirements, and the modifiers each takes (\"-\": none; empty: not "
        "checked).\n\n"
        "| Form | Family | Needs | Modifiers |\n|---|---|---|---|\n";
  for (const Feature &f : kFeatures)
    if (f.kind == Feature::Kind::Instruction)
      md += fmt::format("| `{}` | {} | {} | {} |\n", f.name,
                        family_name(f.family), needs_text(f.req),
                        f.modifiers.empty() ? "" : std::string(f.modifiers));
  md += "\n## Modifiers with requirements\n\n"
        "| Modifier | Of | Needs |\n|---|---|---|\n";
  for (const Feature &f : kFeatures)
    if (f.kind == Feature::Kind::Modifier)
      md += fmt::format("| `.{}` | `{}` | {} |\n", f.name, f.scope,
                        needs_text(f.req));
  md += "\n## Operand signatures\n\n"
        "The first row whose opcode matches and whose modifiers the "
        "instruction has applies (roles: docs/ptx-validation.md \"Operand "
        "signatures\").\n\n"
        "| Opcode | With | Types | Operands |\n|---|---|---|---|\n";
  for (const Signature &sig : kSignatures)
    md += fmt::format("| `{}` | {} | {} | {} |\n", sig.opcode,
                      cell(sig.modifier), cell(sig.types), cell(sig.operands));
  md += "\n## Known modifiers\n\n"
        "The modifiers the parser resolves to enumerators "
        "(`include/bcusim/ptx/modifiers.def`); any other modifier keeps "
        "its text only.\n\n";
  std::string line;
  for (size_t i = 1; i < std::size(kModNames); ++i) {
    std::string item = fmt::format("`.{}`", kModNames[i]);
    if (!line.empty() && line.size() + item.size() + 1 > 78) {
      md += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + item;
  }
  if (!line.empty())
    md += line + "\n";
  md += "\n## Types\n\n"
        "The fundamental types the parser resolves to enumerators "
        "(`include/bcusim/ptx/types.def`) for instruction type modifiers, "
        "registers, variables and parameters: the class and width the "
        "operand type rules compare, the size of a variable (0: none), "
        "and whether it is an instruction type.\n\n"
        "| type | class | bits | bytes | instruction type | float |\n"
        "|---|---|---|---|---|---|\n";
  for (const TypeInfo &t : kTypeRows)
    md += fmt::format("| `.{}` | {} | {} | {} | {} | {} |\n", t.name,
                      t.cls == '?' ? std::string("-") : std::string(1, t.cls),
                      t.bits, t.bytes, t.instruction ? "yes" : "",
                      t.is_float ? "yes" : "");
  return md;
}

std::optional<TargetInfo> parse_target(std::string_view t) {
  if (t.rfind("sm_", 0) != 0 || t.size() < 5)
    return std::nullopt;
  TargetInfo r;
  size_t i = 3;
  uint32_t v = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9')
    v = v * 10 + uint32_t(t[i++] - '0');
  if (i == 3 || v > 1000)
    return std::nullopt;
  r.sm = static_cast<uint16_t>(v);
  if (i < t.size()) {
    if (i + 1 != t.size() || (t[i] != 'a' && t[i] != 'f'))
      return std::nullopt;
    r.arch_specific = t[i] == 'a';
  }
  return r;
}

std::optional<uint16_t> parse_version(std::string_view v) {
  size_t dot = v.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 2 != v.size())
    return std::nullopt;
  uint32_t major = 0;
  for (size_t i = 0; i < dot; ++i) {
    if (v[i] < '0' || v[i] > '9')
      return std::nullopt;
    major = major * 10 + uint32_t(v[i] - '0');
  }
  char minor = v[dot + 1];
  if (minor < '0' || minor > '9' || major > 100)
    return std::nullopt;
  return static_cast<uint16_t>(major * 10 + uint32_t(minor - '0'));
}

} // namespace bcusim::ptx
