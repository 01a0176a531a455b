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
awk -v cores="$cores" '
    { key = $2 " " $3 " " $4; n[$1, key]++; c[$1, key, n[$1, key]] = $5; d[$1, key, n[$1, key]] = $6; keys[key] = 1 }
    function median(a, tag, key, m,   i, j, v, tmp) {
        for (i = 1; i <= m; i++) v[i] = a[tag, key, i]
        for (i = 2; i <= m; i++) { tmp = v[i]; for (j = i - 1; j >= 1 && v[j] > tmp; j--) v[j + 1] = v[j]; v[j + 1] = tmp }
        return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
    END { printf "%-12s %-6s %-18s %21s %21s   (GB/s of one core; busy: all %d cores coding)\n", "data", "size|elem", "codec", "compress alone/busy", "decompress alone/busy", cores
          for (key in keys) { split(key, k, " ")
              ca = median(c, "alone", key, n["alone", key]); cb = median(c, "busy", key, n["busy", key])
              da = median(d, "alone", key, n["alone", key]); db = median(d, "busy", key, n["busy", key])
              printf "%-12s %-6s %-18s %6.2f %6.2f (%.2f) %6.2f %6.2f (%.2f)\n", k[1], k[2], k[3], ca, cb, cb / ca, da, db, db / da } }
' "$out" | (read -r header; echo "$header"; sort -k1,1 -k2,2V -k3,3)
