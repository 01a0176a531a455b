#!/usr/bin/env bash
# Ping-pong and bandwidth of pml/zip against stock ob1 over perftest/netemu's emulated network
# (an emulated network must be up: perftest/netemu up --ranks 2 --rate 1gbit). netemu's own
# "run" hard-codes --mca pml ob1, which Open MPI will not let us override on the same command
# line, so this runs mpirun the way netemu does, with the pml list we need.
#
# Usage: [BASE_PML=ob1|ucx] p2p_bench.sh <p2p_pingpong binary> <dir with mca_pml_zip.so> [sizes...]
# Prints the p2p_pingpong table for "$BASE_PML" and for "$BASE_PML+zip", each run ROUNDS times
# (default 3) alternately, so that both see the same background load. pml/ucx is run over its
# TCP transport on the namespaces' eth0 (the shaped ports).
set -eu
prog=$1 pmldir=$2
shift 2
STATE=${NETEMU_STATE:-/run/netemu}
PREFIX=${NETEMU_PREFIX:-nz}
rounds=${ROUNDS:-3}
base=${BASE_PML:-ob1}
# shellcheck source=/dev/null
source "$STATE/env"
[ "$MODE" = netns ] || { echo "p2p_bench.sh needs netemu's netns mode" >&2; exit 1; }
ompidir=$(dirname "$(find /usr/lib /usr/local/lib -name mca_pml_ob1.so 2>/dev/null | head -1)")
net="$SUBNET.0/24"
if [ "$base" = ucx ]; then
    transport=(--mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self
               -x UCX_NET_DEVICES=eth0 --mca btl self)
else
    transport=(--mca btl tcp,self --mca btl_tcp_if_include "$net")
fi
launch() { # pml-list extra-args...
    local pml=$1
    shift
    ip netns exec "$PREFIX-br" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        PMIX_MCA_ptl_tcp_remote_connections=1 PMIX_MCA_ptl_tcp_if_include="$net" \
        timeout 900 mpirun --hostfile "$STATE/hostfile" --mca plm_rsh_agent "$STATE/agent" \
        --mca mca_base_component_path "$pmldir:$ompidir" \
        --mca pml "$pml" "${transport[@]}" \
        --mca oob_tcp_if_include "$net" --mca mpi_yield_when_idle 1 -np 2 "$@"
}
for r in $(seq "$rounds"); do
    echo "== round $r: $base ($RATE)"
    launch "$base" "$prog" "$@"
    echo "== round $r: $base+zip ($RATE)"
    launch "$base,zip" --mca pml_zip_enable 1 "$prog" "$@"
done
