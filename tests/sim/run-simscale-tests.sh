#!/usr/bin/env bash
# Checks of perftest/simscale (docs/scale.md) that can fail: the simulated network moves bytes
# at the link's rate plus its latency, compression pays by the ratio where the link is the
# bottleneck and never where the data does not shrink, the policy hands calls on where the
# link is faster than the codec, and 64-rank calls of every operation run and write sane CSV.
# Prints one "PASS: name" or "FAIL: name" line per check (scripts/test.sh counts them).
# BUILD_DIR: the build tree (default: build/ next to this script's tree).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../mpi/lib.sh
. "$top/tests/mpi/lib.sh" # start_runner, report, finish_runner
sim="${BUILD_DIR:-$top/build}/perftest/simscale"
require_component "$sim" "no $sim: configure did not find SimGrid; scripts/install-deps.sh installs libsimgrid-dev"
start_runner simscale-tests
work=$bin

# A codec table with round numbers: "smooth" shrinks 2x at 1 GB/s in and 2 GB/s out, "noise"
# does not shrink; memcpy moves 10 GB/s.
cat > "$work/codecs.csv" <<'CSV'
codec,dataset,size_bytes,ratio,compress_GBps,decompress_GBps
memcpy,smooth,4096,1.0,10.0,10.0
memcpy,smooth,16777216,1.0,10.0,10.0
fast,smooth,4096,2.0,1.0,2.0
fast,smooth,16777216,2.0,1.0,2.0
memcpy,noise,4096,1.0,10.0,10.0
memcpy,noise,16777216,1.0,10.0,10.0
fast,noise,4096,0.999,4.0,8.0
fast,noise,16777216,0.999,4.0,8.0
CSV

simulate() { # log csv simscale-args...
    local log=$1 csv=$2
    shift 2
    timeout 300 "$sim" --codec-csv "$work/codecs.csv" --calibrate-on smooth --csv "$csv" "$@" \
        > "$log" 2>&1
}

# predicted_us of one mode of the last rows in a CSV.
value() { # csv op dataset mode
    awk -F, -v op="$2" -v ds="$3" -v mode="$4" \
        '$1 == op && $2 == ds && $7 == mode { v = $8 } END { print v }' "$1"
}

# Passes when the python expression over the named values holds.
holds() { # expression name=value...
    local expr=$1
    shift
    python3 - "$expr" "$@" <<'PY'
import sys
expr, pairs = sys.argv[1], sys.argv[2:]
env = {k: float(v) for k, v in (p.split("=", 1) for p in pairs)}
sys.exit(0 if eval(expr, {}, env) else 1)
PY
}

B=4194304

# 1. One 4 MiB message between two nodes at 1 Gbit/s with 10 us latency: B / 125e6 s plus the
# latency (tuned's unsegmented binomial bcast is that one message); zip-raw's 48 KiB segments
# stream through the same link within 1 %.
log=$work/raw2.log csv=$work/raw2.csv
simulate "$log" "$csv" --op bcast --ranks 2 --bytes $B --link 1gbit --latency 10us \
    --dataset noise --detail --exhaustive
rc=$?
one=$(value "$csv" bcast noise baseline:binomial)
raw=$(value "$csv" bcast noise zip-raw)
[ $rc = 0 ] && holds "abs(one - (B / 125e6 + 10e-6) * 1e6) < 0.5 and abs(raw / one - 1) < 0.01" \
    one="${one:-0}" raw="${raw:-0}" B=$B
report "raw bcast of 4 MiB between 2 nodes at 1 Gbit/s takes B/125e6 s plus the latency" $? "$log"

# 2. Data that does not shrink: zip is never faster than zip's own algorithms without
# compression (it only adds the sample's codec time), for every operation. An allgather(v)'s
# first call is the one that compresses (a later one weighs the ratio it saw: test 3g).
for op in bcast alltoallv gatherv reduce allreduce allgatherv alltoall allgather scatterv scatter \
    neighbor_alltoall neighbor_alltoall3d scan; do
    log=$work/noise-$op.log csv=$work/noise-$op.csv
    simulate "$log" "$csv" --op $op --ranks 8 --bytes $B --link 1gbit --latency 10us \
        --dataset noise
    rc=$?
    zip=$(value "$csv" $op noise zip)
    case $op in allgather*) zip=$(awk '$1 == "zip" && $2 == "first" { print $3 }' "$log") ;; esac
    raw=$(value "$csv" $op noise zip-raw)
    [ $rc = 0 ] && grep -q "route compressed" "$log" &&
        holds "zip >= raw * 0.9999 and zip <= raw * 1.05" zip="${zip:-0}" raw="${raw:-1}"
    report "$op of incompressible data on 8 ranks: zip never beats zip-raw" $? "$log"
done

# 3. Data that shrinks 2x over a link 8x slower than the codec: the wire is the bottleneck of
# zip's pipeline, so a 2-rank bcast takes about half the raw time (plus one segment's coding).
log=$work/smooth2.log csv=$work/smooth2.csv
simulate "$log" "$csv" --op bcast --ranks 2 --bytes $B --link 1gbit --latency 10us \
    --dataset smooth
rc=$?
zip=$(value "$csv" bcast smooth zip)
[ $rc = 0 ] && grep -q "wire ratio 2.000" "$log" &&
    holds "B / 2 / 125e6 * 1e6 < zip < B / 2 / 125e6 * 1e6 * 1.02" zip="${zip:-0}" B=$B
report "bcast of 2x-compressible data between 2 nodes at 1 Gbit/s takes half the raw time" $? "$log"

# 3b. Reduce of data that shrinks 2x on 8 ranks at 1 Gbit/s: zip's chain carries each segment
# compressed through every hop, so it beats the best of tuned's reduce algorithms (pipeline,
# chain, binomial with 8-256 KiB segments, rabenseifner) by most of the ratio.
log=$work/reduce-smooth.log csv=$work/reduce-smooth.csv
simulate "$log" "$csv" --op reduce --ranks 8 --bytes $B --link 1gbit --latency 10us \
    --dataset smooth --detail
rc=$?
zip=$(value "$csv" reduce smooth zip)
best=$(value "$csv" reduce smooth best-baseline)
[ $rc = 0 ] && grep -q "route compressed" "$log" && grep -q "baseline:rabenseifner" "$log" &&
    grep -q "baseline:pipeline-8k" "$log" && holds "zip * 1.6 < best" zip="${zip:-1}" best="${best:-0}"
report "reduce of 2x-compressible data on 8 ranks at 1 Gbit/s: zip's chain beats tuned's best by 1.6x" \
    $? "$log"

# 3b'. Scan of the same data: Open MPI's scans move the whole message per step (linear: p - 1
# in turn; recursive doubling: log2 p both ways), zip's chain moves it about once per link,
# compressed, so it beats the better of them by more than the pipeline alone (zip-raw).
log=$work/scan-smooth.log csv=$work/scan-smooth.csv
simulate "$log" "$csv" --op scan --ranks 8 --bytes $B --link 1gbit --latency 10us \
    --dataset smooth --detail
rc=$?
zip=$(value "$csv" scan smooth zip)
raw=$(value "$csv" scan smooth zip-raw)
best=$(value "$csv" scan smooth best-baseline)
[ $rc = 0 ] && grep -q "route compressed" "$log" && grep -q "baseline:linear" "$log" &&
    grep -q "baseline:recursive-doubling" "$log" &&
    holds "zip * 1.5 < raw and raw * 2 < best" zip="${zip:-1}" raw="${raw:-1}" best="${best:-0}"
report "scan of 2x-compressible data on 8 ranks at 1 Gbit/s: the chain beats tuned's best 2x raw, compression 1.5x more" \
    $? "$log"

# 3c. Allreduce of data that shrinks 2x on 8 ranks at 1 Gbit/s: zip's ring beats the best of
# tuned's allreduce algorithms (ring, rabenseifner, recursive doubling, reduce + bcast); on 64
# ranks at 30 us its 126 latencies would cost more than 1/32 of its wire time, and recursive
# halving takes the call (2 log2 p latencies), unless the TCP BTL serialises the pairs'
# exchanges (--tcp-btl-pairs), where the call goes to the previous component.
log=$work/allreduce-smooth.log csv=$work/allreduce-smooth.csv
simulate "$log" "$csv" --op allreduce --ranks 8 --bytes $B --link 1gbit --latency 10us \
    --dataset smooth --detail
rc=$?
zip=$(value "$csv" allreduce smooth zip)
best=$(value "$csv" allreduce smooth best-baseline)
[ $rc = 0 ] && grep -q "route compressed" "$log" && grep -q "baseline:rabenseifner" "$log" &&
    grep -q "baseline:recursive-doubling" "$log" && grep -q "baseline:reduce-bcast-pipeline-8k" "$log" &&
    holds "zip * 1.5 < best" zip="${zip:-1}" best="${best:-0}"
report "allreduce of 2x-compressible data on 8 ranks at 1 Gbit/s: zip's ring beats tuned's best by 1.5x" \
    $? "$log"
log=$work/allreduce-64.log csv=$work/allreduce-64.csv
simulate "$log" "$csv" --op allreduce --ranks 64 --bytes $B --link 1gbit --latency 30us \
    --dataset smooth --modes best-baseline,zip
rc=$?
zip=$(value "$csv" allreduce smooth zip)
best=$(value "$csv" allreduce smooth best-baseline)
[ $rc = 0 ] && grep -q "route compressed" "$log" && holds "zip * 1.4 < best" zip="${zip:-1}" \
    best="${best:-0}"
report "allreduce on 64 ranks at 30 us: recursive halving beats tuned's best by 1.4x" $? "$log"
log=$work/allreduce-64-tcp.log csv=$work/allreduce-64-tcp.csv
simulate "$log" "$csv" --op allreduce --ranks 64 --bytes $B --link 1gbit --latency 30us \
    --dataset smooth --modes best-baseline,zip --tcp-btl-pairs
rc=$?
zip=$(value "$csv" allreduce smooth zip)
best=$(value "$csv" allreduce smooth best-baseline)
[ $rc = 0 ] && grep -q "route too_small" "$log" && [ -n "$zip" ] && [ "$zip" = "$best" ]
report "allreduce on 64 ranks at 30 us over the TCP BTL: no halving, the call is handed on" $? \
    "$log"

# sim64 NAME OP BYTES: OP of smooth data on 64 ranks at 1 Gbit/s and 30 us, in $work/NAME.log
# and .csv; sets rc, log, and zip, best and raw (the modes' predicted us).
sim64() {
    log=$work/$1.log
    simulate "$log" "$work/$1.csv" --op "$2" --ranks 64 --bytes "$3" --link 1gbit --latency 30us \
        --dataset smooth
    rc=$?
    zip=$(value "$work/$1.csv" "$2" smooth zip)
    best=$(value "$work/$1.csv" "$2" smooth best-baseline)
    raw=$(value "$work/$1.csv" "$2" smooth zip-raw)
}

# 3d. Allgatherv of 64 KiB blocks on 64 ranks at 1 Gbit/s and 30 us: the ring's 63 latencies
# cost more than its wire time allows, Bruck's 6 do not: zip runs Bruck's steps, about half
# tuned's best time on 2x data. (zip-raw, which agrees no link rate, runs the ring: slower than
# tuned's best.)
sim64 allgatherv-64 allgatherv 65536
[ $rc = 0 ] && grep -q "route compressed" "$log" &&
    holds "zip < best * 0.55 and raw > best * 1.1" zip="${zip:-1e9}" raw="${raw:-0}" \
        best="${best:-0}"
report "allgatherv of small blocks on 64 ranks at 30 us: Bruck instead of the ring" $? "$log"
# Over the TCP BTL (--tcp-btl-pairs) Bruck's last step, half the data between pairs, counts
# twice, as do tuned's recursive doubling's steps: zip runs its ring, compressed, ahead of
# tuned's best (its ring).
log=$work/allgatherv-64-tcp.log csv=$work/allgatherv-64-tcp.csv
simulate "$log" "$csv" --op allgatherv --ranks 64 --bytes 65536 --link 1gbit --latency 30us \
    --dataset smooth --modes best-baseline,zip --tcp-btl-pairs
rc=$?
zip=$(value "$csv" allgatherv smooth zip)
best=$(value "$csv" allgatherv smooth best-baseline)
[ $rc = 0 ] && grep -q "route compressed" "$log" &&
    holds "zip < best * 0.6" zip="${zip:-1e9}" best="${best:-0}"
report "allgatherv of small blocks on 64 ranks over the TCP BTL: the ring, compressed" $? "$log"
# 16 KiB blocks on 64 ranks at 1 Gbit/s: Bruck's steps, a few messages each, compressed and
# ahead of tuned's best (handed on while Bruck sent a message per block: each block carried
# less than 8 latencies of wire time). In nodes of 32, where tuned's neighbor exchange pays a
# quarter of the ring's latencies, zip's ring, raw, is 16 % slower: the first call goes to see
# what the data do (a ratio of 1.5 would win); this codec's 2x keeps the ring compressed, 1.34x
# faster, where incompressible data lose once and the calls after it are handed on.
log=$work/allgather-16k.log csv=$work/allgather-16k.csv
simulate "$log" "$csv" --op allgather --ranks 64 --bytes 16384 --link 1gbit --latency 30us \
    --dataset smooth --modes best-baseline,zip
rc=$?
zip=$(value "$csv" allgather smooth zip)
best=$(value "$csv" allgather smooth best-baseline)
[ $rc = 0 ] && grep -q "route compressed" "$log" &&
    holds "zip < best * 0.6" zip="${zip:-1e9}" best="${best:-0}"
report "allgather of 16 KiB blocks on 64 ranks at 1 Gbit/s: Bruck's steps, compressed" $? "$log"
log=$work/allgather-16k-nodes.log csv=$work/allgather-16k-nodes.csv
simulate "$log" "$csv" --op allgather --ranks 256 --ranks-per-node 32 --bytes 16384 \
    --link 1gbit --latency 30us --dataset smooth --modes best-baseline,zip
rc=$?
zip=$(value "$csv" allgather smooth zip)
best=$(value "$csv" allgather smooth best-baseline)
[ $rc = 0 ] && grep -q "saw ratio 2.000" "$log" && grep -q "baseline:neighbor-exchange" "$log" &&
    holds "zip < best * 0.8" zip="${zip:-1e9}" best="${best:-0}"
report "allgather of 16 KiB blocks of 2x data in nodes of 32: the ring, compressed, once seen" $? "$log"
log=$work/allgather-16k-nodes-noise.log csv=$work/allgather-16k-nodes-noise.csv
simulate "$log" "$csv" --op allgather --ranks 256 --ranks-per-node 32 --bytes 16384 \
    --link 1gbit --latency 30us --dataset noise --modes best-baseline,zip
rc=$?
zip=$(value "$csv" allgather noise zip)
best=$(value "$csv" allgather noise best-baseline)
first=$(awk '$1 == "zip" && $2 == "first" { print $3 }' "$log")
[ $rc = 0 ] && grep -q "saw ratio 1.000" "$log" && [ -n "$zip" ] && [ "$zip" = "$best" ] &&
    holds "best < first < best * 1.25" first="${first:-0}" best="${best:-0}"
report "allgather of 16 KiB incompressible blocks in nodes of 32: lost once, then handed on" $? "$log"

# 3e. Alltoall as coll_zip_alltoall.c: every rank knows the block size, so 4 KiB blocks (below
# coll_zip_threshold) hand the whole call on, and 64 KiB blocks of 2x data run alltoallv's
# algorithm at close to half tuned's best time (the links to the other 63 nodes carry half).
sim64 alltoall-64-small alltoall 262144
[ $rc = 0 ] && grep -q "route too_small" "$log" && [ -n "$zip" ] && [ "$zip" = "$best" ]
small=$?
report "alltoall of 4 KiB blocks on 64 ranks: every rank knows they are small, the call is handed on" \
    $small "$log"
sim64 alltoall-64-large alltoall 4194304
[ $rc = 0 ] && grep -q "route compressed" "$log" &&
    holds "1.8 < best / zip < 2.0" zip="${zip:-1}" best="${best:-0}"
report "alltoall of 64 KiB blocks of 2x data on 64 ranks: about half tuned's best time" $? "$log"

# 3f. Scatter of 1 MiB blocks of 2x data from one root to 63 nodes at 1 Gbit/s: the root's NIC
# carries every block, so zip (each block compressed once, sent while the next is coded) takes
# about half the time of tuned's best (linear, binomial or linear_nb).
sim64 scatter-64 scatter 1048576
[ $rc = 0 ] && grep -q "route compressed" "$log" &&
    holds "1.8 < best / zip < 2.05" zip="${zip:-1}" best="${best:-0}"
report "scatter of 1 MiB blocks of 2x data on 64 ranks: about half tuned's best time" $? "$log"

# 3h. A halo exchange on a 4 x 4 x 4 periodic grid (neighbor_alltoall3d): each rank sends a
# sixth of 1 MiB to each face neighbour, all at once as coll/basic does; on 2x data zip's
# exchange moves half the bytes through every NIC: about half coll/basic's time.
sim64 neighbor-64 neighbor_alltoall3d 1048576
[ $rc = 0 ] && grep -q "route compressed" "$log" && grep -q "baseline:basic" "$log" &&
    holds "1.6 < best / zip < 2.05 and 0.97 < best / raw < 1.03" zip="${zip:-1}" \
        best="${best:-0}" raw="${raw:-1}"
report "halo exchange of 2x data on a 4x4x4 grid at 1 Gbit/s: about half coll/basic's time" $? \
    "$log"

# 3g. Allgatherv of incompressible blocks of unequal sizes (n -/+ n/8) on 8 ranks at 1 Gbit/s:
# each of the ring's steps waits for a large block, where tuned's recursive doubling sends sums
# of neighbouring blocks. The communicator's first call, no ratio seen yet, runs zip's ring (10 %
# behind tuned's best); the next one weighs the ratio the first achieved, 1.000, and hands on.
log=$work/allgatherv-noise-seen.log csv=$work/allgatherv-noise-seen.csv
simulate "$log" "$csv" --op allgatherv --ranks 8 --bytes $B --link 1gbit --latency 10us \
    --dataset noise --modes best-baseline,zip
rc=$?
zip=$(value "$csv" allgatherv noise zip)
best=$(value "$csv" allgatherv noise best-baseline)
first=$(awk '$1 == "zip" && $2 == "first" { print $3 }' "$log")
[ $rc = 0 ] && grep -q "route compressed (no ratio seen yet); saw ratio 1.000" "$log" &&
    [ -n "$zip" ] && [ "$zip" = "$best" ] && holds "first > best * 1.05" first="${first:-0}" \
    best="${best:-1e9}"
report "allgatherv of unequal incompressible blocks: handed on once a call saw ratio 1" $? "$log"

# 4. A 400 Gbit/s link is faster than the 1-2 GB/s codec: the policy hands the call to the
# previous component (the best baseline), as in production.
log=$work/fast.log csv=$work/fast.csv
simulate "$log" "$csv" --op bcast --ranks 8 --bytes $B --link 400gbit --latency 2us \
    --dataset smooth
rc=$?
zip=$(value "$csv" bcast smooth zip)
best=$(value "$csv" bcast smooth best-baseline)
[ $rc = 0 ] && grep -q "route link_faster" "$log" && [ -n "$zip" ] && [ "$zip" = "$best" ]
report "bcast over 400 Gbit/s: the policy hands the call on (link faster than codec)" $? "$log"

# 4b. 32 ranks of a node probe their partners on the other node at once, each getting 1/32 of
# the NIC: the probe must report the NIC (10 Gbit/s, 1250 MB/s), not one rank's share (39 MB/s).
# Against the NIC, the 1 GB/s codec loses and the policy hands the bcast on; against the share
# it would compress.
log=$work/shared-nic.log csv=$work/shared-nic.csv
simulate "$log" "$csv" --op bcast --ranks 64 --ranks-per-node 32 --bytes $B --link 10gbit \
    --latency 2us --dataset smooth
rc=$?
remote=$(sed -n 's/.*agreed link MB\/s local [0-9]* remote \([0-9]*\),.*/\1/p' "$log")
[ $rc = 0 ] && grep -q "route link_faster" "$log" &&
    holds "1150 <= remote <= 1260" remote="${remote:-0}"
report "ranks sharing a NIC: the probe measures the NIC, and bcast at 10 Gbit/s goes raw" $? "$log"

# 4c. 256 ranks in nodes of 32, 256 KiB at 1 Gbit/s: fewer 8 KiB segments than ranks. The
# rule's 2 KiB segments (a binomial tree) lost to tuned's pipeline (0.93x); the cost model runs
# a chain of larger segments, whose 31 of 32 on-node hops cost about a microsecond (1.68x).
log=$work/few-segments.log csv=$work/few-segments.csv
simulate "$log" "$csv" --op bcast --ranks 256 --ranks-per-node 32 --bytes 262144 --link 1gbit \
    --latency 30us --dataset smooth --modes best-baseline,zip
rc=$?
zip=$(value "$csv" bcast smooth zip)
best=$(value "$csv" bcast smooth best-baseline)
[ $rc = 0 ] && grep -q "route compressed" "$log" &&
    holds "zip * 1.3 < best" zip="${zip:-0}" best="${best:-0}"
report "bcast in nodes of 32 with fewer segments than ranks: zip's chain beats tuned's best" $? "$log"

# 5. 64 ranks, 4 per node, every operation: the run succeeds and appends the header once and
# three rows per operation, each no faster than its busiest NIC allows.
csv=$work/ranks64.csv ok=0
for op in bcast alltoallv gatherv reduce allreduce allgatherv alltoall allgather scatterv scatter; do
    log=$work/r64-$op.log
    simulate "$log" "$csv" --op $op --ranks 64 --ranks-per-node 4 --bytes 1048576 \
        --link 10gbit --latency 2us --dataset smooth || { ok=1; cat "$log"; }
done
python3 - "$csv" <<'PY' || ok=1
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == "op,dataset,ranks,ranks_per_node,link,bytes,mode,predicted_us".split(","), rows[0]
body = rows[1:]
assert len(body) == 30, len(body)
L, B, P, K = 10e9 / 8, 1048576, 64, 4
# Per node: bcast receives B; gatherv's root node receives every other node's contributions;
# alltoallv's nodes each send their ranks' blocks for the other nodes; reduce's root node, and
# every node of an allreduce, receives the other nodes' partial sums once; every node of an
# allgather(v) receives the other nodes' blocks; alltoall moves what alltoallv does; scatter(v)'s
# root node sends every other node's blocks. Compressed 2x at most.
floor = {"bcast": B / L, "gatherv": (P - K) * B / L, "alltoallv": K * B * (P - K) / P / L,
         "reduce": B / L, "allreduce": B / L, "allgatherv": (P - K) * B / L,
         "alltoall": K * B * (P - K) / P / L, "allgather": (P - K) * B / L,
         "scatterv": (P - K) * B / L, "scatter": (P - K) * B / L}
for op, ds, ranks, rpn, link, size, mode, us in body:
    assert (ds, ranks, rpn, link, size) == ("smooth", "64", "4", "10gbit", "1048576"), (op, mode)
    assert mode in ("best-baseline", "zip", "zip-raw"), mode
    limit = floor[op] / (2 if mode == "zip" else 1)
    assert float(us) * 1e-6 >= limit * 0.999, (op, mode, us, limit)
for op in floor:
    assert sorted(r[6] for r in body if r[0] == op) == ["best-baseline", "zip", "zip-raw"], op
PY
report "64 ranks (4 per node) of every simulated operation run and write a sane CSV" $ok "$csv"

# 6. The fat tree: full bisection moves an alltoallv as fast as the star's single switch; a
# 4:1 tapered one is slower.
for taper in 1 4; do
    simulate "$work/ft$taper.log" "$work/ft$taper.csv" --op alltoallv --ranks 32 --bytes $B \
        --link 10gbit --latency 2us --dataset noise --topology fattree --fattree-leaf 8 \
        --fattree-taper $taper
done
simulate "$work/star.log" "$work/star.csv" --op alltoallv --ranks 32 --bytes $B --link 10gbit \
    --latency 2us --dataset noise
full=$(value "$work/ft1.csv" alltoallv noise best-baseline)
tapered=$(value "$work/ft4.csv" alltoallv noise best-baseline)
star=$(value "$work/star.csv" alltoallv noise best-baseline)
holds "abs(full / star - 1) < 0.05 and tapered > full * 1.5" full="${full:-0}" \
    tapered="${tapered:-0}" star="${star:-1}"
report "alltoallv on a fat tree: full bisection as fast as a star, 4:1 taper slower" $? \
    "$work/ft4.log"

# 6b. A backplane (netemu's host forwarding every port's traffic) caps all flows together: 4
# ports of 1 Gbit/s exchanging at once behind 2 Gbit/s take twice as long; a gatherv, one flow
# into the root's port at a time, is not slowed; a fat tree refuses it.
for op in alltoallv gatherv; do
    for bp in none 2gbit; do
        args=()
        [ $bp = none ] || args=(--backplane $bp)
        simulate "$work/bp-$op-$bp.log" "$work/bp-$op-$bp.csv" --op $op --ranks 4 --bytes $B \
            --link 1gbit --latency 10us --dataset noise "${args[@]}"
    done
done
a0=$(value "$work/bp-alltoallv-none.csv" alltoallv noise best-baseline)
a2=$(value "$work/bp-alltoallv-2gbit.csv" alltoallv noise best-baseline)
g0=$(value "$work/bp-gatherv-none.csv" gatherv noise best-baseline)
g2=$(value "$work/bp-gatherv-2gbit.csv" gatherv noise best-baseline)
holds "abs(a2 / a0 - 2) < 0.1 and abs(g2 / g0 - 1) < 0.01" a0="${a0:-1}" a2="${a2:-0}" \
    g0="${g0:-1}" g2="${g2:-0}" &&
    ! simulate "$work/bp-ft.log" "$work/bp-ft.csv" --op alltoallv --ranks 8 --bytes $B \
        --link 1gbit --latency 10us --dataset noise --topology fattree --fattree-leaf 4 \
        --backplane 2gbit &&
    grep -q 'backplane models one switch' "$work/bp-ft.log"
report "a backplane caps all flows together: alltoallv 2x slower behind half its demand, gatherv not" \
    $? "$work/bp-alltoallv-2gbit.log"

# 6c. --tcp-btl-pairs (Open MPI's TCP BTL on netemu): one message at a time between two ranks,
# either way. A 2-rank alltoallv (2.5 MiB each way) then takes twice the one-way time, and once
# without it; messages within the eager limit (40 KiB each way) pass beside each other; a
# gatherv (every message one way) is not slowed.
for case in "alltoallv $B" "alltoallv 65536" "gatherv $B"; do
    read -r op bytes <<<"$case"
    for pairs in off on; do
        args=(--op "$op" --ranks 2 --bytes "$bytes" --link 1gbit --latency 10us --dataset noise)
        [ $pairs = off ] || args+=(--tcp-btl-pairs)
        simulate "$work/tp-$op-$bytes-$pairs.log" "$work/tp-$op-$bytes-$pairs.csv" "${args[@]}"
    done
done
big0=$(value "$work/tp-alltoallv-$B-off.csv" alltoallv noise best-baseline)
big1=$(value "$work/tp-alltoallv-$B-on.csv" alltoallv noise best-baseline)
small0=$(value "$work/tp-alltoallv-65536-off.csv" alltoallv noise best-baseline)
small1=$(value "$work/tp-alltoallv-65536-on.csv" alltoallv noise best-baseline)
g0=$(value "$work/tp-gatherv-$B-off.csv" gatherv noise best-baseline)
g1=$(value "$work/tp-gatherv-$B-on.csv" gatherv noise best-baseline)
# Closed form: each way 2.5 MiB at 1 Gbit/s (20971.52 us), plus the 10 us latency and the copy of
# the rank's own 1.5 MiB block at memcpy's 10 GB/s (157.29 us): 21138.81 us both ways at once,
# 42110.33 us one way after the other.
holds "abs(big0 - 21138.81) < 5 and abs(big1 - 42110.33) < 5 and abs(small1 / small0 - 1) < 0.01 and abs(g1 / g0 - 1) < 0.01" \
    big0="${big0:-0}" big1="${big1:-0}" small0="${small0:-1}" small1="${small1:-0}" \
    g0="${g0:-1}" g1="${g1:-0}"
report "--tcp-btl-pairs: a 2-rank exchange takes twice the one-way time, eager messages and gatherv not" \
    $? "$work/tp-alltoallv-$B-on.log"

# 7. Skipping the baseline configurations whose lower bound cannot beat the best so far never
# changes the best (against --exhaustive, on nodes of 8 ranks and on a fat tree).
ok=0
for args in "--ranks 64 --ranks-per-node 8 --link 10gbit --latency 30us" \
    "--ranks 48 --ranks-per-node 4 --link 1gbit --latency 50us --topology fattree --fattree-leaf 4"; do
    # shellcheck disable=SC2086  # $args is a list of options
    for how in pruned exhaustive; do
        simulate "$work/$how.log" "$work/$how.csv" --op bcast --bytes $B $args --dataset noise \
            $([ $how = exhaustive ] && echo --exhaustive) || ok=1
    done
    a=$(value "$work/pruned.csv" bcast noise best-baseline)
    b=$(value "$work/exhaustive.csv" bcast noise best-baseline)
    [ -n "$a" ] && [ "$a" = "$b" ] || { ok=1; echo "pruned $a, exhaustive $b ($args)" >> "$work/prune.log"; }
    rm -f "$work/pruned.csv" "$work/exhaustive.csv"
done
report "skipping hopeless baseline configurations keeps the best one" $ok "$work/prune.log"

# 8. A typo is refused with a message, not simulated.
"$sim" --op scater --ranks 8 --bytes 1024 --link 1gbit --latency 1us \
    --codec-csv "$work/codecs.csv" --dataset smooth > "$work/bad.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "op is bcast, alltoallv, gatherv, .* or scan, not .scater." "$work/bad.log"
report "an unknown --op is refused with a message" $? "$work/bad.log"

# 9. simscale-corpus: two recorded messages of one application become one data set whose ratio
# is raw / compressed bytes and whose speed is raw bytes / summed time, with the base table's
# gauss-1024 memcpy rows; simscale then simulates a call on it.
cat > "$work/base.csv" <<'CSV'
codec,dataset,size_bytes,ratio,compress_GBps,decompress_GBps
memcpy,gauss-1024,4096,1.0,10.0,10.0
fast,gauss-1024,4096,1.5,2.0,3.0
CSV
cat > "$work/files.csv" <<'CSV'
app,rank,call,op,elem,bytes,peer,tag,codec,compressed_bytes,ratio,compress_GBps,decompress_GBps
demo,0,1,isend,f64,1000000,1,0,fast,250000,4.0000,1.0000,2.0000
demo,0,2,isend,f64,3000000,1,0,fast,1250000,2.4000,3.0000,6.0000
CSV
table=$work/corpus-table.csv
"$top/perftest/simscale-corpus" "$work/base.csv" "$work/files.csv" > "$table" 2> "$work/corpus.log"
# 4e6 raw / 1.5e6 compressed = 2.6667; compress 4e6 B in 1 ms + 1 ms = 2 GB/s; decompress 4 GB/s.
grep -qx 'fast,corpus-demo,2000000,2.6667,2.0000,4.0000' "$table" &&
    grep -qx 'memcpy,corpus-demo,4096,1.0,10.0,10.0' "$table" &&
    timeout 300 "$sim" --codec-csv "$table" --dataset corpus-demo --op bcast --ranks 2 \
        --bytes $B --link 1gbit --latency 10us --csv "$work/corpus-sim.csv" >> "$work/corpus.log" 2>&1 &&
    [ -n "$(value "$work/corpus-sim.csv" bcast corpus-demo zip)" ]
report "simscale-corpus: an application's messages become a data set simscale simulates" $? "$table"

# 10. simscale-validate: predicted and measured rows of the same point are paired, their ratio
# printed and counted within 20 % or not.
cat > "$work/val-sim.csv" <<'CSV'
op,dataset,ranks,ranks_per_node,link,bytes,mode,predicted_us
bcast,gauss,8,1,netemu-1gbit,1048576,best-baseline,10000
bcast,gauss,8,1,netemu-1gbit,1048576,zip,5000
CSV
cat > "$work/val-meas.csv" <<'CSV'
op,dataset,ranks,link,bytes,mode,latency_us,ratio
bcast,gauss,8,1gbit,1048576,best-tuned,11000,
bcast,gauss,8,1gbit,1048576,zip,8000,
CSV
"$top/perftest/simscale-validate" "$work/val-sim.csv" "$work/val-meas.csv" > "$work/val.md" 2>&1
grep -q '^| bcast | gauss | 8 | 1024 KiB | 10.00 | 11.00 | 0.91 | 5.00 | 8.00 | 0.62 (out) |$' "$work/val.md" &&
    grep -q '^1 of 2 predictions within 20 %' "$work/val.md"
report "simscale-validate pairs predictions with measurements and flags those 20 % off" $? "$work/val.md"

# 10b. simscale-tables deploy: a row per operation and data set, one rank per node in the first
# three columns and nodes in the last three, by link; a LINK-own label (simscale-sweep
# --own-speeds) counts as its link; a point not simulated is "-".
mkdir -p "$work/deploy"
cat > "$work/deploy/scale.csv" <<'CSV'
op,dataset,ranks,ranks_per_node,link,bytes,mode,predicted_us
bcast,corpus-demo,256,1,10gbit-own,1048576,best-baseline,3000
bcast,corpus-demo,256,1,10gbit-own,1048576,zip,1500
bcast,corpus-demo,256,1,10gbit-own,1048576,zip-raw,2000
bcast,corpus-demo,256,32,100gbit-own,1048576,best-baseline,400
bcast,corpus-demo,256,32,100gbit-own,1048576,zip,400
bcast,corpus-demo,256,32,100gbit-own,1048576,zip-raw,500
CSV
"$top/perftest/simscale-tables" "$work/deploy" deploy > "$work/deploy.md" 2>&1
grep -qx '| bcast | corpus-demo | 256 (32 per node) | 2.00 (1.50) | - | - | - | - | 1.00 (0.80) |' \
    "$work/deploy.md"
report "simscale-tables deploy: a column per link, one rank per node then nodes" $? "$work/deploy.md"

# 11. --message-cpu: every message costs its sender and its receiver CPU time, on cores they
# share (2 for 8 ranks, as on netemu). An allgather of 1 MiB blocks that do not shrink, at
# 5 Gbit/s (a fast link for the ring, one the codec of this table still beats): zip-raw's ring
# streams each block in 22 segments a hop and pays for them, while zip, whose senders find the
# blocks incompressible on a fast link, sends them whole as the ring baseline does; without the
# cost the segments are within 5 % of the ring.
for cpu in 0 12us; do
    log=$work/msgcpu-$cpu.log csv=$work/msgcpu-$cpu.csv
    args=()
    [ "$cpu" = 0 ] || args=(--message-cpu "$cpu")
    simulate "$log" "$csv" --op allgather --ranks 8 --bytes 1048576 --link 5gbit \
        --latency 30us --machine-cores 2 --dataset noise --detail "${args[@]}"
    rc=$?
    ring=$(value "$csv" allgather noise baseline:ring)
    zip=$(value "$csv" allgather noise zip)
    raw=$(value "$csv" allgather noise zip-raw)
    if [ "$cpu" = 0 ]; then
        expr="raw / ring < 1.05 and zip / ring < 1.02"
    else
        expr="raw / ring > 1.15 and zip / ring < 1.02"
    fi
    [ $rc = 0 ] && holds "$expr" ring="${ring:-0}" zip="${zip:-1e9}" raw="${raw:-1e9}"
    report "message cpu $cpu: raw segments of a 5 Gbit/s allgather ring cost what the messages do, whole raw blocks not" $? "$log"
done

finish_runner
