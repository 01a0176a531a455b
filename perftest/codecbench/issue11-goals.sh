#!/bin/sh
# The measurements behind issue 11's goal table (docs/performance.md, "Goal check"): every
# corpus application against Blosc shuffle/bitshuffle+LZ4 and dfcm, the synthetic sets against
# Blosc, and codec-thread scaling. Take them on a quiet machine: the speed goals are ratios of
# one run, and the thread scaling needs a second idle core.
#   BUILD=<build dir> CORPUS=<corpus dir> perftest/codecbench/issue11-goals.sh [out-dir]
set -eu
build=${BUILD:-build}
corpus=${CORPUS:-/work/corpus}
out=${1:-issue11-goals}
bench="$build/perftest/codecbench/codecbench"
mkdir -p "$out"
uptime >"$out/load.txt"
"$bench" --files "$corpus" --pin 1 --codecs fast,blosc-shuffle-lz4,blosc-bitshuffle-lz4,dfcm \
    >"$out/corpus.txt"
"$bench" --codecs fast,blosc-shuffle-lz4 --sizes 64K,1M --pin 1 \
    --datasets heat3d,heat3d-halo,gauss-512,gauss-1024,sincos-512,sincos-1024,random,records-5 \
    >"$out/synthetic.txt"
# Two threads need two cores: not pinned.
"$bench" --codecs fast,fast@t2 --datasets heat3d,gauss-1024,records-5 --sizes 1M,4M,16M --tile \
    >"$out/threads.txt"
uptime >>"$out/load.txt"
echo "results in $out: corpus.txt synthetic.txt threads.txt load.txt"
