import sys
import time

import benchmarks.routes as R

label, route = sys.argv[1], sys.argv[2]
row = R._BY_LABEL[label]
t0 = time.perf_counter()
entry = R.row_entry(label) if route in R.NEEDS_ENTRY or row.kane == "whipple" else None
fn = R.ROUTES[route](row, entry)
t1 = time.perf_counter()
fn()
t2 = time.perf_counter()
print(f"{label:20s} {route:10s} setup {t1-t0:7.3f} route {t2-t1:7.3f} total {t2-t0:7.3f}")
