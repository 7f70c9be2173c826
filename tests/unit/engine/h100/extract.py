#!/usr/bin/env python3
"""Extracts the H100 reference rows that h100_numerics_test.cpp replays.

  extract.py OPS.CU H100-DEFAULT.TXT[.gz] > numerics.tsv

OPS.CU and the H100 output are ../shared/hardware/numerics/ops.cu and
h100-default.txt.gz (measured on an NVIDIA H100 80GB HBM3, driver
580.159.04, CUDA 13.0). For each operation named in OPS below, the
operand shapes come from its X(...) line in ops.cu and the rows from the
hardware's output: up to 64 rows with the special inputs (the first ones)
and 48 spread over the rest. Output, tab-separated:
  #op NAME KIND DST SRCS RTBITS     KIND: OP (d, a...) or PR (predicate)
  RESULT INPUT...                   hex, one per source operand in order
"""
import gzip
import re
import sys

OPS = """
cvt.s8.s32 cvt.u8.s32 cvt.s16.u32 cvt.sat.s8.s32 cvt.s16.s64 cvt.sat.s8.s64
cvt.rni.s8.f32 cvt.rzi.s16.f32 cvt.rni.s16.f64 cvt.rzi.s16.f16
rem.s32 rem.u32 rem.s64 rem.u64 rem.s16 rem.u16 div.s32 div.u64
bfe.u32 bfe.s32 bfe.u64 bfe.s64 bfi.b32 bfi.b64
testp.normal.f32 testp.subnormal.f32 testp.normal.f64
add.rn.f32 sub.rz.f32 mul.rn.f32 mul.rn.ftz.f32 mul.rp.ftz.f32 div.rn.f32 fma.rn.f32
fma.rn.ftz.f32 rcp.rn.f32 sqrt.rn.f32 abs.f32 neg.f32 min.f32 max.ftz.f32 copysign.f32
add.rn.f64 sub.rn.f64 mul.rn.f64 min.f64 max.f64 abs.f64 neg.f64 copysign.f64
cvt.rni.f32.f32 cvt.ftz.f32.f32 cvt.f64.f32 cvt.ftz.f64.f32 cvt.rn.f32.f64
cvt.rn.f16.f64 cvt.rn.bf16.f64 cvt.f32.f16 cvt.f32.bf16 cvt.f64.f16 cvt.f64.bf16
cvt.rn.f16.f32 cvt.rna.tf32.f32 cvt.rna.satfinite.tf32.f32 cvt.rn.tf32.f32
cvt.rz.relu.tf32.f32
neg.f16 abs.f16 neg.bf16 abs.bf16 neg.f16x2 abs.bf16x2 fma.rn.oob.f16
fma.rn.oob.relu.f16 fma.rn.oob.bf16
szext.wrap.s32 szext.clamp.s32 szext.wrap.u32 szext.clamp.u32
bmsk.wrap.b32 bmsk.clamp.b32
dp2a.lo.u32.u32 dp2a.lo.s32.u32 dp2a.hi.u32.s32 dp2a.hi.s32.s32
mad24.hi.s32 mad24.hi.u32 mad24.hi.sat.s32 mad.hi.sat.s32
min.relu.s32 max.relu.s32 add.s16x2 add.u16x2 min.s16x2 max.u16x2 min.relu.s16x2
min.NaN.f32 max.NaN.f32 min.xorsign.abs.f32 max.xorsign.abs.f32
max.NaN.xorsign.abs.f32
""".split()

WIDTH = {"r": 32, "h": 16, "l": 64}
RTBITS = {"f32": 32, "f64": 64, "f16": 16, "bf16": 16, "f16x2": 32,
          "bf16x2": 32, "tf32": 32, "b16": 16, "b32": 32, "b64": 64,
          "pred": 4}


def shapes(ops_cu):
    out = {}
    pat = re.compile(r'X\("([^"]+)",\s*(\w+),\s*(OP[1-4]|PR[12]),\s*([^)]*)\)')
    text = open(ops_cu).read()
    # RND4 / IRND4 expand to the four rounding modes
    rnd = re.compile(r'(I?)RND4\(X,\s*"([^"]+)",\s*"([^"]+)",\s*(\w+),\s*'
                     r'(OP[1-4]),\s*([^)]*)\)')
    found = []
    for m in rnd.finditer(text):
        i, op, ty, rt, kind, args = m.groups()
        for r in (("rni", "rzi", "rmi", "rpi") if i else ("rn", "rz", "rm", "rp")):
            found.append((f"{op}.{r}{ty}", rt, kind, args))
    found += [m.groups() for m in pat.finditer(text)]
    for name, rt, kind, args in found:
        args = [a.strip() for a in args.split(",")]
        if kind.startswith("OP"):
            dst, srcs = args[0], args[1:]
        else:
            dst, srcs = "r", args
        out[name] = (rt, "PR" if kind.startswith("PR") else "OP", dst, srcs)
    return out


def main():
    shp = shapes(sys.argv[1])
    opener = gzip.open if sys.argv[2].endswith(".gz") else open
    rows = {}
    with opener(sys.argv[2], "rt") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 4 and p[0] in OPS:
                rows.setdefault(p[0], []).append((p[2], p[3].split(",")))
    print("# H100 results (hardware/numerics/h100-default.txt.gz) replayed by")
    print("# h100_numerics_test.cpp; made by extract.py")
    for name in OPS:
        rt, kind, dst, srcs = shp[name]
        r = rows[name]
        pick = r[:64]
        rest = r[64:]
        if rest:
            step = max(1, len(rest) // 48)
            pick += rest[::step][:48]
        print(f"#op\t{name}\t{kind}\t{WIDTH[dst]}\t"
              f"{','.join(str(WIDTH[s[0]]) for s in srcs)}\t{RTBITS[rt]}")
        for res, ins in pick:
            vals = [ins["ABCD".index(s[1])] for s in srcs]
            print("\t".join([res] + vals))


if __name__ == "__main__":
    main()
