#!/usr/bin/env bash
# record-corpus.sh: build six open-source MPI mini-apps and record the messages they send with
# libmsgrec.so, one directory per application, for `codecbench --files` (docs/performance.md,
# "Codecs on recorded application messages"). The corpus is generated, never committed.
#
#   perftest/msgrec/record-corpus.sh --build BUILD --out CORPUS [--work DIR] [--apps a,b,...]
#                                    [--clone-from TEMPLATE] [--jobs N]
#
#   --build       ompi-zip's build directory (holds perftest/msgrec/.libs/libmsgrec.so)
#   --out         corpus directory; one subdirectory per application is replaced
#   --work        where sources are cloned and built (default: CORPUS.work)
#   --apps        subset of: lulesh,cloverleaf,minife,comd,miniamr,minivite (default: all)
#   --clone-from  where to clone from, {owner} and {name} replaced
#                 (default https://github.com/{owner}/{name}.git; an offline mirror works too,
#                 e.g. '/srv/mirror/{owner}+{name}/repo')
#   --jobs        make -j (default: nproc)
#
# Each application is checked out at the commit the published figures used, built with
# Open MPI's wrappers, and run on one node with --oversubscribe. MSGREC_EVERY spreads the
# recorded messages over the whole run rather than its first steps (the budget per rank is
# MSGREC_MAX_BYTES, 64 MiB). About 15-20 minutes on 2 cores, builds included.
set -euo pipefail

build="" out="" work="" apps="lulesh,cloverleaf,minife,comd,miniamr,minivite"
clone_from="https://github.com/{owner}/{name}.git" jobs=$(nproc)
while (($#)); do
    case $1 in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --apps) apps=$2; shift 2 ;;
        --clone-from) clone_from=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "record-corpus: unknown option $1" >&2; exit 2 ;;
    esac
done
[[ -n $build && -n $out ]] || { echo "record-corpus: --build and --out are required" >&2; exit 2; }
build=$(cd "$build" && pwd)
lib=$build/perftest/msgrec/.libs/libmsgrec.so
[[ -f $lib ]] || { echo "record-corpus: no $lib (build ompi-zip first)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${work:-$out.work}
mkdir -p "$work"
work=$(cd "$work" && pwd)

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One node, stock Open MPI: only the recorder is added to the application.
mpirun_rec() { # mpirun_rec APP EVERY NP -- command...
    local app=$1 every=$2 np=$3
    shift 4
    rm -rf "${out:?}/$app"
    mpirun -np "$np" --oversubscribe --bind-to none -x OMP_NUM_THREADS=1 -x LD_PRELOAD="$lib" \
        -x MSGREC_DIR="$out/$app" -x MSGREC_EVERY="$every" "$@"
}

# checkout APP OWNER NAME COMMIT: a clean copy of the source at COMMIT in $work/APP.
checkout() {
    local app=$1 owner=$2 name=$3 commit=$4 url
    url=${clone_from//\{owner\}/$owner}
    url=${url//\{name\}/$name}
    if [[ ! -d $work/$app/.git ]]; then
        rm -rf "${work:?}/$app"
        git clone -q "$url" "$work/$app"
    fi
    git -C "$work/$app" checkout -q -f "$commit"
    git -C "$work/$app" clean -q -fdx
}

step() { printf '\n=== record-corpus: %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

record_lulesh() {
    checkout lulesh LLNL LULESH 3e01c40
    cd "$work/lulesh"
    # MPI without OpenMP: one core per rank, as the other apps.
    make -j"$jobs" CXX="mpicxx -DUSE_MPI=1" CXXFLAGS="-O3 -I. -w" LDFLAGS="-O3" >build.log 2>&1
    mpirun_rec lulesh 2 8 -- ./lulesh2.0 -s 20 -i 200 >run.log 2>&1
}

record_cloverleaf() {
    checkout cloverleaf UK-MAC CloverLeaf_ref 0fdb917
    cd "$work/cloverleaf"
    # mpif.h has no interfaces: gfortran >= 10 needs -fallow-argument-mismatch for MPI buffers.
    make COMPILER=GNU OMP_GNU= OPTIONS="-fallow-argument-mismatch" MPI_COMPILER=mpif90 \
        C_MPI_COMPILER=mpicc >build.log 2>&1
    # Its own clover.in: 960 x 960 cells, 87 steps.
    mpirun_rec cloverleaf 2 4 -- ./clover_leaf >run.log 2>&1
}

record_minife() {
    checkout minife Mantevo miniFE c79e0f7
    cd "$work/minife/ref/src"
    make -j"$jobs" >build.log 2>&1
    mpirun_rec minife 1 4 -- ./miniFE.x nx=80 ny=80 nz=80 >run.log 2>&1
}

record_comd() {
    checkout comd ECP-copa CoMD 3d48396
    cd "$work/comd/src-mpi"
    cp Makefile.vanilla Makefile
    make -j"$jobs" >build.log 2>&1
    mpirun_rec comd 6 4 -- ../bin/CoMD-mpi -i 2 -j 2 -k 1 -x 40 -y 40 -z 20 -N 100 >run.log 2>&1
}

record_miniamr() {
    checkout miniamr Mantevo miniAMR 635fef2
    cd "$work/miniamr/ref"
    make -j"$jobs" >build.log 2>&1
    # 2 x 2 x 2 ranks, 8^3-cell blocks, 20 variables, 3 refinement levels, one sphere that
    # grows from the centre, 30 steps.
    mpirun_rec miniamr 40 8 -- ./miniAMR.x --npx 2 --npy 2 --npz 2 --nx 8 --ny 8 --nz 8 \
        --num_vars 20 --num_refine 3 --max_blocks 4000 --num_objects 1 \
        --object 2 0 -0.01 -0.01 -0.01 0.0 0.0 0.0 0.0 0.0 0.0 0.009 0.009 0.009 \
        --num_tsteps 30 >run.log 2>&1
}

record_minivite() {
    checkout minivite ECP-ExaGraph miniVite 4cbf5be
    cd "$work/minivite"
    make -j"$jobs" CXX=mpicxx OPTFLAGS="-O3 -fopenmp" >build.log 2>&1
    mpirun_rec minivite 1 4 -- ./miniVite -l -n 200000 >run.log 2>&1
}

failed=()
IFS=, read -ra list <<<"$apps"
for app in "${list[@]}"; do
    fn=record_$app
    declare -F "$fn" >/dev/null || { echo "record-corpus: unknown application $app" >&2; exit 2; }
    step "$app"
    start=$SECONDS
    if (set -e; "$fn"); then
        idx=$(ls "$out/$app"/*.idx 2>/dev/null | wc -l)
        bytes=$(du -sb "$out/$app" | cut -f1)
        echo "record-corpus: $app: $idx ranks, $bytes bytes, $((SECONDS - start)) s"
        if ((idx == 0)) || grep -L '^# end' "$out/$app"/*.idx | grep -q .; then
            echo "record-corpus: $app: no index, or one without its end line (a rank died)" >&2
            failed+=("$app")
        fi
    else
        echo "record-corpus: $app failed; logs in $work/$app (build.log, run.log)" >&2
        failed+=("$app")
    fi
done
((${#failed[@]} == 0)) || { echo "record-corpus: failed: ${failed[*]}" >&2; exit 1; }
echo "record-corpus: corpus in $out"
