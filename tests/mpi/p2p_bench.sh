#!/usr/bin/env bash
# Ping-pong and bandwidth of pml/zip against stock ob1 over perftest/netemu's emulated network
# (an emulated network must be up: perftest/netemu up --ranks 2 --rate 1gbit). netemu's own
# "run" hard-codes --mca pml ob1, which Open MPI will not let us override on the same command
# line, so this runs mpirun the way netemu does, with the pml list we need.
#
# Usage: p2p_bench.sh <p2p_pingpong binary> <dir with mca_pml_zip.so> [sizes...]
# Prints the p2p_pingpong table for "ob1" and for "ob1+zip", each run ROUNDS times (default 3)
# alternately, so that both see the same background load.
set -eu
prog=$1 pmldir=$2
shift 2
STATE=${NETEMU_STATE:-/run/netemu}
PREFIX=${NETEMU_PREFIX:-nz}
rounds=${ROUNDS:-3}
# shellcheck source=/dev/null
source "$STATE/env"
[ "$MODE" = netns ] || { echo "p2p_bench.sh needs netemu's netns mode" >&2; exit 1; }
ompidir=$(dirname "$(find /usr/lib /usr/local/lib -name mca_pml_ob1.so 2>/dev/null | head -1)")
net="$SUBNET.0/24"
launch() { # pml-list extra-args...
    local pml=$1
    shift
    ip netns exec "$PREFIX-br" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        PMIX_MCA_ptl_tcp_remote_connections=1 PMIX_MCA_ptl_tcp_if_include="$net" \
        timeout 900 mpirun --hostfile "$STATE/hostfile" --mca plm_rsh_agent "$STATE/agent" \
        --mca mca_base_component_path "$pmldir:$ompidir" \
        --mca pml "$pml" --mca btl tcp,self --mca btl_tcp_if_include "$net" \
        --mca oob_tcp_if_include "$net" --mca mpi_yield_when_idle 1 -np 2 "$@"
}
for r in $(seq "$rounds"); do
    echo "== round $r: ob1 ($RATE)"
    launch ob1 "$prog" "$@"
    echo "== round $r: ob1+zip ($RATE)"
    launch ob1,zip --mca pml_zip_enable 1 "$prog" "$@"
done
