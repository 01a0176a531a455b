#!/usr/bin/env bash
# pml-instructions.sh: instructions per message pair (MPI_Irecv + send + wait, or a persistent
# receive and send started together, one rank to itself over pml/ob1's self BTL) with stock Open MPI, with pml/zip, and with pml/zip's direct
# receives switched off, counted by callgrind in perftest/pml_selfmsg.c's msg_loop.
#
#   perftest/pml-instructions.sh [--threads] [--ucx] BUILD [BYTES...]  (default sizes: 8 1024)
#
# --threads: the program asks for MPI_THREAD_MULTIPLE (one thread still does everything).
# --ucx: over pml/ucx (UCX's self and shared-memory transports) instead of ob1's self BTL.
#
# BUILD is ompi-zip's build directory (its ucx-hooks/.libs holds mca_pml_zip.so). Needs valgrind
# (apt-get install valgrind). About 10 s per size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
threads= pml=ob1 pml_opts=()
while [[ ${1:-} == --* ]]; do
    case $1 in
        --threads) threads=--threads ;;
        --ucx) pml=ucx pml_opts=(--mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=self,sm) ;;
        *) echo "pml-instructions: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
build=$(cd "${1:?usage: pml-instructions.sh BUILD [BYTES...]}" && pwd)
shift
sizes=("${@:-8}")
(($# == 0)) && sizes=(8 1024)
command -v valgrind >/dev/null || { echo "pml-instructions: needs valgrind" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ompidir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -g -o "$work/pml_selfmsg" "$here/pml_selfmsg.c"
n=20000
zip="--mca mca_base_component_path $build/ucx-hooks/.libs:$ompidir --mca pml $pml,zip --mca pml_zip_enable 1"
printf '%-10s %6s %10s %10s %10s\n' send bytes stock zip zip-nodirect
for blocking in "" --blocking --persistent; do
    for bytes in "${sizes[@]}"; do
        row=()
        for cfg in stock zip nodirect; do
            case $cfg in
                stock) args="--mca pml $pml" ;;
                zip) args=$zip ;;
                nodirect) args="$zip --mca pml_zip_direct_recv 0" ;;
            esac
            # shellcheck disable=SC2086 # the options are words
            mpirun -np 1 $args "${pml_opts[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/cg" \
                --toggle-collect=msg_loop "$work/pml_selfmsg" $n "$bytes" $blocking $threads \
                >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
            total=$(grep -o 'Collected : [0-9]*' "$work/log" | awk '{ print $3 }')
            # msg_loop ran n times plus pml_selfmsg's 100 of warm-up
            row+=("$(awk -v t="$total" -v n=$((n + 100)) 'BEGIN { printf "%.0f", t / n }')")
        done
        send=MPI_Isend
        [[ $blocking == --blocking ]] && send=MPI_Send
        [[ $blocking == --persistent ]] && send=MPI_Startall
        printf '%-10s %6s %10s %10s %10s\n' "$send" "$bytes" "${row[@]}"
    done
done
