#!/usr/bin/env bash
# Simulated MPI_Bcast, before and after the scatter-allgather topology (docs/scale.md): for each
# point, simscale with --bcast-algorithm chain (zip's segmented pipeline alone, as before) and
# auto (the cost model's choice), appended to OUT_DIR/before.csv and OUT_DIR/after.csv; then a
# table of best-baseline / zip and best-baseline / zip-raw, before -> after.
#
# Usage: scripts/simscale-bcast-topology.sh [build dir] [out dir]
#   RANKS="8 16 ... 1024" LINKS="1gbit 10gbit" DATA="gauss random" BYTES="1048576 4194304"
set -eu
build=${1:-build}
out=${2:-simscale-bcast}
mkdir -p "$out"
csv=$(dirname "$0")/../docs/figures/codecbench-2026-11-22.csv
for P in ${RANKS:-8 16 32 64 128 256 512 1024}; do
    for link in ${LINKS:-1gbit 10gbit}; do
        for d in ${DATA:-gauss random}; do
            for B in ${BYTES:-1048576 4194304}; do
                for alg in chain auto; do
                    file=$out/after.csv
                    [ $alg = chain ] && file=$out/before.csv
                    "$build/perftest/simscale" --op bcast --ranks "$P" --ranks-per-node 1 \
                        --bytes "$B" --link "$link" --latency 30us --codec-csv "$csv" \
                        --dataset "$d" --bcast-algorithm $alg --csv "$file" >/dev/null
                done
            done
        done
    done
done
# One row per point: link data bytes ranks, zip and zip-raw ratios before -> after.
awk -F, 'FNR == 1 { f++; next }
    { k = $5 "," $2 "," $6 "," $3; t[f, k, $7] = $8; keys[k] = 1 }
    END {
        for (k in keys) {
            b = t[1, k, "best-baseline"]
            if (b == "" || t[2, k, "zip"] == "") continue
            printf "%s,%.2f,%.2f,%.2f,%.2f\n", k, b / t[1, k, "zip"], b / t[2, k, "zip"],
                b / t[1, k, "zip-raw"], b / t[2, k, "zip-raw"]
        }
    }' "$out/before.csv" "$out/after.csv" | sort -t, -k1,1 -k2,2 -k3,3n -k4,4n |
    awk -F, 'BEGIN { print "| link | data | bytes | ranks | zip before -> after | zip-raw before -> after |";
                     print "|---|---|---:|---:|---:|---:|" }
             { printf "| %s | %s | %s | %s | %s -> %s | %s -> %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
