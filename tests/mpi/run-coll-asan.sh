#!/usr/bin/env bash
# coll/zip under AddressSanitizer and UBSan: the sanitized component (a --enable-sanitizers
# build) with the sanitizer runtimes preloaded into the MPI processes, running the programs that
# reach most of its C glue and algorithms: the randomized soak (every collective zip takes,
# blocking and in flight together, derived datatypes, MPI_IN_PLACE, splits; also threaded and
# under auto), alltoallw's subarray and strided blocks, reduce-scatter, scans, the neighbourhood
# calls, corrupted frames, the buffer cache off, inter-communicators, the agreement started as a
# communicator is made. A sanitizer report fails
# the run even when the program itself passes.
#
# Usage: run-coll-asan.sh <dir of the sanitized mca_coll_zip.so>
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
zipdir=${1:?usage: run-coll-asan.sh <dir of the sanitized mca_coll_zip.so>}
ompidir=$(ompi_component_dir)
limit=${ZIP_TEST_TIMEOUT:-180}
require_component "$zipdir/mca_coll_zip.so" "no sanitized mca_coll_zip.so in $zipdir"
start_runner coll-asan

for t in soak alltoallw reduce_scatter scan topo_persistent corruption buffer_cache intercomm \
    nb_created; do
    if ! mpicc -O1 -g -Wall -Wextra -pthread -o "$bin/test_$t" "$here/test_$t.c" -lm \
        2>"$bin/cc.log"; then
        report "build test_$t" 1 "$bin/cc.log"
    fi
done

preload="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
# Open MPI itself leaks at exit: leaks are not what this looks for.
san="-x LD_PRELOAD=$preload -x ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
    -x UBSAN_OPTIONS=print_stacktrace=1 --oversubscribe
    --mca mca_base_component_path $zipdir:$ompidir --mca coll_zip_priority 40
    --mca coll_zip_force_local 1"
always="--mca coll_zip_policy always --mca coll_zip_threshold 1024"


# shellcheck disable=SC2086
{
    # The sanitized component must take the calls, or every run below proves nothing.
    run_clean "asan: soak np=3 zip=on seed=40 (zip compressed)" "soak (" -np 3 $san $always \
        --mca coll_zip_stats 1 "$bin/test_soak" --seed 40 --steps 60
    # Calls compressed, summed over the collectives' rows of the summary (which ones the seed
    # draws changes with the soak's list).
    compressed=$(awk '/coll:zip stats \(sum over all/ { s = 1 }
        s && $2 == "coll:zip" && $4 ~ /^[0-9]+$/ { n += $6 } END { print n + 0 }' "$bin/out.log")
    [ "${compressed:-0}" -gt 0 ]
    report "asan: the sanitized coll/zip compressed calls (${compressed:-none})" $? "$bin/out.log"
    for spec in 2:41 3:42 4:43; do
        np=${spec%%:*} seed=${spec#*:}
        run_clean "asan: soak np=$np zip=on seed=$seed" "soak (" -np "$np" $san $always \
            "$bin/test_soak" --seed "$seed" --steps 60 --inplace-ialltoallv 1
    done
    run_clean "asan: soak np=3 threads=2 zip=on seed=44" "soak (" -np 3 $san $always \
        "$bin/test_soak" --seed 44 --threads 2 --steps 40 --inplace-ialltoallv 1
    run_clean "asan: soak np=4 zip=auto link=1gbit seed=45" "soak (" -np 4 $san \
        --mca coll_zip_threshold 1024 --mca coll_zip_link_gbps_remote 1 "$bin/test_soak" \
        --seed 45 --steps 60 --inplace-ialltoallv 1
    run_clean "asan: soak np=3 zip=on codec_threads=2 seed=46" "soak (" -np 3 --bind-to none \
        $san $always --mca coll_zip_codec_threads 2 "$bin/test_soak" --seed 46 --steps 40 \
        --max-block 1048576
    for np in 3 4; do
        run_clean "asan: alltoallw np=$np zip=on" alltoallw -np "$np" $san $always \
            "$bin/test_alltoallw"
        run_clean "asan: reduce_scatter np=$np zip=on" reduce_scatter -np "$np" $san $always \
            -x ZT_ZIP_RING=16384 "$bin/test_reduce_scatter"
        run_clean "asan: scan np=$np zip=on" scan -np "$np" $san $always "$bin/test_scan"
        run_clean "asan: topo_persistent np=$np zip=on" topo_persistent -np "$np" $san $always \
            "$bin/test_topo_persistent"
    done
    run_clean "asan: corruption np=3 zip=on every frame corrupted" corruption -np 3 $san \
        $always --mca coll_zip_inject_corruption 1 "$bin/test_corruption"
    run_clean "asan: buffer_cache np=3 zip=on buffer_cache=0" buffer_cache -np 3 $san $always \
        --mca coll_zip_buffer_cache 0 "$bin/test_buffer_cache" --limit 0 --require-zip
    run_clean "asan: intercomm np=4 zip=on" intercomm -np 4 $san $always "$bin/test_intercomm"
    # The agreement started as each communicator is made: taken by a first call, completed in
    # MPI_Comm_free, and at MPI_Finalize.
    run_clean "asan: nb_created np=3 zip=auto link=1gbit" nb_created -np 3 $san \
        --mca coll_zip_link_gbps_remote 1 "$bin/test_nb_created"
}
finish_runner
