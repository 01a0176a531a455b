#!/usr/bin/env bash
# coll/zip integration tests under mpirun: every test with 2, 3, 4 and 8 ranks (oversubscribed),
# zip off (stock Open MPI) and on (priority 40, force_local so it compresses on one node), one
# run over pml/ucx, and the checks of the user-facing messages. One line per run:
# "PASS: name" or "FAIL: name"; exit status is the number of failures (capped at 100).
#
# Usage: run-mpi-tests.sh [component dir]
#   component dir: directory holding mca_coll_zip.so (default: $ZIP_COMPONENT_DIR, else
#   $BUILD_DIR/ompi-coll-zip/.libs, else the libtool output in this source tree).
set -u
here=$(cd "$(dirname "$0")" && pwd)
zipdir=${1:-${ZIP_COMPONENT_DIR:-${BUILD_DIR:-$here/../..}/ompi-coll-zip/.libs}}
ompidir=${OMPI_COMPONENT_DIR:-$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')}
ranks=${ZIP_TEST_RANKS:-"2 3 4 8"}
limit=${ZIP_TEST_TIMEOUT:-60}

if [ ! -f "$ompidir/mca_coll_basic.so" ]; then
    echo "FAIL: setup (no Open MPI component directory; set OMPI_COMPONENT_DIR)"
    exit 1
fi
if [ ! -f "$zipdir/mca_coll_zip.so" ]; then
    echo "FAIL: setup (no mca_coll_zip.so in $zipdir)"
    exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

failures=0
report() { # name status [log]
    if [ "$2" = 0 ]; then
        echo "PASS: $1"
    else
        echo "FAIL: $1"
        [ -n "${3:-}" ] && sed 's/^/    /' "$3" | tail -15
        failures=$((failures + 1))
    fi
}

tests="bcast alltoallv gatherv comm_cycles threads"
for t in $tests lossy pvars large_block; do
    if ! mpicc -O2 -Wall -Wextra -pthread -o "$bin/test_$t" "$here/test_$t.c" -lm 2>"$bin/cc.log"; then
        report "build test_$t" 1 "$bin/cc.log"
    fi
done

path="--mca mca_base_component_path $zipdir:$ompidir"
zip_on="$path --mca coll_zip_priority 40 --mca coll_zip_force_local 1"
zip_off="$path --mca coll_zip_priority 0"

run() { # name expected-line mpirun-args...
    local name=$1 expect=$2
    shift 2
    timeout "$limit" mpirun "$@" >"$bin/out.log" 2>&1
    local rc=$?
    if [ $rc = 0 ] && grep -q "^PASS: $expect" "$bin/out.log"; then
        report "$name" 0
    elif grep -q "^SKIP: $expect" "$bin/out.log"; then
        echo "SKIP: $name"
    else
        echo "    (exit $rc)" >>"$bin/out.log"
        report "$name" 1 "$bin/out.log"
    fi
}

for np in $ranks; do
    for t in $tests; do
        [ -x "$bin/test_$t" ] || continue
        run "$t np=$np zip=off" "$t" -np "$np" --oversubscribe $zip_off "$bin/test_$t"
        run "$t np=$np zip=on" "$t" -np "$np" --oversubscribe $zip_on "$bin/test_$t"
    done
done

# Small segments and a low threshold push every path (many segments, chain topology, many
# compressed blocks) with the same data.
run "bcast np=4 zip=on small-segments" bcast -np 4 --oversubscribe $zip_on \
    --mca coll_zip_segment_size 4096 --mca coll_zip_threshold 1024 "$bin/test_bcast"
run "alltoallv np=3 zip=on threshold=64" alltoallv -np 3 --oversubscribe $zip_on \
    --mca coll_zip_threshold 64 "$bin/test_alltoallv"
# Blocks of more than INT_MAX bytes (skipped without 6 GiB of free memory): ~25 s.
limit=240 run "large_block np=2 zip=on" large_block -np 2 $zip_on "$bin/test_large_block"
# A threshold above every block: all of them move plainly, none through the compressed path.
for t in alltoallv gatherv; do
    run "$t np=3 zip=on all-blocks-plain" "$t" -np 3 --oversubscribe $zip_on \
        --mca coll_zip_threshold 1000000000 "$bin/test_$t"
done
for codec in fpc dfcm xorlz lz4 zstd raw; do
    run "bcast np=3 zip=on codec=$codec" bcast -np 3 --oversubscribe $zip_on \
        --mca coll_zip_codec $codec "$bin/test_bcast"
done

# Lossy mode only where asked for, and then within its bound (integers untouched).
for np in 3 4; do
    run "lossy np=$np zip=on lossy=rel:1e-4" lossy -np "$np" --oversubscribe $zip_on \
        --mca coll_zip_lossy rel:1e-4 "$bin/test_lossy"
done

# The counters as MPI_T performance variables.
run "pvars np=3 zip=on" pvars -np 3 --oversubscribe $zip_on "$bin/test_pvars"

# pml/ucx (Debian's openmpi-mca-params.conf excludes it unless asked for).
ucx="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self,sm"
for t in bcast alltoallv gatherv; do
    run "$t np=4 zip=on pml=ucx" "$t" -np 4 --oversubscribe $zip_on $ucx "$bin/test_$t"
done

# Zip must actually have compressed something when on: the stats summary says so.
timeout "$limit" mpirun -np 3 --oversubscribe $zip_on --mca coll_zip_stats 1 "$bin/test_bcast" \
    >"$bin/out.log" 2>&1
awk '/coll:zip +bcast/ { if ($5 > 0 && $7 > 0 && $8 < $7) ok = 1 } END { exit !ok }' "$bin/out.log"
report "stats summary shows compressed bcast" $? "$bin/out.log"

# Every module zip enables over 300 communicator create/free cycles is released again.
timeout "$limit" mpirun -np 4 --oversubscribe $zip_on --mca coll_zip_verbose 10 \
    "$bin/test_comm_cycles" >"$bin/out.log" 2>&1
enabled=$(grep -c "coll:zip: enabled on" "$bin/out.log")
released=$(grep -c "coll:zip: module released" "$bin/out.log")
echo "    modules enabled $enabled, released $released" >>"$bin/out.log"
[ "$enabled" -gt 1000 ] && [ "$enabled" = "$released" ]
report "comm_cycles releases every module ($enabled/$released)" $? "$bin/out.log"

# "--mca coll zip" cannot work (it removes the components zip delegates to): it must stop
# with a message that names the right option.
timeout "$limit" mpirun -np 2 $path --mca coll zip "$bin/test_bcast" >"$bin/out.log" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "coll_zip_priority 40" "$bin/out.log"
report "--mca coll zip stops with a hint" $? "$bin/out.log"

# Every parameter is visible with help text.
OMPI_MCA_mca_base_component_path="$zipdir:$ompidir" ompi_info --param coll zip --level 9 \
    >"$bin/out.log" 2>&1
missing=0
for p in priority codec threshold lossy verbose stats force_local block_size segment_size alltoallv_window; do
    grep -q "\"coll_zip_$p\"" "$bin/out.log" || missing=1
done
report "ompi_info lists every coll_zip parameter" $missing "$bin/out.log"

echo "$failures failed"
[ $failures -gt 100 ] && failures=100
exit $failures
