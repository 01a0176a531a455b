#!/usr/bin/env bash
# issue12-goals.sh: the goal measurement of issue 12 (the rest of the collectives, blocking and
# non-blocking), meant for a quiet machine; the goals and how they are judged are in
# docs/performance.md ("Issue 12 goals"). Three parts, each against a baseline of the same run:
#   net       netemu, N ranks (8) at 1 Gbit/s, 1-4 MiB, smooth (gauss) and random data: every
#             new operation against its full best tuned (zipbench-sweep: every coll/tuned
#             algorithm and segment size, libnbc's algorithms for the non-blocking ones), with
#             zip-raw and an A/A control (default-again)
#   overlap   same network: Ialltoallv + computation + Wait against Alltoallv + computation, the
#             computation calibrated to stock Open MPI's blocking Alltoallv at each size and the
#             same for every job (--compute-iters)
#   fastlink  one node, shared memory, coll_zip_force_local 1 (zipbench-fastlink): zip against
#             stock, default / zip / default-again per round (--fast-in-job: the three in one
#             job, zipbench --ab)
# then perftest/issue12-goals-check judges them.
#
#   perftest/issue12-goals.sh [--build DIR] [--out DIR] [--rounds R] [--ranks N]
#       [--fast-ranks "4 8"] [--sizes LIST] [--ops LIST] [--smooth DS] [--budget S]
#       [--segsizes LIST] [--parts net,overlap,fastlink] [--fast-in-job] [--quick]
# --segsizes: the segment sizes of tuned's segmented algorithms (zipbench-sweep's; default
# 0,8k,16k,32k,64k,128k,256k). --quick: a check that the script works (1 round, 4 ranks, 1 MiB,
# alltoall, reduce, ialltoallv, segments 0 and 32k, budget 0.3 s), not a measurement. Needs root (netemu) and a built tree (--build, default
# ./build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=$top/build out=$top/build/issue12-goals rounds=3 ranks=8 fast_ranks="4 8"
sizes=1048576,2097152,4194304 smooth=gauss budget=1 parts=net,overlap,fastlink
segsizes=0,8k,16k,32k,64k,128k,256k fast_in_job=()
ops=alltoall,allgather,allgatherv,gather,scatter,scatterv,reduce,allreduce
ops+=,ibcast,iallreduce,ialltoall,ialltoallv,igather,igatherv,iallgather,iallgatherv,iscatter,iscatterv
while (($#)); do
    case $1 in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --fast-ranks) fast_ranks=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --ops) ops=$2; shift 2 ;;
        --smooth) smooth=$2; shift 2 ;;
        --budget) budget=$2; shift 2 ;;
        --parts) parts=$2; shift 2 ;;
        --segsizes) segsizes=$2; shift 2 ;;
        --fast-in-job) fast_in_job=(--in-job); shift ;;
        --quick) rounds=1 ranks=4 fast_ranks=4 sizes=1048576 ops=alltoall,reduce,ialltoallv
                 budget=0.3 segsizes=0,32k; shift ;;
        *) echo "issue12-goals: unknown option $1" >&2; exit 2 ;;
    esac
done
zipbench=$build/perftest/zipbench
[[ -x $zipbench && -f $build/ompi-coll-zip/.libs/mca_coll_zip.so ]] ||
    { echo "issue12-goals: no zipbench or mca_coll_zip.so under $build (build first)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A network of our own, so that another netemu user on the host is neither refused nor torn down.
export NETEMU_STATE=${NETEMU_STATE:-/run/netemu-issue12} NETEMU_PREFIX=${NETEMU_PREFIX:-i12}
mkdir -p "$out"
# Copies of the binaries measured: a rebuild during the hours of a run cannot change or break
# them. Open MPI dlopens every file of a component directory; one with just the DSO is quiet.
mkdir -p "$out/mca" "$out/bin"
cp "$build/ompi-coll-zip/.libs/mca_coll_zip.so" "$out/mca/"
cp "$zipbench" "$out/bin/zipbench"
zipbench=$out/bin/zipbench
has() { [[ ,$parts, == *,$1,* ]]; }
log() { echo "== issue12-goals $(date -u +%T): $*" >&2; }

if has net || has overlap; then
    "$here/netemu" up --ranks "$ranks" --rate 1gbit
    trap '"$here/netemu" down' EXIT
    trap 'exit 130' INT TERM
    "$here/netemu" check | tee "$out/network-check.txt"
fi

if has net; then
    log "net: $ops, $ranks ranks at 1gbit, $sizes, $smooth and random, $rounds round(s)"
    rm -rf "$out/net"
    # Tuned does not look at the bytes: its configurations run on the random data set only and
    # serve as the baseline of both (zipbench-merge pools them).
    "$here/zipbench-sweep" --zipbench "$zipbench" --zip-dir "$out/mca" --out "$out/net" \
        --rounds "$rounds" --ops "$ops" --datasets "$smooth,random" --tuned-datasets random \
        --segsizes "$segsizes" \
        --control -- --sizes "$sizes" --budget "$budget" || log "net: some jobs failed (see $out/net/sweep.log)"
    "$here/zipbench-merge" "$out/net/raw.csv" "$out/net" >"$out/net/summary.txt"
fi

if has overlap; then
    rm -rf "$out/overlap"
    for s in ${sizes//,/ }; do
        # The computation: about stock Open MPI's blocking Alltoallv at this size.
        b=$("$here/netemu" run -- "$zipbench" --ops alltoallv --datasets "$smooth" --sizes "$s" \
            --budget "$budget" | awk '$1 == "alltoallv" { print $5 }')
        iters=$("$here/netemu" run -- "$zipbench" --ops compute --datasets "$smooth" --sizes "$s" \
            --compute-us "$b" --min-reps 1 --max-reps 1 --warmup 0 |
            sed -n 's/^# compute iters=\([0-9]*\).*/\1/p')
        [[ -n $b && -n $iters ]] || { log "overlap: calibration at $s bytes failed"; exit 1; }
        log "overlap: $s bytes: stock alltoallv $b us, computation $iters iterations"
        echo "$s,$b,$iters" >>"$out/overlap-calibration.csv"
        "$here/zipbench-sweep" --zipbench "$zipbench" --zip-dir "$out/mca" --out "$out/overlap" \
            --rounds "$rounds" --ops alltoallv+compute,ialltoallv+compute,compute \
            --datasets "$smooth,random" --no-zip-raw --control -- --sizes "$s" \
            --budget "$budget" --compute-iters "$iters" || log "overlap: some jobs failed"
    done
    "$here/zipbench-merge" "$out/overlap/raw.csv" "$out/overlap" >"$out/overlap/summary.txt"
fi

if has net || has overlap; then
    "$here/netemu" down
    trap - EXIT INT TERM
fi

if has fastlink; then
    log "fastlink: shared memory, force_local, ranks $fast_ranks"
    mkdir -p "$out/fastlink"
    "$here/zipbench-fastlink" --rounds "$rounds" --ranks "$fast_ranks" --sizes "$sizes" \
        --budget "$budget" --ops "$ops" --datasets "$smooth,random" --build "$build" \
        --zipbench "$zipbench" --coll-dir "$out/mca" \
        --out "$out/fastlink" "${fast_in_job[@]}" >"$out/fastlink/summary.csv" 2>"$out/fastlink.log" ||
        log "fastlink: failed (see $out/fastlink.log)"
fi

"$here/issue12-goals-check" --smooth "$smooth" "$out" | tee "$out/goals.txt"
