#!/bin/bash
# An independent check of zip's MPI semantics: MPICH's own test suite (test/mpi of
# github.com/pmodels/mpich, fetched at run time, never committed) built against the installed
# Open MPI and run stock and with zip switched on in several ways. A test counts against zip
# only where it passes stock and fails under zip; the summary ends with "N passed, M failed".
#
#   tests/conformance/run-mpich-suite.sh [--build DIR] [--work DIR] [--source DIR]
#       [--dirs pt2pt,coll,datatype,comm,threads] [--configs stock,zip,...]
#       [--timeout S] [--netemu RATE] [--only NAME,NAME...]
#
# --netemu RATE (root): every rank in a network namespace of its own behind a port of RATE
# (perftest/netemu), so zip sees its peers on other nodes, times the link and decides with policy
# auto as on a cluster; the configurations then are stock and zip-remote unless given.
# --source: an MPICH checkout, or a clone without a work tree, to take test/mpi from (default: a
# shallow clone of MPICH_COMMIT into WORK). Not part of CI: it needs the network and takes 20-40 minutes on 2 cores.
set -u

MPICH_URL=https://github.com/pmodels/mpich
MPICH_COMMIT=6a79bf6575c3b5b41cabbd3d59340634d6f9412d # the suite as checked on 2026-11-29

build=$PWD/build
work=$PWD/build/mpich-suite
source_dir=
dirs=pt2pt,coll,datatype,comm,threads
configs=stock,zip,pml-all,pml-all-ucx,coll-pml-all
limit=120
netemu_rate=
only=
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --work) mkdir -p "$2" && work=$(cd "$2" && pwd); shift 2 ;;
    --source) source_dir=$(cd "$2" && pwd); shift 2 ;;
    --dirs) dirs=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --netemu) netemu_rate=$2; shift 2 ;;
    --only) only=,$2,; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--work DIR] [--source DIR] [--dirs LIST] [--configs LIST] [--timeout S] [--netemu RATE] [--only NAMES]" >&2
       exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$work"
if [ -n "$netemu_rate" ] && [ "$configs" = stock,zip,pml-all,pml-all-ucx,coll-pml-all ]; then
    configs=stock,zip-remote
fi

# --- the suite's sources ---------------------------------------------------------------------
if [ -z "$source_dir" ]; then
    source_dir=$work/mpich
    if [ ! -d "$source_dir/test/mpi" ]; then
        rm -rf "$source_dir"
        git init -q "$source_dir" &&
            git -C "$source_dir" remote add origin "$MPICH_URL" &&
            git -C "$source_dir" sparse-checkout set test/mpi &&
            git -C "$source_dir" fetch -q --depth 1 --filter=blob:none origin "$MPICH_COMMIT" &&
            git -C "$source_dir" checkout -q FETCH_HEAD ||
            { echo "could not fetch MPICH's test suite from $MPICH_URL" >&2; exit 2; }
    fi
fi
if [ ! -d "$source_dir/test/mpi" ] && git -C "$source_dir" rev-parse -q --verify "$MPICH_COMMIT^{commit}" >/dev/null 2>&1; then
    # A clone without a work tree (a mirror): the suite's files at MPICH_COMMIT.
    rm -rf "$work/mpich" && mkdir -p "$work/mpich" &&
        git -C "$source_dir" archive "$MPICH_COMMIT" test/mpi | tar -x -C "$work/mpich" || exit 2
    source_dir=$work/mpich
fi
suite=$source_dir/test/mpi
[ -d "$suite/pt2pt" ] || { echo "no test/mpi in $source_dir" >&2; exit 2; }

# --- building it against Open MPI (what MPICH's configure would write, for this platform) -----
obj=$work/obj
mkdir -p "$obj"
cat > "$obj/mpitestconf.h" <<'EOF'
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_UNISTD_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_INT64_T 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define THREAD_PACKAGE_POSIX 1
EOF
: > "$obj/mtest_mpix.h" # MPICH's MPIX extensions: none in Open MPI
cc_flags=(-O1 -w -I"$obj" -I"$suite/include")
for u in mtest mtest_common mtest_thread run_mpitests; do
    mpicc "${cc_flags[@]}" -c "$suite/util/$u.c" -o "$obj/$u.o" || exit 2
done
common=("$obj/mtest.o" "$obj/mtest_common.o" "$obj/mtest_thread.o")

# One program: with its own main, or with the suite's (tests that define run()).
build_test() { # out extra-flags... -- sources...
    local out=$1 flags=() srcs=()
    shift
    while [ "$1" != -- ]; do flags+=("$1"); shift; done
    shift
    srcs=("$@")
    mpicc "${cc_flags[@]}" "${flags[@]}" "${srcs[@]}" "${common[@]}" -o "$out" -lm -lpthread \
        2>/dev/null ||
        mpicc "${cc_flags[@]}" "${flags[@]}" "${srcs[@]}" "$obj/run_mpitests.o" "${common[@]}" \
            -o "$out" -lm -lpthread 2>/dev/null
}

# dir name -> the suite's directory and test list (threads: its point-to-point part)
suite_dir() { [ "$1" = threads ] && echo "$suite/threads/pt2pt" || echo "$suite/$1"; }
test_list() { [ "$1" = threads ] && echo "$suite/threads/pt2pt/testlist" || echo "$suite/$1/testlist.in"; }

built=0 unbuildable=0
for d in ${dirs//,/ }; do
    src=$(suite_dir "$d")
    mkdir -p "$obj/$d"
    for n in $(grep -v '^#' "$(test_list "$d")" | awk 'NF {print $1}' | sort -u); do
        [ -x "$obj/$d/$n" ] && continue
        # Programs built from shared sources with their own defines (Makefile.am).
        sources=$(sed -n "s/^${n}_SOURCES *= *//p" "$src/Makefile.am")
        defs=$(sed -n "s/^${n}_CPPFLAGS *= *//p" "$src/Makefile.am" | sed 's/\$(AM_CPPFLAGS)//')
        [ -n "$sources" ] || sources=$n.c
        paths=()
        for s in $sources; do paths+=("$src/$s"); done
        [ -f "${paths[0]}" ] || continue
        # shellcheck disable=SC2086 # defs is a list of -D flags
        if build_test "$obj/$d/$n" -I"$src" $defs -- "${paths[@]}"; then
            built=$((built + 1))
        else
            unbuildable=$((unbuildable + 1)) # MPI-4 calls, MPICH's datatype pools, GPU tests
        fi
    done
done
echo "# built $built programs ($unbuildable of the suite need what Open MPI 4.1 or this build lacks)"

# --- the configurations ----------------------------------------------------------------------
ompidir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
path="--mca mca_base_component_path $build/ucx-hooks/.libs:$build/ompi-coll-zip/.libs:$ompidir"
ucx="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self,sm"
pml_all="--mca pml_zip_enable 1 --mca pml_zip_force_local 1 --mca pml_zip_policy always"
pml_all="$pml_all --mca pml_zip_threshold 1 --mca pml_zip_bare_max 0"
coll_all="--mca coll_zip_priority 40 --mca coll_zip_force_local 1 --mca coll_zip_policy always"
coll_all="$coll_all --mca coll_zip_threshold 1"
config_args() {
    case $1 in
    stock) echo "--mca pml ob1" ;;
    # What a user switches on: every default (nothing compressed on one node).
    zip) echo "$path --mca pml ob1,zip --mca pml_zip_enable 1 --mca coll_zip_priority 40" ;;
    # Every message of every size through zip's envelopes, compressed where it shrinks.
    pml-all) echo "$path --mca pml ob1,zip $pml_all" ;;
    pml-all-nodirect) echo "$path --mca pml ob1,zip $pml_all --mca pml_zip_direct_recv 0" ;;
    pml-all-ucx) echo "$path ${ucx/--mca pml ucx/--mca pml ucx,zip} $pml_all" ;;
    # The same under MPI_THREAD_MULTIPLE (Open MPI's MPI_Init gives it with this variable), one
    # thread or not: zip's threaded paths (zip requests over ucx, threaded direct receives over ob1).
    pml-all-mt) echo "$path --mca pml ob1,zip $pml_all -x OMPI_MPI_THREAD_LEVEL=3" ;;
    pml-all-ucx-mt) echo "$path ${ucx/--mca pml ucx/--mca pml ucx,zip} $pml_all -x OMPI_MPI_THREAD_LEVEL=3" ;;
    # Every collective zip has through zip's algorithms, at any size.
    coll-all) echo "$path $coll_all" ;;
    coll-pml-all) echo "$path $coll_all --mca pml ob1,zip $pml_all" ;;
    # The same collectives over pml/ucx, whose requests do not hold the communicator (a
    # non-blocking call on a freed communicator was a use-after-free there only).
    coll-all-ucx) echo "$path $ucx $coll_all" ;;
    # The default policy, auto, told the link is slow (1 Gbit/s) so that it compresses: the
    # ranks' agreements (at barriers, at blocking calls of any size after non-blocking ones),
    # and the routes and samples that follow them, at any size.
    coll-auto) echo "$path --mca coll_zip_priority 40 --mca coll_zip_force_local 1 --mca coll_zip_threshold 1 --mca coll_zip_link_gbps_remote 1" ;;
    # Over netemu: zip as switched on for a cluster (policy auto, peers on other nodes), with
    # thresholds low enough that the tests' messages reach the cost model.
    zip-remote) echo "$path --mca pml ob1,zip --mca pml_zip_enable 1 --mca pml_zip_threshold 64 --mca coll_zip_priority 40 --mca coll_zip_threshold 64" ;;
    *) return 1 ;;
    esac
}

# --- running ---------------------------------------------------------------------------------
here=$(dirname "$0")/../../perftest # netemu
launch() { # np args...: mpirun, or mpirun inside netemu (its pml list through NETEMU_PML)
    local np=$1
    shift
    if [ -z "$netemu_rate" ]; then
        timeout "$limit" mpirun --oversubscribe -np "$np" "$@"
        return
    fi
    local pml=ob1 a=()
    while [ $# -gt 0 ]; do
        if [ "$1" = --mca ] && [ "${2:-}" = pml ]; then
            pml=$3
            shift 3
        else
            a+=("$1")
            shift
        fi
    done
    NETEMU_PML=$pml timeout "$limit" "$here/netemu" run -- --oversubscribe -np "$np" "${a[@]}"
}
if [ -n "$netemu_rate" ]; then
    # A network of our own, so that another netemu user on the host is not disturbed.
    export NETEMU_STATE=${NETEMU_STATE:-/run/netemu-mpich} NETEMU_PREFIX=${NETEMU_PREFIX:-mt}
    "$here/netemu" up --ranks 10 --rate "$netemu_rate" >/dev/null || exit 2
    trap '"$here/netemu" down >/dev/null' EXIT
fi
log=$work/logs
passed=0 failed=0
for d in ${dirs//,/ }; do
    for c in ${configs//,/ }; do
        args=$(config_args "$c") || { echo "unknown configuration $c" >&2; exit 2; }
        mkdir -p "$log/$d.$c"
        grep -v '^#' "$(test_list "$d")" | grep -v 'env=' | awk 'NF' |
            while read -r name np rest; do
                exe=$obj/$d/$name
                [ -x "$exe" ] || continue
                [ -z "$only" ] || [ "${only#*,"$name",}" != "$only" ] || continue
                case " $rest " in *" mem="*) continue ;; esac # > 6 GB of memory
                targs=$(echo "$rest" | tr ' ' '\n' | sed -n 's/^arg=//p' | tr '\n' ' ')
                key=$(echo "$name.$np.$targs" | tr ' =/' '___' | sed 's/_*$//')
                # What fails stock is not run again (xfail ones hang until the timeout).
                if [ "$c" != stock ] && [ -f "$log/$d.stock.txt" ] &&
                    ! grep -q "^PASS $d stock $key\$" "$log/$d.stock.txt"; then
                    continue
                fi
                # shellcheck disable=SC2086 # args and targs are lists of words
                # The suite's own time limit where it gives one (threads: 600 s).
                tl=$(echo "$rest" | tr ' ' '\n' | sed -n 's/^timeLimit=//p')
                [ -n "$tl" ] && [ "$tl" -gt "$limit" ] || tl=$limit
                limit=$tl launch "$np" $args "$exe" $targs > "$log/$d.$c/$key.log" 2>&1 < /dev/null
                rc=$?
                if [ $rc = 0 ] && grep -q "No Errors" "$log/$d.$c/$key.log"; then
                    echo "PASS $d $c $key"
                else
                    echo "FAIL $d $c $key (exit $rc)"
                fi
            done > "$log/$d.$c.txt"
        # A test counts for zip where it passed stock (xfail ones and MPI-4 ones fail there).
        while read -r verdict _ _ key rest; do
            if [ "$c" != stock ] && [ -f "$log/$d.stock.txt" ] &&
                ! grep -q "^PASS $d stock $key\$" "$log/$d.stock.txt"; then
                continue
            fi
            if [ "$verdict" = PASS ]; then
                passed=$((passed + 1))
            elif [ "$c" = stock ]; then
                echo "# fails stock too, not counted: $d $key $rest"
            else
                failed=$((failed + 1))
                echo "FAIL $d $c $key $rest (log: $log/$d.$c/$key.log)"
            fi
        done < "$log/$d.$c.txt"
        echo "# $d $c: $(grep -c '^PASS' "$log/$d.$c.txt") of $(wc -l < "$log/$d.$c.txt") passed"
    done
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
