# apps.sh: the six open-source MPI mini-apps that ompi-zip is measured and checked on, as one
# place that knows where each comes from, how it is built, how it is run and where its results
# are. Sourced by perftest/msgrec/record-corpus.sh (records their messages) and
# perftest/apps/run-under-zip.sh (runs them with and without zip and compares the results).
#
# Settings (the sourcing script may set them, or pass its command line's options through
# apps_take_option): work (where sources are cloned and built), apps (a comma list, empty for
# all), clone_from (URL template, {owner} and {name} replaced) and jobs (make -j).

APPS_ALL=lulesh,cloverleaf,minife,comd,miniamr,minivite
work=${work:-} apps=${apps:-} jobs=${jobs:-$(nproc)}
clone_from=${clone_from:-https://github.com/{owner}/{name}.git}

# apps_take_option OPTION VALUE: takes --work, --apps, --clone-from and --jobs; returns 1 for
# any other option.
apps_take_option() {
    case $1 in
        --work) work=$2 ;;
        --apps) apps=$2 ;;
        --clone-from) clone_from=$2 ;;
        --jobs) jobs=$2 ;;
        *) return 1 ;;
    esac
}

# apps_setup_dirs SCRIPT OUT_DEFAULT: after option parsing, for the scripts that run the apps
# under zip: makes build absolute and checks that it holds both components (coll_dir,
# pml_dir), makes out (default BUILD/OUT_DEFAULT) and work (default OUT/src) and sets ompi_dir
# (Open MPI's component directory). Exits with a message naming SCRIPT when a piece is missing.
apps_setup_dirs() {
    [[ -n $build ]] || { echo "$1: --build is required" >&2; exit 2; }
    build=$(cd "$build" && pwd)
    coll_dir=$build/ompi-coll-zip/.libs pml_dir=$build/ucx-hooks/.libs
    local so
    for so in "$coll_dir/mca_coll_zip.so" "$pml_dir/mca_pml_zip.so"; do
        [[ -f $so ]] || { echo "$1: no $so (build ompi-zip first)" >&2; exit 1; }
    done
    out=${out:-$build/$2}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    work=${work:-$out/src}
    mkdir -p "$work"
    work=$(cd "$work" && pwd)
    ompi_dir=$(dirname "$(find /usr/lib -name mca_coll_tuned.so -path '*openmpi*' | head -1)")
}

# app_source APP: "owner name commit" of the published figures (docs/performance.md).
app_source() {
    case $1 in
        lulesh) echo "LLNL LULESH 3e01c40" ;;
        cloverleaf) echo "UK-MAC CloverLeaf_ref 0fdb917" ;;
        minife) echo "Mantevo miniFE c79e0f7" ;;
        comd) echo "ECP-copa CoMD 3d48396" ;;
        miniamr) echo "Mantevo miniAMR 635fef2" ;;
        minivite) echo "ECP-ExaGraph miniVite 4cbf5be" ;;
        *) return 1 ;;
    esac
}

# app_dir APP: the directory the application is built and run in.
app_dir() {
    case $1 in
        minife) echo "$work/minife/ref/src" ;;
        comd) echo "$work/comd/src-mpi" ;;
        miniamr) echo "$work/miniamr/ref" ;;
        *) echo "$work/$1" ;;
    esac
}

# app_checkout APP: a clean copy of the source at its commit in $work/APP.
app_checkout() {
    local owner name commit url
    read -r owner name commit <<<"$(app_source "$1")"
    url=${clone_from//\{owner\}/$owner}
    url=${url//\{name\}/$name}
    if [[ ! -d $work/$1/.git ]]; then
        rm -rf "${work:?}/$1"
        git clone -q "$url" "$work/$1" || return 1
    fi
    git -C "$work/$1" checkout -q -f "$commit" && git -C "$work/$1" clean -q -fdx
}

# Callers run these inside `if`, where `set -e` does not act: every step returns its status.

# app_build APP: checkout and build with Open MPI's wrappers, MPI only (one core per rank);
# the log is build.log in app_dir.
app_build() {
    app_checkout "$1" || return 1
    local dir
    dir=$(app_dir "$1")
    case $1 in
        lulesh) make -C "$dir" -j"$jobs" CXX="mpicxx -DUSE_MPI=1" CXXFLAGS="-O3 -I. -w" \
            LDFLAGS="-O3" ;;
        # mpif.h has no interfaces: gfortran >= 10 needs -fallow-argument-mismatch.
        cloverleaf) make -C "$dir" COMPILER=GNU OMP_GNU= OPTIONS="-fallow-argument-mismatch" \
            MPI_COMPILER=mpif90 C_MPI_COMPILER=mpicc ;;
        minife | miniamr) make -C "$dir" -j"$jobs" ;;
        comd) cp "$dir/Makefile.vanilla" "$dir/Makefile" && make -C "$dir" -j"$jobs" ;;
        minivite) make -C "$dir" -j"$jobs" CXX=mpicxx OPTFLAGS="-O3 -fopenmp" ;;
    esac >"$dir/build.log" 2>&1
}

# app_np APP: ranks; app_every APP: MSGREC_EVERY for the recording (spreads the recorded
# messages over the whole run).
app_np() { case $1 in lulesh | miniamr) echo 8 ;; *) echo 4 ;; esac; }
app_every() {
    case $1 in lulesh | cloverleaf) echo 2 ;; comd) echo 6 ;; miniamr) echo 40 ;; *) echo 1 ;; esac
}

# app_cmd APP: the command line (run in app_dir), one word per line.
app_cmd() {
    case $1 in
        lulesh) printf '%s\n' ./lulesh2.0 -s 20 -i 200 ;;
        # its own clover.in: 960 x 960 cells, 87 steps
        cloverleaf) printf '%s\n' ./clover_leaf ;;
        minife) printf '%s\n' ./miniFE.x nx=80 ny=80 nz=80 ;;
        comd) printf '%s\n' ../bin/CoMD-mpi -i 2 -j 2 -k 1 -x 40 -y 40 -z 20 -N 100 ;;
        # 2 x 2 x 2 ranks, 8^3-cell blocks, 20 variables, 3 refinement levels, one sphere
        # growing from the centre, 30 steps; the sums of every variable are printed
        miniamr) printf '%s\n' ./miniAMR.x --npx 2 --npy 2 --npz 2 --nx 8 --ny 8 --nz 8 \
            --num_vars 20 --num_refine 3 --max_blocks 4000 --num_objects 1 \
            --object 2 0 -0.01 -0.01 -0.01 0.0 0.0 0.0 0.0 0.0 0.0 0.009 0.009 0.009 \
            --num_tsteps 30 --report_diffusion ;;
        minivite) printf '%s\n' ./miniVite -l -n 200000 ;;
    esac
}

# app_clean_outputs APP: remove what a run leaves behind that app_results reads.
app_clean_outputs() {
    local dir
    dir=$(app_dir "$1")
    case $1 in
        minife) rm -f "$dir"/miniFE.*.yaml ;;
        cloverleaf) rm -f "$dir/clover.out" ;;
    esac
}

# app_results APP LOG: the lines of a run's output that depend only on the computation (no
# timings, dates or rates), for comparing runs. LOG holds the run's stdout.
app_results() {
    local dir
    dir=$(app_dir "$1")
    case $1 in
        lulesh) grep -E 'Iteration count|Final Origin Energy|MaxAbsDiff|TotalAbsDiff|MaxRelDiff' "$2" ;;
        cloverleaf) grep -E '^ step:' "$dir/clover.out" ;;
        minife) cat "$dir"/miniFE.*.yaml | grep -E 'Iterations:|Final Resid Norm:|Global (Nrows|Nnz)' ;;
        # the energy table without its last two columns (performance, atoms)
        comd) awk '$1 ~ /^[0-9]+$/ && NF == 8 { print $1, $2, $3, $4, $5, $6 }' "$2" ;;
        miniamr) grep -E ' var [0-9]+ sum |difference too large|^ *Total (blocks|cells)' "$2" ;;
        minivite) grep -E 'Modularity, #Iterations|Number of communities' "$2" ;;
    esac
}

# app_run APP LOG RESULTS COMMAND...: runs COMMAND in APP's directory; LOG gets its stdout and
# then its stderr, RESULTS the app_results of its stdout alone: mpirun forwards the two streams
# in chunks, and a zip statistics line (stderr) once landed in the middle of LULESH's energy.
# Fails when COMMAND does.
app_run() {
    local app=$1 log=$2 results=$3 rc=0
    shift 3
    (cd "$(app_dir "$app")" && "$@") >"$log.out" 2>"$log.err" || rc=1
    cat "$log.out" "$log.err" >"$log"
    ((rc == 0)) && app_results "$app" "$log.out" >"$results"
    rm -f "$log.out" "$log.err"
    return $rc
}
