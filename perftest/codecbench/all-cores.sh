#!/bin/bash
# One core's codec speed when every core codes at once (issue 11: a node's cores share its
# memory bandwidth, ~3 GB/s a core on 64-128-core nodes), against the same core alone: per
# round, codecbench pinned to the last core alone, then one codecbench pinned to each core, all
# started together. Prints per point and codec the medians over rounds (busy: over every
# instance) of compress and decompress GB/s, alone and busy, and busy / alone.
#   [BENCH=build/perftest/codecbench/codecbench] [ROUNDS=5] [OUT=all-cores.txt] \
#       perftest/codecbench/all-cores.sh [codecbench arguments (the synthetic sets below)]
set -eu
bench=${BENCH:-build/perftest/codecbench/codecbench}
rounds=${ROUNDS:-5}
out=${OUT:-all-cores.txt}
cores=$(nproc)
if [ $# -eq 0 ]; then
    set -- --codecs fast,blosc-shuffle-lz4 --datasets heat3d,gauss-1024,records-5 --sizes 1M,16M --tile
fi
: >"$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Rows as tag, data, size, codec, compress, decompress: a data set's table (data set, size, unit,
# codec, ratio, GB/s, GB/s) or, with --files, an application's ("== APP: ..." then elem, codec,
# messages, MB, ratio, GB/s, GB/s).
rows() {
    awk -v tag="$1" '
        $1 == "==" { app = $2; sub(/:$/, "", app) }
        app != "" && NF >= 7 && $5 ~ /^[0-9.]+$/ && $6 ~ /^[0-9.]+$/ { print tag, app, $1, $2, $6, $7; next }
        app == "" && NF >= 7 && $6 ~ /^[0-9.]+$/ && $7 ~ /^[0-9.]+$/ { print tag, $1, $2 $3, $4, $6, $7 }' "$2"
}
for r in $(seq "$rounds"); do
    "$bench" --pin $((cores - 1)) "$@" >"$tmp/alone" 2>/dev/null
    rows alone "$tmp/alone" >>"$out"
    for c in $(seq 0 $((cores - 1))); do
        "$bench" --pin "$c" "$@" >"$tmp/busy$c" 2>/dev/null &
    done
    wait
    for c in $(seq 0 $((cores - 1))); do rows busy "$tmp/busy$c" >>"$out"; done
done
python3 - "$out" "$cores" <<'PY'
import collections, statistics, sys
speeds = collections.defaultdict(lambda: ([], []))
for line in open(sys.argv[1]):
    tag, data, size, codec, c, d = line.split()
    speeds[tag, data, size, codec][0].append(float(c))
    speeds[tag, data, size, codec][1].append(float(d))
print("%-12s %-6s %-18s %21s %21s   (GB/s of one core; busy: all %s cores coding)" % (
    "data", "size|elem", "codec", "compress alone/busy", "decompress alone/busy", sys.argv[2]))
units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
size_key = lambda s: (0, float(s[:-3]) * units[s[-3:]]) if s[-3:] in units else (1, s)
points = sorted({k[1:] for k in speeds if k[0] == "alone"}, key=lambda k: (k[0], size_key(k[1]), k[2]))
for data, size, codec in points:
    ca, da = (statistics.median(v) for v in speeds["alone", data, size, codec])
    cb, db = (statistics.median(v) for v in speeds["busy", data, size, codec])
    print("%-12s %-6s %-18s %6.2f %6.2f (%.2f) %6.2f %6.2f (%.2f)" % (
        data, size, codec, ca, cb, cb / ca, da, db, db / da))
PY
