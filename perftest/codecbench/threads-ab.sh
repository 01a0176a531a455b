#!/bin/bash
# Codec-thread scaling of two builds, alternated point by point: for every data set and size,
# codecbench A then codecbench B measure `fast` and `fast@tN` back to back, ROUNDS times; prints
# per point and build the median over the rounds of tN / one thread's speed, compressing and
# decompressing. This VM runs in phases of different speed lasting seconds to minutes, so the
# two builds are compared point by point, and each ratio is taken within one run.
#   A=<base codecbench> B=<new codecbench> [ROUNDS=15] [THREADS=2] [OUT=threads-ab.txt] \
#       perftest/codecbench/threads-ab.sh [data sets (heat3d,gauss-1024,records-5)] [sizes (1M,4M,16M)]
set -eu
: "${A:?A=<base codecbench binary>}" "${B:?B=<new codecbench binary>}"
rounds=${ROUNDS:-15}
threads=${THREADS:-2}
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
                "$bin" --codecs "fast,fast@t$threads" --datasets "$ds" --sizes "$sz" --tile \
                    2> >(grep -v '^\[' >&2) |
                    awk -v s="$side" -v r="$r" '$4 ~ /^fast(@t[0-9]+)?$/ { print s, r, $1, $2 $3, $4, $6, $7 }' \
                        >>"$out"
            done
        done
    done
done
# Per run, tN / one thread; then the median over the rounds.
awk -v t="fast@t$threads" '
    $5 == "fast" { one[$1 " " $2 " " $3 " " $4] = $6 " " $7 }
    $5 == t { split(one[$1 " " $2 " " $3 " " $4], o, " ")
              key = $3 " " $4 " " $1; n[key]++
              c[key, n[key]] = $6 / o[1]; d[key, n[key]] = $7 / o[2] }
    function median(a, key, m,   i, j, v, tmp) {
        for (i = 1; i <= m; i++) v[i] = a[key, i]
        for (i = 2; i <= m; i++) { tmp = v[i]; for (j = i - 1; j >= 1 && v[j] > tmp; j--) v[j + 1] = v[j]; v[j + 1] = tmp }
        return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
    END { printf "%-12s %-6s %-5s %9s %11s %s\n", "data set", "size", "build", "compress", "decompress", "(" t " / one thread, median)"
          for (key in n) { split(key, k, " ")
              printf "%-12s %-6s %-5s %9.2f %11.2f\n", k[1], k[2], k[3], median(c, key, n[key]), median(d, key, n[key]) } }
' "$out" | (read -r header; echo "$header"; sort -k1,1 -k2,2V -k3,3)
