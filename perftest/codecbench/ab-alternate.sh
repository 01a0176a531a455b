#!/bin/sh
# Runs two codecbench binaries alternately on the same arguments, so that both see the same
# machine load: A (e.g. main's build), then B (the change), ROUNDS times. Each run's output goes
# to OUT/a<i>.txt and OUT/b<i>.txt; the table rows that match ROWS are printed tagged A<i>/B<i>.
# Compare ratios of speeds within one run (x Blosc shuffle+LZ4), not GB/s across runs.
#   A=<base codecbench> B=<new codecbench> [ROUNDS=2] [ROWS='f64 '] [OUT=ab-out] \
#       perftest/codecbench/ab-alternate.sh <codecbench arguments>
# Example (issue 11, miniVite's coordinates through the bit-plane coding):
#   A=../main/build/perftest/codecbench/codecbench B=build/perftest/codecbench/codecbench \
#       perftest/codecbench/ab-alternate.sh --files /work/corpus/minivite --pin 1 \
#       --codecs fast,blosc-shuffle-lz4
set -eu
: "${A:?A=<base codecbench binary>}" "${B:?B=<new codecbench binary>}"
rounds=${ROUNDS:-2}
rows=${ROWS:-'f64 '}
out=${OUT:-ab-out}
mkdir -p "$out"
uptime >"$out/load.txt"
i=1
while [ "$i" -le "$rounds" ]; do
    for side in a b; do
        if [ "$side" = a ]; then bin=$A; else bin=$B; fi
        "$bin" "$@" >"$out/$side$i.txt"
        tag=$(echo "$side" | tr ab AB)
        grep -e "$rows" "$out/$side$i.txt" | sed "s/^/$tag$i /"
    done
    i=$((i + 1))
done
uptime >>"$out/load.txt"
