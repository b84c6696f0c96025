#!/usr/bin/env python3
"""check_png.py: is a screenshot of the HTML report a real picture of it?

    tests/report/check_png.py SHOT.png WIDTH HEIGHT

Decodes the PNG (zlib + the five PNG row filters; standard library only)
and checks: the size is the window's; the page is not blank (more than 3 %
of the pixels are not white, more than 64 distinct colours); the charts
were drawn: the stacked bars' "compute" colour (#4e79a7) covers at least
400 pixels, and at least four of the six instance colours of the scatter
and scaling charts appear on at least 20 pixels each.  Exit 0 when all
hold, 1 with the reasons otherwise.
"""
import struct
import sys
import zlib


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)"
                                 % (depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w, h, bpp, rows = decode(path)
    counts = {}
    for row in rows:
        for x in range(0, len(row), bpp):
            px = row[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    total = w * h
    white = counts.get(b"\xff\xff\xff", 0)
    problems = []
    if (w, h) != (want_w, want_h):
        problems.append("size %dx%d, expected %dx%d" % (w, h, want_w, want_h))
    if total - white < 0.03 * total:
        problems.append("blank: only %.2f %% of the pixels are not white" % (100.0 * (total - white) / total))
    if len(counts) <= 64:
        problems.append("only %d distinct colours" % len(counts))

    def near(rgb, tol=6):
        n = 0
        for px, c in counts.items():
            if all(abs(px[k] - rgb[k]) <= tol for k in range(3)):
                n += c
        return n

    compute = near((0x4e, 0x79, 0xa7))
    if compute < 400:
        problems.append("the step-time bars' compute colour #4e79a7 covers %d pixels (< 400)" % compute)
    inst = [(0x1f, 0x77, 0xb4), (0xff, 0x7f, 0x0e), (0x2c, 0xa0, 0x2c), (0xd6, 0x27, 0x28),
            (0x94, 0x67, 0xbd), (0x8c, 0x56, 0x4b)]
    seen = [near(c) for c in inst]
    if sum(1 for s in seen if s >= 20) < 4:
        problems.append("instance colours of the scatter and scaling charts: pixels %s" % seen)
    print("check_png: %dx%d, %d colours, %.1f %% not white, compute bars %d px, instance colours %s"
          % (w, h, len(counts), 100.0 * (total - white) / total, compute, seen))
    for p in problems:
        print("check_png: FAIL: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
