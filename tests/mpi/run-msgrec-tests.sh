#!/usr/bin/env bash
# The message recorder (perftest/msgrec) under mpirun: test_msgrec (C) and test_msgrec_f
# (Fortran, `use mpi`) send known payloads with the recorder preloaded and check, after
# MPI_Finalize, that the recorded index and bytes are exactly what they sent. One line per run:
# "PASS: name" or "FAIL: name"; exit status is the number of failures (capped at 100).
#
# Usage: run-msgrec-tests.sh [libmsgrec.so]
#   default: $BUILD_DIR/perftest/msgrec/.libs/libmsgrec.so, else the libtool output in this tree.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
lib=${1:-$(built_component_dir perftest/msgrec)/libmsgrec.so}
limit=${ZIP_TEST_TIMEOUT:-60}

require_component "$lib" "no libmsgrec.so at $lib"
start_runner msgrec-tests

mpicc -O2 -Wall -Wextra -o "$bin/test_msgrec" "$here/test_msgrec.c" "$here/msgrec_expect.c" \
    2>"$bin/cc.log" || report "build test_msgrec" 1 "$bin/cc.log"
have_fortran=0
if command -v mpif90 >/dev/null 2>&1; then
    mpicc -O2 -Wall -Wextra -c -o "$bin/msgrec_expect.o" "$here/msgrec_expect.c" 2>"$bin/cc.log" &&
        mpif90 -O2 -Wall -o "$bin/test_msgrec_f" "$here/test_msgrec_f.f90" "$bin/msgrec_expect.o" \
            2>>"$bin/cc.log" && have_fortran=1
    [ $have_fortran = 1 ] || report "build test_msgrec_f" 1 "$bin/cc.log"
fi

# record <name> <expected-line> <np> <program> [-x VAR=value ...]: one run in a fresh directory.
record() {
    local name=$1 expect=$2 np=$3 prog=$4
    shift 4
    rm -rf "$bin/out"
    run "$name" "$expect" -np "$np" --oversubscribe -x LD_PRELOAD="$lib" -x MSGREC_DIR="$bin/out" \
        "$@" "$prog"
}

record "msgrec C np=3: every wrapped call, recorded bytes = sent bytes" msgrec 3 "$bin/test_msgrec"
# codecbench --files reads what was recorded and round-trips every message through every codec.
codecbench=${BUILD_DIR:-$top}/perftest/codecbench/codecbench
if [ -x "$codecbench" ] && [ -d "$bin/out" ]; then
    recorded=$(cat "$bin/out"/rank*.idx | grep -cv '^#')
    "$codecbench" --files "$bin/out" --min-time 0.0001 --repeats 1 >"$bin/out.log" 2>&1 &&
        grep -q "^== out: 3 ranks; $recorded messages .* measured of $recorded recorded" \
            "$bin/out.log" && grep -q "^  f64    fast " "$bin/out.log" &&
        grep -q "^  i64    fast " "$bin/out.log" && grep -q "^  bytes  fast " "$bin/out.log"
    report "codecbench --files measures the $recorded recorded messages, every round trip exact" \
        $? "$bin/out.log"
else
    echo "SKIP: codecbench --files (no codecbench built at $codecbench)"
fi
record "msgrec C np=4: skip, every, byte budget and minimum size" msgrec 4 "$bin/test_msgrec" \
    -x MSGREC_SKIP=1 -x MSGREC_EVERY=3 -x MSGREC_MAX_BYTES=30000 -x MSGREC_MIN_BYTES=5000
if [ $have_fortran = 1 ]; then
    record "msgrec Fortran np=3: use mpi calls, MPI_IN_PLACE" msgrec_fortran 3 "$bin/test_msgrec_f"
else
    echo "SKIP: msgrec Fortran (no mpif90)"
fi

# The check can fail: without the recorder there are no files, and the test must say so.
rm -rf "$bin/out"
mpirun_logged -np 3 --oversubscribe -x MSGREC_DIR="$bin/out" "$bin/test_msgrec"
rc=$?
[ $rc != 0 ] && grep -q "FAIL: msgrec rank [0-9]*: no index" "$bin/out.log"
report "msgrec C without the recorder fails its check" $? "$bin/out.log"

finish_runner
