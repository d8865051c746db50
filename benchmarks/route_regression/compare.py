"""Compare the interleaved route tables OUT/base/*.txt and OUT/new/*.txt of drive.sh: python compare.py OUT."""
import pathlib
import sys

OUT = pathlib.Path(sys.argv[1])
RENAME = {"r-multipliers": "lagrange_multipliers", "gibbs-appell": "gibbs_appell", "benenti2": "benenti_second_kind",
          "benenti1": "benenti_first_kind"}

def parse(p):
    lines = p.read_text().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("system "))
    cols = lines[i].split()[1:]
    row = lines[i + 2].split()
    name, vals = row[0], row[1:]
    return name, {RENAME.get(c, c): v for c, v in zip(cols, vals)}

def num(v):
    try:
        return float(v)
    except ValueError:
        return None

out = []
worse = []
for pb in sorted(pathlib.Path(OUT / "base").glob("*.txt")):
    pn = OUT / "new" / pb.name
    if not pn.exists():
        continue
    name, b = parse(pb)
    _, n = parse(pn)
    for c in b:
        if c not in n:
            continue
        x, y = num(b[c]), num(n[c])
        if x is None or y is None:
            if b[c] != n[c]:
                out.append(f"{name:36s} {c:22s} {b[c]:>10s} {n[c]:>10s}   (not both numbers)")
            continue
        r = y / x if x > 0 else float("inf")
        flag = ""
        if r > 1.10 and y - x > 0.02:
            flag = "  SLOWER"
            worse.append((name, c, x, y, r))
        out.append(f"{name:36s} {c:22s} {x:10.3g} {y:10.3g} {r:6.2f}{flag}")
print("\n".join(out))
print(f"\ncells slower by > 10 % (and > 20 ms): {len(worse)}")
for w in worse:
    print("  ", w)
