#!/usr/bin/env python3
"""Draws a bcusim timeline (--timeline FILE, Chrome trace events) as a PNG,
with the standard library only: one row per warp of each CTA, warps running
(grey), barrier and cluster waits (orange), arrivals and completed waits
(green ticks), findings (red ticks), and per CTA the resident span and the
barrier and mbarrier phase completions (blue ticks).

    examples/render-timeline.py TRACE.json OUT.png [WIDTH]

docs/images/pipeline-timeline.png is the `make run` pipeline's timeline.
"""
import json
import struct
import sys
import zlib

# A 5x7 bitmap font for the labels (upper case, digits, a few signs).
FONT = {
    "A": "01110100011000111111100011000110001", "B": "11110100011111010001100011000111110",
    "C": "01110100011000010000100001000101110", "D": "11110100011000110001100011000111110",
    "E": "11111100001111010000100001000011111", "F": "11111100001111010000100001000010000",
    "G": "01110100011000010111100011000101111", "H": "10001100011111110001100011000110001",
    "I": "01110001000010000100001000010001110", "J": "00111000100001000010000101001001100", "K": "10001100101010011000101001001010001",
    "L": "10000100001000010000100001000011111", "M": "10001110111010110001100011000110001",
    "N": "10001110011010110011100011000110001", "O": "01110100011000110001100011000101110",
    "P": "11110100011111010000100001000010000", "R": "11110100011111010100100101000110001",
    "S": "01111100000111000001000011000111110", "T": "11111001000010000100001000010000100",
    "U": "10001100011000110001100011000101110", "W": "10001100011000110101101011101110001",
    "Y": "10001100010101000100001000010000100", "X": "10001010100010001010100011000110001",
    "V": "10001100011000110001010100101000100", "Z": "11111000010001000100010001000011111",
    "0": "01110100011001110101110011000101110", "1": "00100011000010000100001000010001110",
    "2": "01110100010000100010001000100011111", "3": "11110000010111000001000011000111110",
    "4": "00010001100101010010111110001000010", "5": "11111100001111000001000011000111110",
    "6": "01110100001111010001100011000101110", "7": "11111000010001000100010000100001000",
    "8": "01110100011000101110100011000101110", "9": "01110100011000101111000010000101110",
    "(": "00010001000100001000010000010000010", ")": "01000001000001000010000100010001000",
    ",": "00000000000000000000001100010001000", ".": "00000000000000000000000000110001100",
    "-": "00000000000111000000000000000000000", ":": "00000011000110000000011000110000000",
    "_": "00000000000000000000000000000011111", " ": "0" * 35,
}


def draw_text(px, w, x, y, text, color, scale=1):
    for ch in text.upper():
        g = FONT.get(ch, FONT[" "])
        for r in range(7):
            for c in range(5):
                if g[r * 5 + c] == "1":
                    for dy in range(scale):
                        for dx in range(scale):
                            put(px, w, x + c * scale + dx, y + r * scale + dy, color)
        x += 6 * scale


def put(px, w, x, y, color):
    if 0 <= x < w and 0 <= y < len(px) // (w * 3):
        i = (y * w + x) * 3
        px[i:i + 3] = bytes(color)


def rect(px, w, x0, y0, x1, y1, color):
    for y in range(int(y0), int(y1)):
        for x in range(int(x0), max(int(x1), int(x0) + 1)):
            put(px, w, x, y, color)


def png(path, w, h, px):
    raw = b"".join(b"\x00" + bytes(px[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def main():
    trace = json.load(open(sys.argv[1]))["traceEvents"]
    width = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    names, rows = {}, []
    for e in trace:
        if e["ph"] == "M" and e["name"] == "process_name":
            names[(e["pid"], -1)] = e["args"]["name"]
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
            rows.append((e["pid"], e["tid"]))
    rows.sort()
    end = max(e["ts"] + e.get("dur", 0) for e in trace) or 1
    left, top, row_h = 190, 30, 16
    height = top + row_h * len(rows) + 12 * (len({p for p, _ in rows})) + 40
    px = bytearray(b"\xff" * (width * height * 3))
    scale = (width - left - 10) / end
    y_of, y, last_pid = {}, top, None
    for pid, tid in rows:
        if pid != last_pid:
            draw_text(px, width, 4, y + 2, names.get((pid, -1), str(pid)), (0, 0, 0))
            y += 12
            last_pid = pid
        y_of[(pid, tid)] = y
        draw_text(px, width, 14, y + 4, names[(pid, tid)], (60, 60, 60))
        rect(px, width, left, y + row_h - 1, width - 10, y + row_h, (225, 225, 225))
        y += row_h
    x = lambda ts: left + ts * scale
    for e in trace:  # spans first, instants on top
        key = (e.get("pid"), e.get("tid"))
        if key not in y_of:
            continue
        ty = y_of[key]
        if e["ph"] == "X":
            color = (255, 150, 40) if e.get("cat") == "barrier" else (170, 170, 170)
            pad = 2 if e.get("cat") == "barrier" else 4
            rect(px, width, x(e["ts"]), ty + pad, x(e["ts"] + e["dur"]), ty + row_h - pad, color)
        if e["ph"] == "B" and e["tid"] == 0:
            ends = [f["ts"] for f in trace if f["ph"] == "E" and f["pid"] == e["pid"] and f["ts"] >= e["ts"]]
            rect(px, width, x(e["ts"]), ty + 6, x(min(ends) if ends else end), ty + row_h - 6, (120, 170, 220))
    for e in trace:
        key = (e.get("pid"), e.get("tid"))
        if e["ph"] == "i" and key in y_of:
            ty = y_of[key]
            red = e.get("cat") == "finding"
            color = (220, 30, 30) if red else (30, 80, 200) if e["tid"] == 0 else (40, 150, 60)
            rect(px, width, x(e["ts"]), ty, x(e["ts"]) + 2, ty + row_h - 1, color)
    draw_text(px, width, 4, 8, "TIMELINE: " + sys.argv[1].split("/")[-1] +
              "  (SIMULATED TIME: ONE TICK PER ENGINE EVENT, 0 - %d)" % end, (0, 0, 0))
    legend = [((170, 170, 170), "WARP RUNNING"), ((255, 150, 40), "BARRIER WAIT"),
              ((30, 80, 200), "PHASE COMPLETE"),
              ((40, 150, 60), "ARRIVE, WAIT DONE"), ((220, 30, 30), "FINDING")]
    lx = 10
    for color, label in legend:
        rect(px, width, lx, height - 22, lx + 14, height - 12, color)
        draw_text(px, width, lx + 18, height - 21, label, (0, 0, 0))
        lx += 30 + 6 * len(label)
    png(sys.argv[2], width, height, px)


if __name__ == "__main__":
    main()
