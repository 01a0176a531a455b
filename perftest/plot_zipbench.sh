#!/usr/bin/env bash
# plot_zipbench.sh RESULTS.csv OUTDIR: PNG figures from zipbench-merge's results.csv:
#   latency-<op>.png     latency vs size: default, best-tuned (the fastest of every tuned
#                        algorithm and segment size the sweep tried) and zip-raw (data-independent,
#                        drawn for one data set) and zip for every data set
#   speedup-<ds>.png     best-tuned latency / zip latency vs size, one line per operation
#                        ("<op> zip"), and best-tuned / zip-raw ("<op> zip-raw", dashed): what
#                        zip's own schedule gains with the codec off. Where the two lines meet, the
#                        gain is the schedule; the gap between them is compression.
# Needs gnuplot (gnuplot-nox). Prints the files it wrote.
set -euo pipefail
res=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
dat="$out/plotdata"
mkdir -p "$dat"
rm -f "$dat"/*.dat

# Split results into one "bytes value" file per series; links and rank counts go into the name
# so that sweeps at different rates do not get mixed.
awk -F, -v dir="$dat" 'NR > 1 {
    tag = $3 "r-" $4
    lat[$1, tag, $2, $6, $5] = $7
    if (!(($1, tag) in seen)) { seen[$1, tag] = 1; keys[++n] = $1 SUBSEP tag }
    ds[$2] = 1; sz[$5] = 1
    if (!(($1, tag, $2) in sd)) { sd[$1, tag, $2] = 1 }
}
END {
    for (i = 1; i <= n; i++) {
        split(keys[i], k, SUBSEP); op = k[1]; tag = k[2]
        ref = ""
        for (d in ds) if ((op, tag, d) in sd && (ref == "" || d == "random")) ref = d
        for (s in sz) {
            for (m = 1; m <= 3; m++) {
                mode = m == 1 ? "default" : m == 2 ? "best-tuned" : "zip-raw"
                if ((op, tag, ref, mode, s) in lat)
                    print s, lat[op, tag, ref, mode, s] | ("sort -n > " dir "/lat_" op "_" tag "_" mode ".dat")
            }
            for (d in ds) {
                if ((op, tag, d, "zip", s) in lat) {
                    print s, lat[op, tag, d, "zip", s] | ("sort -n > " dir "/lat_" op "_" tag "_zip-" d ".dat")
                    if ((op, tag, d, "best-tuned", s) in lat)
                        print s, lat[op, tag, d, "best-tuned", s] / lat[op, tag, d, "zip", s] \
                            | ("sort -n > " dir "/spd_" d "_" tag "_" op "-zip.dat")
                }
                if ((op, tag, d, "zip-raw", s) in lat && (op, tag, d, "best-tuned", s) in lat) {
                    print s, lat[op, tag, d, "best-tuned", s] / lat[op, tag, d, "zip-raw", s] \
                        | ("sort -n > " dir "/spd_" d "_" tag "_" op "-zip-raw.dat")
                }
            }
        }
    }
}' "$res"

plot() {  # plot <png> <title> <ylabel> <logy> <unity> <files...>
    local png=$1 ttl=$2 ylab=$3 logy=$4 unity=$5 files="" names="" f n; shift 5
    for f in "$@"; do
        n=$(basename "$f" .dat); n=${n#*_*_}; n=${n#*_}
        files+="$f "; names+="${n// /_} "
    done
    gnuplot -e "out='$png'; ttl='$ttl'; ylab='$ylab'; logy=$logy; unity=$unity; files='$files'; names='$names'" \
        "$here/plot_zipbench.gnuplot"
    echo "$png"
}

shopt -s nullglob
# One latency figure per (op, ranks, link).
for key in $(ls "$dat" | sed -n 's/^lat_\([^_]*_[^_]*\)_.*\.dat$/\1/p' | sort -u); do
    op=${key%%_*} tag=${key#*_}
    plot "$out/latency-$op-$tag.png" "MPI_${op^} latency, ${tag/r-/ ranks, } (lower is better)" \
        "latency (us)" 1 0 "$dat"/lat_"$key"_*.dat
done
# One speedup figure per (data set, ranks, link): per op, zip and then zip-raw (dashed, same colour).
for key in $(ls "$dat" | sed -n 's/^spd_\(.*\)_[^_]*\.dat$/\1/p' | sort -u); do
    ds=${key%%_*} tag=${key#*_} files=()
    for f in "$dat"/spd_"$key"_*-zip.dat; do
        files+=("$f")
        if [[ -f ${f%-zip.dat}-zip-raw.dat ]]; then files+=("${f%-zip.dat}-zip-raw.dat"); fi
    done
    plot "$out/speedup-$ds-$tag.png" "zip over the best tuned algorithm and segment size: $ds, ${tag/r-/ ranks, }" \
        "best-tuned latency / zip latency (zip-raw: codec off)" 0 1 "${files[@]}"
done
