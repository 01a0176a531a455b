#!/usr/bin/env bash
# pml/zip under AddressSanitizer and UBSan: the sanitized component (a --enable-sanitizers
# build) in front of ob1 and ucx, with the sanitizer runtimes preloaded into the MPI processes,
# running the programs that stress zip's own memory: probed messages never received and then
# MPI_Finalize (issue: a heap-use-after-free of the stash at finalize), every p2p_semantics
# case (also under MPI_THREAD_MULTIPLE), p2p_threads, and every p2p_temporal case with
# pml_zip_temporal auto (streams, parked payloads, matched probes' fetches). A sanitizer report fails the run even when the program itself passes.
#
# Usage: run-p2p-asan.sh <dir of the sanitized mca_pml_zip.so>
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
pmldir=${1:?usage: run-p2p-asan.sh <dir of the sanitized mca_pml_zip.so>}
ompidir=$(ompi_component_dir)
limit=${ZIP_TEST_TIMEOUT:-120}
require_component "$pmldir/mca_pml_zip.so" "no sanitized mca_pml_zip.so in $pmldir"
start_runner p2p-asan

preload="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
datalib=$(ls "${BUILD_DIR:-$top/build}"/perftest/data/.libs/libzipdata.a 2>/dev/null)
for t in probe_finalize semantics temporal threads persistent osc soak; do
    if ! mpicc -O1 -g -Wall -Wextra -pthread -I"$top/perftest/data" -o "$bin/p2p_$t" \
        "$here/p2p_$t.c" $datalib -lstdc++ -lm 2>"$bin/cc.log"; then
        report "build p2p_$t" 1 "$bin/cc.log"
    fi
done

ucx_opts="--mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self,sm"
# Open MPI itself leaks at exit: leaks are not what this looks for.
common="-np 2 -x LD_PRELOAD=$preload -x ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
    -x UBSAN_OPTIONS=print_stacktrace=1 --mca mca_base_component_path $pmldir:$ompidir
    --mca pml_zip_enable 1 --mca pml_zip_force_local 1 --mca pml_zip_policy always"
for pml in ob1 ucx; do
    opts="--mca pml $pml,zip"
    [ $pml = ucx ] && opts="$opts $ucx_opts"
    # shellcheck disable=SC2086
    run_clean "asan: p2p_probe_finalize pml=$pml+zip" p2p_probe_finalize $common $opts \
        "$bin/p2p_probe_finalize"
    # shellcheck disable=SC2086
    run_clean "asan: p2p_semantics pml=$pml+zip" "p2p_semantics (" $common $opts \
        -x PT_CASE_SECONDS=30 "$bin/p2p_semantics"
    # Threaded direct receives: records released by whichever thread ends last.
    # shellcheck disable=SC2086
    run_clean "asan: p2p_threads pml=$pml+zip" "p2p_threads" $common $opts "$bin/p2p_threads"
    # Every message an envelope into one shared buffer: threaded receives completed before zip's
    # callback was on (over ucx: found after the fence) go on with their payloads.
    # shellcheck disable=SC2086
    run_clean "asan: p2p_threads shared_buffer pml=$pml+zip bare_max=0" "p2p_threads shared" \
        $common $opts --mca pml_zip_threshold 1 --mca pml_zip_bare_max 0 "$bin/p2p_threads" \
        shared_buffer
    # shellcheck disable=SC2086
    run_clean "asan: p2p_semantics pml=$pml+zip MPI_THREAD_MULTIPLE" "p2p_semantics (" $common \
        $opts -x OMPI_MPI_THREAD_LEVEL=3 -x PT_CASE_SECONDS=30 "$bin/p2p_semantics"
    # Direct persistent requests: records found by their request, freed while active, served
    # through zip requests beside probed messages and under osc/pt2pt's own callbacks.
    # shellcheck disable=SC2086
    run_clean "asan: p2p_persistent pml=$pml+zip" "p2p_persistent (" $common $opts \
        "$bin/p2p_persistent"
    # Under MPI_THREAD_MULTIPLE: over ob1 direct too, each start's completion racing the free.
    # shellcheck disable=SC2086
    run_clean "asan: p2p_persistent pml=$pml+zip MPI_THREAD_MULTIPLE" "p2p_persistent (" \
        $common $opts -x OMPI_MPI_THREAD_LEVEL=3 "$bin/p2p_persistent"
    for k in get8 accumulate; do
        [ -e "$ompidir/mca_osc_pt2pt.so" ] || continue
        # shellcheck disable=SC2086
        run_clean "asan: p2p_osc $k pml=$pml+zip osc=pt2pt" "p2p_osc (" \
            $common $opts --mca osc pt2pt "$bin/p2p_osc" $k
    done
    # shellcheck disable=SC2086
    run_clean "asan: p2p_temporal pml=$pml+zip temporal=auto" "p2p_temporal (" $common $opts \
        --mca pml_zip_temporal auto --mca pml_zip_threshold 2048 "$bin/p2p_temporal"
    # The randomized soak: every send mode against every receive and probe, wildcards,
    # derived types, larger buffers, every message an envelope.
    # shellcheck disable=SC2086
    run_clean "asan: p2p_soak pml=$pml+zip threshold=1024 bare_max=0" "p2p_soak (" $common \
        $opts --mca pml_zip_threshold 1024 --mca pml_zip_bare_max 0 "$bin/p2p_soak" --seed 51
    # And three soaks at once per rank (MPI_THREAD_MULTIPLE), each on its own communicators.
    # shellcheck disable=SC2086
    run_clean "asan: p2p_soak pml=$pml+zip threshold=1024 threads=3" "p2p_soak (" $common \
        $opts --mca pml_zip_threshold 1024 "$bin/p2p_soak" --seed 52 --threads 3 --steps 40
done
finish_runner
