#!/usr/bin/env bash
# run-demo.sh: from a fresh checkout to figures. Installs the packages, builds ompi-zip, brings
# up an emulated 1 Gbit/s cluster (perftest/netemu), checks that traffic really crosses the
# shaped links, sweeps MPI_Bcast / MPI_Alltoallv / MPI_Gatherv with zip off (Open MPI default
# and the best forced tuned algorithm and segment size) and on, and prints a summary and where
# the plots are.
#
#   perftest/run-demo.sh            short sweep, 4 ranks, 1 KiB..4 MiB, 5 data sets, every tuned
#                                   algorithm and segment size (zipbench-sweep's lists; the tuned
#                                   jobs on the random data set only, as tuned does not look at
#                                   the bytes); about 12 min on 2 cores, build included
#   perftest/run-demo.sh --full     8 ranks, 1 KiB..16 MiB, all data sets, every tuned algorithm
#                                   and segment size (tuned jobs on random only), 2 rounds, at
#                                   1gbit, 500mbit and 100mbit, then 2 ranks at 10gbit (most of
#                                   a day)
# Options: --out DIR (default perftest/results/demo or .../full), --ranks N, --rate R,
#          --no-build (use an existing build in build-demo/, or in the tree if it was configured
#          there), --zipbench BIN and --zip-dir DIR (use these instead). Needs root (network namespaces, tc).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
full=0 build=1 out="" ranks="" rate="" zipbench="" zipdir=""
while (($#)); do
    case $1 in
        --full) full=1; shift ;;
        --no-build) build=0; shift ;;
        --out) out=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --zipbench) zipbench=$2; build=0; shift 2 ;;
        --zip-dir) zipdir=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run-demo: unknown option $1" >&2; exit 2 ;;
    esac
done
step() { printf '\n=== run-demo: %s\n' "$*"; }
[[ $(id -u) == 0 ]] || { echo "run-demo: needs root (network namespaces and tc)" >&2; exit 1; }

bdir=$top/build-demo
[[ -f $top/config.status ]] && bdir=$top
if ((build)); then
    step "installing packages (scripts/install-deps.sh)"
    "$top/scripts/install-deps.sh"
    step "building (autogen, configure, make in ${bdir#"$top"/})"
    cd "$top"
    log="$top/run-demo-build.log"
    # In build-demo/, so that the tree stays unconfigured and a VPATH build (scripts/test.sh's
    # build/) keeps working; in the tree itself where someone configured it there (configure
    # refuses a VPATH build of a configured tree).
    if ! { ./autogen.sh && mkdir -p "$bdir" && cd "$bdir" && "$top/configure"; } >"$log" 2>&1; then
        tail -20 "$log"
        echo "run-demo: autogen/configure failed; full log in $log" >&2
        exit 1
    fi
    if ! make -j"$(nproc)" >>"$log" 2>&1; then
        # The demo needs only the codecs, the component and zipbench: a broken test elsewhere
        # in the tree should not stop it, but it must be visible.
        echo "run-demo: WARNING: 'make' failed (see $log); building only what the demo needs" >&2
        if ! { make -C codecs && make -C ompi-coll-zip && make -C perftest zipbench; } >>"$log" 2>&1; then
            tail -20 "$log"
            echo "run-demo: the build failed; full log in $log" >&2
            exit 1
        fi
    fi
fi
zipbench=${zipbench:-$bdir/perftest/zipbench}
[[ -x $zipbench ]] || { echo "run-demo: no zipbench at $zipbench (build first)" >&2; exit 1; }
if [[ -z $zipdir ]]; then
    so=$(find "$bdir/ompi-coll-zip" -name mca_coll_zip.so -path '*/.libs/*' \
        2>/dev/null | head -1)
    zipdir=${so:+$(dirname "$so")}
fi

# Sweep parameters. The short sweep keeps the sizes where a 1 Gbit/s link dominates. Both
# compare zip with the best of every tuned configuration at each point (zipbench-sweep tries
# bcast algorithms 1-9, the segmented ones 2-7 unsegmented and at 8..256 KiB, and both
# alltoallv algorithms); fewer candidates would overstate zip's gain.
if ((full)); then
    out=${out:-$here/results/full}
    configs=("${ranks:-8}:${rate:-1gbit}" "${ranks:-8}:500mbit" "${ranks:-8}:100mbit" "2:10gbit")
    [[ -n $rate ]] && configs=("${ranks:-8}:$rate")
    sweep=(--rounds 2 --tuned-datasets random)
    bench=(--min 1024 --max 16777216 --step 2 --batch auto)
else
    out=${out:-$here/results/demo}
    configs=("${ranks:-4}:${rate:-1gbit}")
    sweep=(--datasets "linear,gauss,sincos-sorted,heat,random" --tuned-datasets random)
    bench=(--min 1024 --max 4194304 --step 4 --warmup 1 --min-reps 3 --budget 0.5 --batch auto)
fi
mkdir -p "$out"
# Only what a previous run wrote: --out may point at a directory holding other files.
rm -rf "$out/plotdata" "$out/mca"
rm -f "$out"/{raw,results,best-tuned-algs}.csv "$out"/{sweep.log,summary.txt,network-check.txt} "$out"/*.png
if [[ -n $zipdir && -f $zipdir/mca_coll_zip.so ]]; then
    # Open MPI tries to dlopen every file in a component directory; libtool's .libs also holds
    # objects, which makes it print a warning per object. A directory with just the DSO is quiet.
    mkdir -p "$out/mca"
    cp "$zipdir/mca_coll_zip.so" "$out/mca/"
    zipdir="$out/mca"
else
    echo "run-demo: WARNING: mca_coll_zip.so not found: only the baselines will be measured" >&2
fi

sweep_pid=""
cleanup() {
    if [[ -n $sweep_pid ]]; then kill "$sweep_pid" 2>/dev/null || true; fi
    # down also kills what still runs in the namespaces (mpirun, orteds, ranks).
    "$here/netemu" down
}
for cfg in "${configs[@]}"; do
    n=${cfg%%:*} r=${cfg#*:}
    step "emulated network: $n ranks, every link $r"
    "$here/netemu" up --ranks "$n" --rate "$r"
    # Only after our own `up` succeeded: if it refused (someone else's network is up), leave that.
    # A signal must end the script (EXIT then cleans up), not resume it with the next config.
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    "$here/netemu" check | tee -a "$out/network-check.txt"
    # The same 16 MiB through MPI: proves the ranks' TCP traffic goes through the shaper too.
    "$here/netemu" run -- -np 2 "$zipbench" --ops pingpong --datasets random --sizes 16777216 \
        --min-reps 3 --warmup 1 | tee -a "$out/network-check.txt"
    step "sweep ($n ranks, $r): default, tuned algorithms and segment sizes, zip, in alternation"
    # In the background so that a signal interrupts `wait` at once (bash runs traps only between
    # foreground commands, and a sweep can take an hour).
    "$here/zipbench-sweep" --zipbench "$zipbench" --zip-dir "$zipdir" --out "$out" "${sweep[@]}" \
        -- "${bench[@]}" &
    sweep_pid=$!
    wait "$sweep_pid" || echo "run-demo: some jobs failed, see $out/sweep.log" >&2
    sweep_pid=""
    "$here/netemu" down
done
trap - EXIT INT TERM

step "summary (all latencies in microseconds)"
"$here/zipbench-merge" "$out/raw.csv" "$out" | tee "$out/summary.txt"
step "plots"
"$here/plot_zipbench.sh" "$out/results.csv" "$out"
echo
echo "run-demo: results in $out: results.csv (merged), raw.csv, summary.txt, *.png"
