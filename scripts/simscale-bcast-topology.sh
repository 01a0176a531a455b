#!/usr/bin/env bash
# Simulated MPI_Bcast, before and after a change of zip's bcast (docs/scale.md): for each point,
# simscale with the BEFORE options (default --bcast-algorithm chain: zip's segmented pipeline
# alone, as before the scatter-allgather topology) and the AFTER ones (default --bcast-algorithm
# auto: the cost model's choice), in the same build (before: BEFORE_BUILD's if set), appended
# to OUT_DIR/before.csv and OUT_DIR/after.csv; then a table of best-baseline / zip and
# best-baseline / zip-raw, before -> after.
#
# Usage: scripts/simscale-bcast-topology.sh [build dir] [out dir]
#   RANKS="8 16 ... 1024" PER_NODE="1 8 32" LINKS="1gbit 10gbit" DATA="gauss random"
#   BYTES="1048576 4194304" BEFORE="--bcast-segment rule" AFTER="--bcast-segment model"
#   BEFORE_BUILD=other/build (a build of the code before the change; BEFORE and AFTER then
#   both "--bcast-algorithm auto", say)
#   (a point whose ranks PER_NODE does not divide is left out)
set -eu
build=${1:-build}
out=${2:-simscale-bcast}
before=${BEFORE:---bcast-algorithm chain}
after=${AFTER:---bcast-algorithm auto}
before_build=${BEFORE_BUILD:-$build}
mkdir -p "$out"
csv=$(dirname "$0")/../docs/figures/codecbench-2026-11-22.csv
for P in ${RANKS:-8 16 32 64 128 256 512 1024}; do
  for k in ${PER_NODE:-1}; do
    [ $((P % k)) -eq 0 ] || continue
    for link in ${LINKS:-1gbit 10gbit}; do
        for d in ${DATA:-gauss random}; do
            for B in ${BYTES:-1048576 4194304}; do
                for variant in before after; do
                    opts=$before
                    sim=$before_build/perftest/simscale
                    if [ $variant = after ]; then
                        opts=$after
                        sim=$build/perftest/simscale
                    fi
                    # shellcheck disable=SC2086 # the options are words
                    "$sim" --op bcast --ranks "$P" --ranks-per-node "$k" \
                        --bytes "$B" --link "$link" --latency 30us --codec-csv "$csv" \
                        --dataset "$d" $opts --csv "$out/$variant.csv" >/dev/null
                done
            done
        done
    done
  done
done
# One row per point: link data bytes ranks per-node, zip and zip-raw ratios before -> after.
awk -F, 'FNR == 1 { f++; next }
    { k = $5 "," $2 "," $6 "," $3 "," $4; t[f, k, $7] = $8; keys[k] = 1 }
    END {
        for (k in keys) {
            b = t[1, k, "best-baseline"]
            if (b == "" || t[2, k, "zip"] == "") continue
            printf "%s,%.2f,%.2f,%.2f,%.2f\n", k, b / t[1, k, "zip"], b / t[2, k, "zip"],
                b / t[1, k, "zip-raw"], b / t[2, k, "zip-raw"]
        }
    }' "$out/before.csv" "$out/after.csv" | sort -t, -k1,1 -k2,2 -k3,3n -k4,4n -k5,5n |
    awk -F, 'BEGIN { print "| link | data | bytes | ranks | per node | zip before -> after | zip-raw before -> after |";
                     print "|---|---|---:|---:|---:|---:|---:|" }
             { printf "| %s | %s | %s | %s | %s | %s -> %s | %s -> %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
