#!/usr/bin/env bash
# Builds one libFuzzer target per block decoder plus one for the whole frame path (clang++,
# ASan+UBSan), seeds each with real frames or real blocks of its codec (make_seeds.cpp, from
# perftest/data's data sets), and fuzzes each for FUZZ_SECONDS (default 15). Prints
# "PASS: fuzz-<name>" or "FAIL: fuzz-<name>" per target.
# Longer runs: FUZZ_SECONDS=3600 tests/fuzz/run-fuzz.sh, or run a built target by hand:
#   build/fuzz/fuzz-fpc -max_total_time=3600 build/fuzz/corpus-fpc build/fuzz/seeds-fpc
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FUZZ_DIR:-$top/build/fuzz}
seconds=${FUZZ_SECONDS:-15}
mkdir -p "$out"
CXX=${FUZZ_CXX:-clang++}
if ! command -v "$CXX" > /dev/null; then
    echo "FAIL: fuzz-build ($CXX not found; install clang)"
    exit 1
fi
flags="-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
incs="-I$top/codecs/include -I$top/codecs/src $(pkg-config --cflags liblz4 libzstd libxxhash)"
libs="$(pkg-config --libs liblz4 libzstd libxxhash)"
srcs=$(ls "$top"/codecs/src/*.cpp)

# Work runs on every core: builds and fuzzing runs, at most $jobs at once (a fuzzer is one
# process on one core). A failed step leaves its name in $fail_marks.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
fail_marks="$out/failed-steps"
rm -f "$fail_marks"
in_parallel() {  # in_parallel <command...>: starts it once fewer than $jobs are running
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    "$@" &
}
compile_object() {  # compile_object <object> <log> <compiler arguments...>
    local o=$1 log=$2
    shift 2
    $CXX "$@" -c -o "$o" > "$log" 2>&1 || echo "$(basename "$o")" >> "$fail_marks"
}

# The engine once, as objects shared by every target; the seed generator's own objects (no
# fuzzer instrumentation) next to them.
datasrcs=()
for s in "$top"/perftest/data/*.cpp; do
    [ "$(basename "$s")" = zipdata-gen.cpp ] || datasrcs+=("$s")
done
objs=()
seedobjs=()
for s in $srcs; do
    o="$out/$(basename "${s%.cpp}").o"
    in_parallel compile_object "$o" "$o.log" $flags -fsanitize=fuzzer-no-link $incs "$s"
    objs+=("$o")
done
seedflags="-std=c++20 -O1 -ffp-contract=off -fsanitize=address,undefined $incs -I$top/perftest/data"
for s in $srcs "${datasrcs[@]}" "$top/tests/fuzz/make_seeds.cpp"; do
    o="$out/seed-$(basename "${s%.cpp}").o"
    in_parallel compile_object "$o" "$o.log" $seedflags "$s"
    seedobjs+=("$o")
done
wait
if [ -s "$fail_marks" ]; then
    echo "FAIL: fuzz-build ($(tr '\n' ' ' < "$fail_marks")see $out/*.o.log)"
    cat "$out"/*.o.log | head -20
    exit 1
fi

# Seed corpora (make_seeds.cpp): frames of every spec, and blocks of each codec, made from
# perftest/data's data sets, so that fuzzing starts from valid input of every kind.
seedgen="$out/make-seeds"
$CXX -fsanitize=address,undefined "${seedobjs[@]}" $libs -o "$seedgen" 2> "$out/build.log" || {
    echo "FAIL: fuzz-build (seed generator, see $out/build.log)"; exit 1; }

# The corpus keeps what fuzzing found across runs; the seeds are made afresh in their own
# directory, which libFuzzer reads too.
run_target() {  # run_target <name> <source> <defines> <make-seeds arguments...>
    local name=$1 src=$2 def=$3
    shift 3
    local bin="$out/fuzz-$name" corpus="$out/corpus-$name" seeds="$out/seeds-$name" made
    mkdir -p "$corpus"
    if ! $CXX $flags $def $incs "$src" "${objs[@]}" $libs -o "$bin" 2>> "$out/build.log"; then
        echo "FAIL: fuzz-$name (build, see $out/build.log)"
        return
    fi
    rm -rf "$seeds" && mkdir -p "$seeds"
    if ! made=$("$seedgen" "$@" "$seeds" 2>> "$out/build.log"); then
        echo "FAIL: fuzz-$name (seeds: ${made:-none}; see $out/build.log)"
        return
    fi
    if "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$name-" "$corpus" "$seeds" > "$out/fuzz-$name.log" 2>&1; then
        echo "PASS: fuzz-$name ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz-$name.log" | grep -o '[0-9]*$') inputs in ${seconds}s, seeds: $made)"
    else
        echo "FAIL: fuzz-$name (see $out/fuzz-$name.log)"
        grep -m5 -E 'ERROR|SUMMARY|runtime error' "$out/fuzz-$name.log"
    fi
}

# pml/zip's header parser: C, against Open MPI's headers; seeded with one message of each shape.
pml_header_target() {
    local bin="$out/fuzz-pml-header" corpus="$out/corpus-pml-header" inc
    inc=$(mpicc --showme:incdirs 2>/dev/null | tr ' ' '\n' | grep -v '/openmpi$' | head -n 1)
    mkdir -p "$corpus"
    if ! ${FUZZ_CC:-clang} -std=gnu11 -O1 -g -mcx16 -fsanitize=fuzzer,address,undefined \
        -fno-sanitize-recover=undefined -I"$inc" -I"$inc/openmpi" -I"$top/codecs/include" \
        -I"$top/ucx-hooks" -I"$top/common" "$top/tests/fuzz/fuzz_pml_header.c" \
        "$top/ucx-hooks/pml_zip_header.c" "$top/common/payload_tags.c" \
        -o "$bin" 2>> "$out/build.log"; then
        echo "FAIL: fuzz-pml-header (build, see $out/build.log)"
        return
    fi
    printf 'abc' > "$corpus/bare"
    printf 'Z\x01\x09\0\0\0\x00\x10\0\0\0\0\0\0' > "$corpus/envelope"
    # ... and with a link hint (0x1ae6: 2^(0x1ae6/256) B/s = 1 Gbit/s) in the length's top bits.
    printf 'Z\x03\x0a\0\0\0\x00\x10\0\0\0\0\xe6\x1a' > "$corpus/envelope-hint"
    # A stream message's envelope (flags frame + temporal) and its payload's stream prefix.
    printf 'Z\x05\x0b\0\0\0\x00\x10\0\0\0\0\0\0' > "$corpus/envelope-stream"
    printf 'T\x01\0\0\x2a\0\0\0frame' > "$corpus/stream-prefix"
    # A raw payload's envelope whose payload takes the second tag window.
    printf 'Z\x08\x0c\0\0\0\x00\x10\0\0\0\0\0\0' > "$corpus/envelope-window"
    if "$bin" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$out/crash-pml-header-" "$corpus" > "$out/fuzz-pml-header.log" 2>&1; then
        echo "PASS: fuzz-pml-header ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz-pml-header.log" | grep -o '[0-9]*$') inputs in ${seconds}s)"
    else
        echo "FAIL: fuzz-pml-header (see $out/fuzz-pml-header.log)"
        grep -m5 -E 'ERROR|SUMMARY|runtime error|deadly' "$out/fuzz-pml-header.log"
    fi
}
# Each target's lines go to its own file, printed in a fixed order once all have run.
in_parallel run_target frame "$top/tests/fuzz/fuzz_frame.cpp" "" frame > "$out/result-frame"
in_parallel pml_header_target > "$out/result-pml-header"
codecs="fast fpc dfcm xorlz lz4 zstd"
for codec in $codecs; do
    in_parallel run_target "$codec" "$top/tests/fuzz/fuzz_block_decoder.cpp" \
        "-DFUZZ_CODEC=\"$codec\"" block "$codec" > "$out/result-$codec"
done
wait
for name in frame pml-header $codecs; do cat "$out/result-$name"; done
