#!/usr/bin/env bash
# Interleaved route tables of two checkouts: drive.sh BASE NEW OUT [SYSTEM ...]
set -u
BASE=$1; NEW=$2; OUT=$3; shift 3
SYS=${*:-"appell_machine benenti_problem coaxial_discs coaxial_discs_reduced n_trailer parallel_velocities parallel_velocities_inclined parallel_velocities_inclined_equal rolling_ball rolling_disc skate stolarova_example1 stolarova_example2 stolarova_example3 two_wheels_axle vertical_disc rolling_disc_nl two_wheels_axle_nl n_trailer_4 n_trailer_6 n_trailer_8 whipple_bicycle"}
PY=${PYTHON:-python}
mkdir -p "$OUT/base" "$OUT/new"
for s in $SYS; do
  (cd "$BASE" && PYTHONPATH="$BASE" timeout 1500 "$PY" -m benchmarks.routes --systems "$s" --timeout 60 --quiet --out "$OUT/base/$s.txt" > /dev/null 2>&1)
  (cd "$NEW" && PYTHONPATH="$NEW" timeout 1500 "$PY" -m benchmarks.routes --systems "$s" --timeout 60 --quiet --out "$OUT/new/$s.txt" > /dev/null 2>&1)
  echo "$s done $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
done
