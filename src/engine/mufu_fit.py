#!/usr/bin/env python3
"""Derive the MUFU interpolation tables of mufu.cpp from the H100's results.

The unit evaluates lg2 and tanh as quadratics over 2^K segments of the
operand's mantissa. ../shared/hardware/mufu holds every result of whole
binades; this script fits, per segment, y = c0 + c1*u + c2*u^2 (u the
position in the segment, -1/2 .. 1/2) to the measured results by weighted
least squares (weight 1/ulp^2 of the result, so the tiny results of lg2 near
x = 1 count with their own precision) and writes src/engine/mufu_tables.inc.

  lg2:  the fixed-point value in units of 2^-36, lg2(m) for m in [1, 2), as
        the unit computes it (visible in the data): per segment of 2^17
        mantissa values (64), c0 + c1*d + c2*M(d), d the offset in the
        segment and M(d) its square as the unit forms it: 2 h^2 plus, per
        set bit b of L, floor(h 2^(b-8)), h = d >> 10, L = d & 1023 (the
        square of L dropped, the cross term's partial products truncated one
        by one). c0, c1, c2 by least squares; where results are below 2^-13
        (so exact in units of 2^-36), c0 is then the median residual. One
        table per measured binade (x in [0.5,1) is -1 + its own table: the
        hardware's results there lie 2^-26 to 2^-25 above -1 + those of
        [1,2)).
  tanh: y itself, one table per measured binade ([0.5,1), [1,2)), of x
        truncated to a multiple of 2^-20 as the unit reads it (X, 20
        fraction bits). The unit's value is not smooth in the low bits of X
        (measured: within every 2^-17 the steps repeat a pattern set by the
        bits, as a truncating multiplier gives), so per segment the model is
        c0 + c1*u + c2*u^2 + sum_b w_b * bit_b(X), b < TANH_BITS, with u the
        position of X with those bits cleared.
  tanh elsewhere: x in [2^-8, 0.5) and [2, 8), from the H100's binades in
        tests/hardware/mufu: the unit reads x with fewer mantissa bits the
        smaller the binade (measured: the results change only every
        2^low inputs; low is found from the data), and per binade a plain
        quadratic per 64 segments of the truncated mantissa (3 coefficients)
        stays within 4 ulp of every result but a few: tables of 192 values
        per binade instead of 5632.
  ex2:  the unit reads x in fixed point with 23 fraction bits (measured:
        neighbouring inputs below 1 give the same result); 2^f of the
        fraction f in the same form as lg2, fitted to x in [1, 2).
  sqrt, rsqrt: the same fixed-point form as lg2 (per 2^17 mantissa values
        c0 + c1*d + c2*M(d)), one table for an even exponent (x in [1,2))
        and one for an odd one ([2,4)).
  sin:  the unit's sine of a quarter-turn angle A (23 bits, units of 2^-25
        turns, after the quadrant reduction of mufu.cpp) in the form of lg2
        with integer coefficients: per segment of 2^17 angles
        c0 + c1*d + c2*M(d) in units of 2^-37, truncated to f32. c1, c2 by
        least squares, rounded; c0 the smallest integer that puts every
        measured result in its truncation interval; every measured angle is
        then checked bit for bit. Every measured sin and cos binade feeds it.

  python3 src/engine/mufu_fit.py [MUFU_DIR [H100_DIR]]
      (defaults ../shared/hardware/mufu and tests/hardware/mufu)
"""
import array, math, os, struct, sys

K = 9  # 512 segments
TANH_BITS = 8  # low bits of the tanh operand with a weight each
N = 1 << 23
SEG = N >> K

here = os.path.dirname(os.path.abspath(__file__))
mufu_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../../shared/hardware/mufu")
h100_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "../../tests/hardware/mufu")
sys.path.insert(0, mufu_dir)
import decode  # noqa: E402


def table(name):
    bits = array.array("I", decode.load(os.path.join(mufu_dir, name + ".bin.xz")))
    vals = array.array("f")
    vals.frombytes(bits.tobytes())
    return vals


def solve(m):
    for i in range(3):
        p = max(range(i, 3), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(3):
            if r != i:
                c = m[r][i] / m[i][i]
                for j in range(4):
                    m[r][j] -= c * m[i][j]
    return [m[i][3] / m[i][i] for i in range(3)]


def fit(samples, segments=1 << K):
    """samples yields (segment, u, target, weight)."""
    acc = [[0.0] * 8 for _ in range(segments)]
    for s, u, y, w in samples:
        a = acc[s]
        wu = w * u
        wu2 = wu * u
        a[0] += w; a[1] += wu; a[2] += wu2; a[3] += wu2 * u; a[4] += wu2 * u * u
        a[5] += w * y; a[6] += wu * y; a[7] += wu2 * y
    return [solve([[a[0], a[1], a[2], a[5]], [a[1], a[2], a[3], a[6]],
                   [a[2], a[3], a[4], a[7]]]) for a in acc]


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def f32_rz(p):
    """p > 0 rounded toward zero to f32 (FMUL.RZ)."""
    b = struct.unpack("<I", struct.pack("<f", p))[0]
    return f32(b - 1) if f32(b) > p else f32(b)


def ulp(y, floor):
    return max(math.ulp(y), floor) if y else floor


LG2_BITS = 17  # lg2: mantissa bits per segment (64 segments)


def lg2_square(d):
    """M(d): the square of the offset d as the unit forms it."""
    h, low = d >> 10, d & 1023
    m = 2 * h * h
    for b in range(10):
        if low >> b & 1:
            m += h << (b - 8) if b >= 8 else h >> (8 - b)
    return m


def lg2_fit(name, offset):
    t = table(name)
    unit = 2.0 ** 36
    size = 1 << LG2_BITS
    square = [float(lg2_square(d)) for d in range(size)]
    out = []
    for s in range(N >> LG2_BITS):
        m = [[0.0] * 4 for _ in range(3)]
        base = s << LG2_BITS
        for d in range(size):
            if base + d == 0:  # lg2(1) = 0 is a special value
                continue
            y = (t[base + d] + offset) * unit
            q = square[d]
            row0, row1, row2 = m
            row0[0] += 1.0; row0[1] += d; row0[2] += q; row0[3] += y
            row1[1] += d * d; row1[2] += d * q; row1[3] += d * y
            row2[2] += q * q; row2[3] += q * y
        m[1][0] = m[0][1]; m[2][0] = m[0][2]; m[2][1] = m[1][2]
        c = solve(m)
        # Where every result is exact in units of 2^-36, c0 is the median
        # residual of those (every 7th offset).
        r = sorted((t[base + d] + offset) * unit - c[1] * d - c[2] * square[d]
                   for d in range(0, size, 7)
                   if base + d and abs(t[base + d]) <= 2.0 ** -13)
        if len(r) > 10:
            c[0] = r[len(r) // 2]
        out.append(c)
    return out


def solve_n(m):
    n = len(m)
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i and m[r][i] != 0.0:
                c = m[r][i] / m[i][i]
                row, pivot = m[r], m[i]
                for j in range(i, n + 1):
                    row[j] -= c * pivot[j]
    return [m[i][n] / m[i][i] for i in range(n)]


def tanh_fit(name, low):
    """The unit reads x in fixed point with 20 fraction bits (truncated): the
    results change only where the mantissa's low `low` bits are zero, so one
    input per fixed-point value X feeds the fit."""
    t = table(name)
    nb = TANH_BITS
    n = 3 + nb
    out = []
    for s in range(1 << K):
        m = [[0.0] * (n + 1) for _ in range(n)]
        for i in range(s * SEG, (s + 1) * SEG, 1 << low):
            y = t[i]
            x = i >> low
            u = (((x >> nb) << (nb + low)) & (SEG - 1)) / SEG - 0.5
            v = [1.0, u, u * u] + [float((x >> b) & 1) for b in range(nb)]
            w = ulp(y, 0.0) ** -2
            for a in range(n):
                wa = w * v[a]
                if wa == 0.0:
                    continue
                row = m[a]
                for b in range(a, n):
                    row[b] += wa * v[b]
                row[n] += wa * y
        for a in range(n):
            for b in range(a):
                m[a][b] = m[b][a]
        out.append(solve_n(m))
    return out


TANH_QUAD_K = 6  # tanh outside [0.5, 2): 64 segments per binade
# The binades (base bit pattern) of tests/hardware/mufu fitted that way.
TANH_QUAD_BINADES = [0x3B800000, 0x3C000000, 0x3C800000, 0x3D000000, 0x3D800000,
                     0x3E000000, 0x3E800000, 0x40000000, 0x40800000]


def tanh_low(t):
    """The low mantissa bits the unit does not read: the results change
    only at multiples of 2^low."""
    g = 0
    for i in range(1, N):
        if t[i] != t[i - 1]:
            g = math.gcd(g, i)
            if g == 1:
                break
    return g.bit_length() - 1


def tanh_quad_fit(base):
    bits = array.array("I", decode.load(os.path.join(h100_dir, "tanh.approx.f32_b%08x.bin.xz" % base)))
    t = array.array("f")
    t.frombytes(bits.tobytes())
    low = tanh_low(t)
    seg = N >> TANH_QUAD_K
    coef = fit(((i // seg, (i % seg) / seg - 0.5, t[i], ulp(t[i], 0.0) ** -2)
                for i in range(0, N, 1 << low)), 1 << TANH_QUAD_K)
    return low, coef


def sin_fit():
    """The unit's sine of a quarter-turn angle A in the fixed-point form of
    lg2: per segment of 2^17 angles c0 + c1*d + c2*M(d) in units of 2^-37,
    truncated to f32, with integer coefficients. c1 and c2 by least squares,
    rounded; c0 the smallest integer that puts every measured result in its
    truncation interval (checked: every measured angle is then reproduced
    bit for bit)."""
    inv = f32(0x3E22F983)  # 1/(2 pi)
    results = {}
    for name, base, cos in (("sin.approx.ftz.f32_b0.5-1", 0x3F000000, False),
                            ("sin.approx.ftz.f32_b4-8", 0x40800000, False),
                            ("cos.approx.ftz.f32_b0.5-1", 0x3F000000, True)):
        hw = table(name)
        xf = array.array("f")
        xf.frombytes(array.array("I", range(base, base + N)).tobytes())
        for i in range(N):
            t = f32_rz(xf[i] * inv)  # the product is exact in double
            q = int(t * 33554432.0) % 33554432
            if cos:
                q = (5 * 8388608 - 1 - q) % 33554432
            r = q & 8388607
            results[8388607 - r if (q >> 23) & 1 else r] = abs(hw[i])
    size = 1 << LG2_BITS
    square = [lg2_square(d) for d in range(size)]
    unit = 2.0 ** 37
    segments = [[] for _ in range(N >> LG2_BITS)]
    for a, y in results.items():
        segments[a >> LG2_BITS].append((a & (size - 1), y))
    out = []
    for s, pts in enumerate(segments):
        m = [[0.0] * 4 for _ in range(3)]
        for d, y in pts:
            q = square[d]
            v = (y + math.ulp(y) / 2) * unit if y else 0.0
            row0, row1, row2 = m
            row0[0] += 1.0; row0[1] += d; row0[2] += q; row0[3] += v
            row1[1] += d * d; row1[2] += d * q; row1[3] += d * v
            row2[2] += q * q; row2[3] += q * v
        m[1][0] = m[0][1]; m[2][0] = m[0][2]; m[2][1] = m[1][2]
        c = solve(m)
        c1, c2 = round(c[1]), round(c[2])
        c0 = max(math.ceil(y * unit) - c1 * d - c2 * square[d] for d, y in pts)
        for d, y in pts:
            v = c0 + c1 * d + c2 * square[d]
            assert f32_rz(v / unit) == y, "segment %d: A %d" % (s, (s << LG2_BITS) + d)
        out.append([c0, c1, c2])
    return out


def emit(out, name, coef, comment):
    out.write("// %s\nconstexpr double %s[%d][%d] = {\n" % (comment, name, len(coef), len(coef[0])))
    for c in coef:
        out.write("    {%s},\n" % ", ".join(x.hex() for x in c))
    out.write("};\n")


def main():
    path = os.path.join(here, "mufu_tables.inc")
    with open(path, "w") as out:
        out.write("// Generated by mufu_fit.py from ../shared/hardware/mufu; do not edit.\n")
        out.write("// Per segment of the mantissa (%d segments): c0 + c1*u + c2*u^2,\n" % (1 << K))
        out.write("// u in [-1/2, 1/2) the position in the segment.\n")
        out.write("constexpr int kMufuSegmentBits = %d;\n" % K)
        out.write("// tanh: then the weights of the operand's low bits (20 fraction bits).\n")
        out.write("constexpr int kTanhLowBits = %d;\n" % TANH_BITS)
        out.write("// lg2: c0 + c1*d + c2*M(d) per segment of 2^%d mantissa values.\n" % LG2_BITS)
        out.write("constexpr int kLg2SegmentBits = %d;\n" % LG2_BITS)
        emit(out, "kLg2Table", lg2_fit("lg2.approx.ftz.f32_b1-2", 0.0),
             "lg2(m), m in [1, 2), in units of 2^-36: x >= 1: c0, c1, c2")
        emit(out, "kLg2BelowOneTable", lg2_fit("lg2.approx.ftz.f32_b0.5-1", 1.0),
             "lg2(m), m in [1, 2), in units of 2^-36: x < 1: c0, c1, c2")
        emit(out, "kEx2Table", lg2_fit("ex2.approx.ftz.f32_b1-2", 0.0),
             "2^(1+f), f in [0, 1) (23 fraction bits), in units of 2^-36: c0, c1, c2")
        emit(out, "kSqrtOneTable", lg2_fit("sqrt.approx.ftz.f32_b1-2", 0.0),
             "sqrt(m), m in [1, 2), in units of 2^-36: c0, c1, c2")
        emit(out, "kSqrtTwoTable", lg2_fit("sqrt.approx.ftz.f32_b2-4", 0.0),
             "sqrt(m), m in [2, 4), in units of 2^-36: c0, c1, c2")
        emit(out, "kRsqrtOneTable", lg2_fit("rsqrt.approx.ftz.f32_b1-2", 0.0),
             "1/sqrt(m), m in [1, 2), in units of 2^-36: c0, c1, c2")
        emit(out, "kRsqrtTwoTable", lg2_fit("rsqrt.approx.ftz.f32_b2-4", 0.0),
             "1/sqrt(m), m in [2, 4), in units of 2^-36: c0, c1, c2")
        emit(out, "kTanhHalfTable", tanh_fit("tanh.approx.f32_b0.5-1", 4), "tanh(x), x in [0.5, 1): c0, c1, c2, w_0..")
        emit(out, "kTanhOneTable", tanh_fit("tanh.approx.f32_b1-2", 3), "tanh(x), x in [1, 2): c0, c1, c2, w_0..")
        coef = sin_fit()
        out.write("// sin(2 pi A 2^-25), A in [0, 2^23): c0 + c1*d + c2*M(d) per segment of\n")
        out.write("// 2^%d angles, in units of 2^-37, truncated to f32.\n" % LG2_BITS)
        out.write("constexpr int64_t kSinTable[%d][3] = {\n" % len(coef))
        for c in coef:
            out.write("    {%s},\n" % ", ".join(str(x) for x in c))
        out.write("};\n")
        fits = [tanh_quad_fit(b) for b in TANH_QUAD_BINADES]
        out.write("// tanh(x) outside [0.5, 2): per binade (base bit pattern), the mantissa\n")
        out.write("// bits not read (low), then 2^%d segments of c0 + c1*u + c2*u^2.\n" % TANH_QUAD_K)
        out.write("constexpr int kTanhQuadSegmentBits = %d;\n" % TANH_QUAD_K)
        out.write("constexpr uint32_t kTanhQuadBinade[%d] = {%s};\n"
                  % (len(fits), ", ".join("0x%08xu" % b for b in TANH_QUAD_BINADES)))
        out.write("constexpr int kTanhQuadLow[%d] = {%s};\n"
                  % (len(fits), ", ".join(str(low) for low, _ in fits)))
        out.write("constexpr double kTanhQuadTable[%d][%d][3] = {\n" % (len(fits), 1 << TANH_QUAD_K))
        for b, (low, coef) in zip(TANH_QUAD_BINADES, fits):
            out.write("    {// 0x%08x\n" % b)
            for c in coef:
                out.write("     {%s},\n" % ", ".join(x.hex() for x in c))
            out.write("    },\n")
        out.write("};\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
