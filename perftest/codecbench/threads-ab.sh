#!/bin/bash
# Codec-thread scaling of two builds, alternated point by point: for every data set and size,
# codecbench A then codecbench B measure `fast` and `fast@tN` back to back, ROUNDS times; prints
# per point and build the median over the rounds of tN / one thread's speed, compressing and
# decompressing. This VM runs in phases of different speed lasting seconds to minutes, so the
# two builds are compared point by point, and each ratio is taken within one run.
# GAP=N: a busy pause of N us before every timed call (codecbench --gap-us), as between an
# application's messages: the codec threads have gone to sleep by then.
#   A=<base codecbench> B=<new codecbench> [ROUNDS=15] [THREADS=2] [GAP=0] [OUT=threads-ab.txt] \
#       perftest/codecbench/threads-ab.sh [data sets (heat3d,gauss-1024,records-5)] [sizes (1M,4M,16M)]
set -eu
: "${A:?A=<base codecbench binary>}" "${B:?B=<new codecbench binary>}"
rounds=${ROUNDS:-15}
threads=${THREADS:-2}
gap_option=()
[ "${GAP:-0}" != 0 ] && gap_option=(--gap-us "$GAP") # binaries that predate it run without
out=${OUT:-threads-ab.txt}
datasets=${1:-heat3d,gauss-1024,records-5}
sizes=${2:-1M,4M,16M}
: >"$out"
for r in $(seq "$rounds"); do
    for ds in ${datasets//,/ }; do
        for sz in ${sizes//,/ }; do
            for side in A B; do
                bin=$A
                [ "$side" = B ] && bin=$B
                # Rows: data set, size, unit, codec, ratio, compress GB/s, decompress GB/s.
                "$bin" --codecs "fast,fast@t$threads" --datasets "$ds" --sizes "$sz" --tile "${gap_option[@]}" \
                    2> >(grep -v '^\[' >&2) |
                    awk -v s="$side" -v r="$r" '$4 ~ /^fast(@t[0-9]+)?$/ { print s, r, $1, $2 $3, $4, $6, $7 }' \
                        >>"$out"
            done
        done
    done
done
# Per run, tN / one thread; then the median over the rounds.
python3 - "$out" "fast@t$threads" <<'PY'
import collections, statistics, sys
one, ratios = {}, collections.defaultdict(lambda: ([], []))
for line in open(sys.argv[1]):
    build, rnd, data, size, codec, c, d = line.split()
    if codec == "fast":
        one[build, rnd, data, size] = (float(c), float(d))
    elif codec == sys.argv[2]:
        o = one[build, rnd, data, size]
        ratios[data, size, build][0].append(float(c) / o[0])
        ratios[data, size, build][1].append(float(d) / o[1])
print("%-12s %-6s %-5s %9s %11s (%s / one thread, median)" % (
    "data set", "size", "build", "compress", "decompress", sys.argv[2]))
units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
size_bytes = lambda size: float(size[:-3]) * units.get(size[-3:], 1)
for data, size, build in sorted(ratios, key=lambda k: (k[0], size_bytes(k[1]), k[2])):
    c, d = ratios[data, size, build]
    print("%-12s %-6s %-5s %9.2f %11.2f" % (data, size, build, statistics.median(c),
                                            statistics.median(d)))
PY
