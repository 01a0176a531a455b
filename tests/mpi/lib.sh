# shellcheck shell=bash
# Helpers of the mpirun-based test runners (run-mpi-tests.sh, run-p2p-tests.sh). Sourced after
# `set -u`, with $top set to the source tree. Every check prints one line, "PASS: name",
# "FAIL: name" (followed by the tail of its log) or "SKIP: name"; $failures counts the FAILs.
# $limit is the timeout of one mpirun in seconds; `limit=240 run ...` lengthens one run.

# Mpirun as root must be allowed (containers and CI run as root); $bin holds the test programs
# and logs and is removed on exit.
start_runner() { # scratch-dir-name
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # pml/cm opens the PSM and PSM2 MTLs, which probe for their adapters: 0.1 s each per
    # mpirun, half a 2-rank job's start-up here, never selected on a machine without them. The
    # suites run hundreds of jobs; Debian's own openmpi-mca-params.conf leaves out only ofi.
    export OMPI_MCA_mtl=${OMPI_MCA_mtl:-^ofi,psm,psm2}
    bin=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
    trap 'rm -rf "$bin"' EXIT
    failures=0
}

# Where the build put a component of this tree: $BUILD_DIR for a separate build directory,
# else the libtool output in the source tree.
built_component_dir() { # subdir-of-the-tree
    echo "${BUILD_DIR:-$top}/$1/.libs"
}

# Open MPI's own component directory, from the ompi_info next to the mpirun on PATH (so that
# both come from one installation); $OMPI_COMPONENT_DIR overrides it.
ompi_component_dir() {
    echo "${OMPI_COMPONENT_DIR:-$(ompi_info --path pkglibdir --parsable 2>/dev/null |
        sed -n 's/^path:pkglibdir://p')}"
}

# Stops the runner before any test when a component it needs is missing.
require_component() { # file what-is-missing
    if [ ! -f "$1" ]; then
        echo "FAIL: setup ($2)"
        exit 1
    fi
}

report() { # name status [log]
    # ZIP_TEST_TIMES=1: every line names its mpirun's seconds, to find where a suite's time goes.
    [ "${ZIP_TEST_TIMES:-0}" = 1 ] && set -- "$1 [${mpirun_seconds:-0} s]" "$2" "${3:-}"
    if [ "$2" = 0 ]; then
        echo "PASS: $1"
        # A pass near the timeout is tomorrow's failure on a slower machine.
        [ "${mpirun_seconds:-0}" -gt $((${limit:-0} / 2)) ] &&
            echo "    (slow: mpirun took $mpirun_seconds s of its $limit)"
    else
        echo "FAIL: $1"
        [ -n "${3:-}" ] && sed 's/^/    /' "$3" | tail -15
        failures=$((failures + 1))
    fi
    mpirun_seconds=0
}

# mpirun with its output in $bin/out.log; returns mpirun's status (124 on timeout).
# The log ends with how long mpirun took, so a failure's tail tells a timeout from a hang.
mpirun_logged() { # mpirun-args...
    local start=$SECONDS rc launch=(mpirun)
    # Inside netemu_up ... netemu_down: mpirun in the emulated network, one rank per namespace.
    [ -n "${netemu_state:-}" ] && launch=(env NETEMU_STATE="$netemu_state"
        NETEMU_PREFIX="$netemu_prefix" "$top/perftest/netemu" run --)
    timeout "$limit" "${launch[@]}" "$@" >"$bin/out.log" 2>&1
    rc=$?
    mpirun_seconds=$((SECONDS - start))
    echo "    (mpirun: $mpirun_seconds s of $limit, status $rc)" >>"$bin/out.log"
    return $rc
}

# Passes when mpirun succeeds and a rank printed "PASS: <expected>"; a test that cannot run here
# prints "SKIP: <expected>" instead. The runners look for "PASS: " anywhere in a line: mpirun
# forwards the ranks' output in chunks, and another rank's stats line can precede it on the same
# line (seen: "[vm:11159] coll:zip:policy allgatherv  0  PASS: alltoallv (0 mismatches)").
run() { # name expected-line mpirun-args...
    local name=$1 expect=$2
    shift 2
    mpirun_logged "$@"
    local rc=$?
    if [ $rc = 0 ] && grep -q "PASS: $expect" "$bin/out.log"; then
        report "$name" 0
    elif grep -q "SKIP: $expect" "$bin/out.log"; then
        echo "SKIP: $name"
    else
        echo "    (exit $rc)" >>"$bin/out.log"
        report "$name" 1 "$bin/out.log"
    fi
}

# An emulated cluster network (perftest/netemu: a namespace per node, TCP over shaped ports) for
# the runs up to netemu_down; NETEMU_PML=<list> before `run` picks the pml (netemu passes
# --mca pml itself, so the run's arguments must not). Fails, saying why, where this machine
# cannot make one (not root, no namespaces): the caller skips. Torn down on exit too.
netemu_up() { # name subnet ranks ranks-per-node rate
    netemu_state=/run/zt-$1 netemu_prefix=$1
    local emu=(env NETEMU_STATE="$netemu_state" NETEMU_PREFIX="$netemu_prefix"
        "$top/perftest/netemu")
    "${emu[@]}" down >/dev/null 2>&1
    if ! "${emu[@]}" up --subnet "$2" --ranks "$3" --ranks-per-node "$4" --rate "$5" \
        >"$bin/netemu.log" 2>&1; then
        sed 's/^/    /' "$bin/netemu.log" | tail -3
        netemu_state=""
        return 1
    fi
    trap 'netemu_down; rm -rf "$bin"' EXIT
}
netemu_down() {
    [ -n "${netemu_state:-}" ] || return 0
    NETEMU_STATE=$netemu_state NETEMU_PREFIX=$netemu_prefix "$top/perftest/netemu" down \
        >/dev/null 2>&1
    netemu_state=""
}

# Every parameter must be visible in ompi_info, help text included.
check_params_listed() { # framework component component-path param...
    local framework=$1 component=$2 path=$3 missing=0 p
    shift 3
    OMPI_MCA_mca_base_component_path="$path" ompi_info --param "$framework" "$component" \
        --level 9 >"$bin/out.log" 2>&1
    for p in "$@"; do
        grep -q "\"${framework}_${component}_$p\"" "$bin/out.log" || missing=1
    done
    report "ompi_info lists every ${framework}_${component} parameter" $missing "$bin/out.log"
}

# The exit status is the number of failures, capped at 100 (exit statuses stop at 255).
finish_runner() {
    echo "$failures failed"
    [ $failures -gt 100 ] && failures=100
    exit $failures
}

# run_clean <name> <expected line> <mpirun args...>: run (the sanitizer runs), and fail on any
# sanitizer report even where the program passed.
run_clean() {
    local name=$1 expect=$2
    shift 2
    mpirun_logged "$@"
    local rc=$?
    if [ $rc = 0 ] && grep -q "PASS: $expect" "$bin/out.log" &&
        ! grep -q -E 'ERROR: AddressSanitizer|runtime error:' "$bin/out.log"; then
        report "$name" 0
    else
        echo "    (exit $rc)" >>"$bin/out.log"
        report "$name" 1 "$bin/out.log"
    fi
}

# A stand-in for a GPU driver's library (fake_gpu_runtime.c, soname libcuda.so.1) at
# $bin/gpu/libcuda.so.1: preloaded into a rank (mpirun ... : -np 1 env LD_PRELOAD=... prog), it
# makes that rank a GPU process for zip's guards. Prints its path; fails, with cc's output in
# $bin/cc.log, where it cannot be built.
build_gpu_stand_in() {
    mkdir -p "$bin/gpu" &&
        gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$bin/gpu/libcuda.so.1" \
            "$here/fake_gpu_runtime.c" 2>"$bin/cc.log" && echo "$bin/gpu/libcuda.so.1"
}
