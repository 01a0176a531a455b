#!/usr/bin/env bash
# Sets up a fresh machine and runs every ompi-zip test: the unit tests (optimised build), the
# same unit tests under ASan+UBSan, the MPI integration tests under mpirun, the simulated
# clusters of perftest/simscale, and a short fuzzing run of every decoder. Ends with one line:
# "N passed, M failed".
#   scripts/test.sh            everything
#   FUZZ_SECONDS=300 scripts/test.sh   longer fuzzing
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
logdir="$top/build/test-logs"
passed=0
failed=0
failures=()

note_fail() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL: $1"; }

# Names a stage and says how long the one before it took (CI must stay well under 30 minutes:
# these lines say where its time goes).
stage_name="" stage_start=$SECONDS
stage() {
    [ -z "$stage_name" ] || echo "   ($stage_name: $((SECONDS - stage_start)) s)"
    stage_name=$1 stage_start=$SECONDS
    [ -z "$1" ] || echo "== $1"
}

# Counts GoogleTest results from a log: one per test case.
count_gtest() {
    local log=$1 name=$2 ok bad
    ok=$(grep -c '^\[       OK \]' "$log" || true)
    # A failing test is named twice (when it fails, with its time, and in the summary).
    bad=$(grep -E '^\[  FAILED  \] [A-Za-z0-9_/.]+\.[A-Za-z0-9_/]+' "$log" | grep -v ' listed below' |
        sed -E 's/^\[  FAILED  \] ([^ ,]+).*/\1/' | sort -u | wc -l)
    passed=$((passed + ok))
    failed=$((failed + bad))
    [ "$bad" -eq 0 ] || failures+=("$name: $bad failing tests (see $log)")
    [ "$bad" -eq 0 ] || grep -E -B12 '^\[  FAILED  \] [A-Za-z0-9_/.]+\.[A-Za-z0-9_/]+ \(' "$log" |
        sed 's/^/  | /' | head -80
    if [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ]; then note_fail "$name: no test ran (see $log)"; fi
    echo "$name: $ok passed, $bad failed"
}

# Adds a log's "PASS: x" / "FAIL: x" lines to the totals.
count_log() {  # count_log <log> <name>
    local log=$1 name=$2 p f
    p=$(grep -c '^PASS: ' "$log" || true)
    f=$(grep -c '^FAIL: ' "$log" || true)
    passed=$((passed + p)); failed=$((failed + f))
    [ "$f" -eq 0 ] || failures+=("$name: $f failing (see $log)")
    # CI keeps only this output, not the logs: name each failure with the lines its runner
    # printed under it (the run's log tail).
    [ "$f" -eq 0 ] || awk '/^PASS: /{n=0} /^FAIL: /{n=16} n>0{print "  | " $0; n--}' "$log" | head -80
    [ "$p" -gt 0 ] || [ "$f" -gt 0 ] || note_fail "$name: none ran (see $log)"
    echo "$name: $p passed, $f failed"
}

# Runs a script that prints such lines and counts them.
count_lines() {  # count_lines <log> <name> <command...>
    local log=$1 name=$2 start=$SECONDS
    shift 2
    "$@" > "$log" 2>&1
    count_log "$log" "$name"
    echo "   ($name: $((SECONDS - start)) s)"
}

stage "set-up (packages, autogen)"
"$top/scripts/install-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
[ -x configure ] || ./autogen.sh > /dev/null 2>&1 || { echo "autogen failed"; echo "0 passed, 1 failed"; exit 1; }

build() {  # build <dir> <configure args...>
    local dir=$1; shift
    mkdir -p "$dir"
    (cd "$dir" && { [ -f Makefile ] || "$top/configure" "$@" > configure.log 2>&1; } &&
        make -j"$jobs" > make.log 2>&1 && make -j"$jobs" check TESTS= > make-check.log 2>&1)
}

# The sanitized build makes only what runs sanitized (the unit tests, coll/zip and pml/zip), at -O1 as
# ASan's authors advise: it builds in two thirds of the -O2 time and still finds the same errors.
# The unit tests' own files are not instrumented (tests/Makefile.am says why) and keep its -O0,
# with line tables only (-g1: reports still name file and line; 83 s to build them, not 102).
build_sanitized() {  # build_sanitized <dir>
    local dir=$1 opt=(CFLAGS="-g -O1" CXXFLAGS="-g -O1")
    mkdir -p "$dir"
    (cd "$dir" && { [ -f Makefile ] || "$top/configure" --enable-sanitizers > configure.log 2>&1; } &&
        { make -j"$jobs" -C codecs "${opt[@]}" && make -j"$jobs" -C common "${opt[@]}" &&
            make -j"$jobs" -C ompi-coll-zip "${opt[@]}" &&
            make -j"$jobs" -C ucx-hooks "${opt[@]}" &&
            make -j"$jobs" -C perftest data/libzipdata.la sim/libsimcore.la msgrec/libmsgcorpus.la \
                "${opt[@]}" &&
            make -j"$jobs" -C tests unit/zip_unit_tests CXXFLAGS="-g1"; } > make.log 2>&1)
}

mkdir -p "$logdir"
stage "source format"
count_lines "$logdir/format.log" "clang-format" "$top/scripts/check-format.sh"

stage "build (optimised)"
san_rc=""
if build "$top/build"; then
    # The sanitized build runs beside the unit tests, which time nothing and leave a core
    # idle; it must end before the MPI suites, whose automatic policy times the codec and the
    # link (their runs on this machine's 2 cores are what CI's time is made of).
    san_start=$SECONDS
    build_sanitized "$top/build-asan" &
    san_pid=$!
    stage "unit tests (the sanitized build beside them)"
    "$top/build/tests/unit/zip_unit_tests" > "$logdir/unit.log" 2>&1
    count_gtest "$logdir/unit.log" "unit tests"
    # The collective algorithms again over sends that are read only when their receive is
    # there (MPI's rendezvous protocol): a buffer reused while its send is in flight shows.
    stage "collective algorithms over rendezvous sends"
    ZIP_TEST_RENDEZVOUS=1 "$top/build/tests/unit/zip_unit_tests" --gtest_filter='*CollAlgo*' \
        > "$logdir/unit-rendezvous.log" 2>&1
    count_gtest "$logdir/unit-rendezvous.log" "collective algorithms, rendezvous sends"
    stage "the rest of the sanitized build"
    wait "$san_pid"
    san_rc=$?
    echo "   (sanitized build, from its start: $((SECONDS - san_start)) s)"
    stage "MPI integration tests (coll/zip, pml/zip, the message recorder, zipbench)"
    count_lines "$logdir/mpi-coll.log" "MPI coll/zip tests" \
        env BUILD_DIR="$top/build" "$top/tests/mpi/run-mpi-tests.sh"
    count_lines "$logdir/mpi-p2p.log" "MPI pml/zip tests" \
        env ZIP_PML_DIR="$top/build/ucx-hooks/.libs" "$top/tests/mpi/run-p2p-tests.sh"
    count_lines "$logdir/mpi-msgrec.log" "MPI message recorder tests" \
        env BUILD_DIR="$top/build" "$top/tests/mpi/run-msgrec-tests.sh"
    count_lines "$logdir/mpi-zipbench.log" "MPI zipbench tests" \
        env BUILD_DIR="$top/build" "$top/tests/mpi/run-zipbench-tests.sh"
    stage "simulated clusters (perftest/simscale, SimGrid)"
    count_lines "$logdir/simscale.log" "simscale tests" \
        env BUILD_DIR="$top/build" "$top/tests/sim/run-simscale-tests.sh"
else
    note_fail "optimised build (see $top/build/*.log)"
    tail -30 "$top"/build/make*.log 2>/dev/null
fi

# Fuzzing is not timed, nor are the sanitized unit tests: they share the cores, after the
# sanitized MPI runs, which are timed.
fuzz_log="$logdir/fuzz.log"
run_fuzz() { env FUZZ_SECONDS="${FUZZ_SECONDS:-15}" "$top/tests/fuzz/run-fuzz.sh" > "$fuzz_log" 2>&1; }
if [ -z "$san_rc" ]; then
    stage "sanitized build (ASan+UBSan)"
    build_sanitized "$top/build-asan"
    san_rc=$?
fi
if [ "$san_rc" = 0 ]; then
    stage "pml/zip under ASan+UBSan (MPI)"
    count_lines "$logdir/mpi-p2p-asan.log" "MPI pml/zip under ASan+UBSan" \
        env BUILD_DIR="$top/build" "$top/tests/mpi/run-p2p-asan.sh" "$top/build-asan/ucx-hooks/.libs"
    stage "coll/zip under ASan+UBSan (MPI)"
    count_lines "$logdir/mpi-coll-asan.log" "MPI coll/zip under ASan+UBSan" \
        "$top/tests/mpi/run-coll-asan.sh" "$top/build-asan/ompi-coll-zip/.libs"
    stage "unit tests under ASan+UBSan, and fuzzing (${FUZZ_SECONDS:-15} s per decoder) beside them"
    run_fuzz &
    fuzz_pid=$!
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
        "$top/build-asan/tests/unit/zip_unit_tests" > "$logdir/unit-asan.log" 2>&1
    rc=$?
    count_gtest "$logdir/unit-asan.log" "unit tests (ASan+UBSan)"
    if grep -q -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$logdir/unit-asan.log"; then
        note_fail "sanitizer reported errors (see $logdir/unit-asan.log)"
    elif [ $rc -ne 0 ] && ! grep -q '^\[  FAILED  \]' "$logdir/unit-asan.log"; then
        note_fail "sanitized unit tests exited with $rc (see $logdir/unit-asan.log)"
    fi
    wait "$fuzz_pid"
else
    note_fail "sanitizer build (see $top/build-asan/*.log)"
    tail -30 "$top"/build-asan/make*.log 2>/dev/null
    stage "fuzzing (${FUZZ_SECONDS:-15} s per decoder)"
    run_fuzz
fi
count_log "$fuzz_log" "fuzz targets"

stage ""
echo "   (all: $SECONDS s)"
for f in "${failures[@]}"; do echo "  failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
