#!/usr/bin/env bash
# run-under-zip.sh: do real applications compute the same with zip switched on? Builds the six
# mini-apps of perftest/apps/apps.sh, runs each once with stock Open MPI and once per zip
# configuration, and compares the lines of their output that depend only on the computation
# (energies, residual norms, checksums, modularity; not timings), which must be identical:
# zip is lossless, so any difference is a bug. zip's own statistics are kept to show that it
# really compressed (on one machine it would hand every call on: the configurations force
# compression on shared memory).
#
#   perftest/apps/run-under-zip.sh --build BUILD [--out DIR] [--work DIR] [--apps a,b,...]
#                                  [--configs zip,temporal,ucx,ucx-mt] [--clone-from TEMPLATE]
#                                  [--jobs N]
#
#   --build     ompi-zip's build directory (ompi-coll-zip/.libs, ucx-hooks/.libs)
#   --out       logs and the summary (default BUILD/apps-under-zip)
#   --work      sources and builds (default OUT/src; record-corpus.sh's CORPUS.work is reused
#               if given here)
#   --configs   zip: coll/zip and pml/zip (over ob1) compressing every call and message they
#               can (policy always, force_local, thresholds 1 KiB); temporal: the same with
#               temporal coding (pml_zip_temporal auto, coll_zip_alltoallv_temporal auto);
#               ucx: zip as in `zip`, pml/zip in front of pml/ucx; ucx-mt: the same under
#               MPI_THREAD_MULTIPLE (OMPI_MPI_THREAD_LEVEL=3: MPI_Init gives it), where zip's
#               receives take their threaded paths (default: all four)
#   --apps, --clone-from, --jobs: as perftest/msgrec/record-corpus.sh
#
# Prints one line per application and configuration (PASS: identical results, and zip saw
# the traffic; FAIL: results differ, the run failed, or zip saw nothing) and ends with
# `N passed, M failed`. About 20 min on 2 cores for all six, builds included.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=apps.sh
source "$here/apps.sh"

build="" out="" configs="zip,temporal,ucx,ucx-mt"
while (($#)); do
    case $1 in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --configs) configs=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) apps_take_option "$1" "${2-}" || { echo "run-under-zip: unknown option $1" >&2; exit 2; }
           shift 2 ;;
    esac
done
apps_setup_dirs run-under-zip apps-under-zip

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# zip_args CONFIG: the mpirun options of a configuration, one per line.
zip_args() {
    [[ $1 == stock ]] && return 0
    if [[ $1 == ucx* ]]; then
        # Debian's openmpi-mca-params.conf disables pml/ucx; this turns it on over TCP and
        # shared memory.
        printf '%s\n' --mca pml ucx,zip --mca pml_ucx_tls any --mca pml_ucx_devices any \
            -x UCX_TLS=tcp,self,sm
        [[ $1 == ucx-mt ]] && printf '%s\n' -x OMPI_MPI_THREAD_LEVEL=3
    else
        printf '%s\n' --mca pml ob1,zip
    fi
    printf '%s\n' --mca mca_base_component_path "$coll_dir:$pml_dir:$ompi_dir" \
        --mca pml_zip_enable 1 --mca pml_zip_force_local 1 \
        --mca pml_zip_policy always --mca pml_zip_threshold 1024 --mca pml_zip_stats 1 \
        --mca coll_zip_priority 40 --mca coll_zip_force_local 1 --mca coll_zip_policy always \
        --mca coll_zip_threshold 1024 --mca coll_zip_stats 1
    [[ $1 == temporal ]] && printf '%s\n' --mca pml_zip_temporal auto \
        --mca coll_zip_alltoallv_temporal auto
    return 0
}

# run APP CONFIG: one run; its output in $out/APP.CONFIG.log, its results in .results.
run() {
    local app=$1 config=$2 cmd args log=$out/$1.$2.log
    mapfile -t cmd < <(app_cmd "$app")
    mapfile -t args < <(zip_args "$config")
    app_clean_outputs "$app"
    app_run "$app" "$log" "$out/$app.$config.results" \
        mpirun -np "$(app_np "$app")" --oversubscribe --bind-to none -x OMP_NUM_THREADS=1 \
        "${args[@]}" "${cmd[@]}" && [[ -s $out/$app.$config.results ]]
}

# zip_counts LOG: "framed compressed" from zip's finalize statistics: the messages pml/zip
# framed plus the collective calls coll/zip saw ("pml:zip stats ... sent N zip messages (M
# compressed)"; the "coll:zip   op calls fallback compressed ..." rows).
zip_counts() {
    awk '/pml:zip stats/ && match($0, /sent [0-9]+ zip/) { f += substr($0, RSTART + 5, RLENGTH - 9) }
         /pml:zip stats/ && match($0, /\([0-9]+ compressed\)/) {
             c += substr($0, RSTART + 1, RLENGTH - 13) }
         { for (i = 1; i + 4 <= NF; ++i)
               if ($i == "coll:zip" && $(i + 2) ~ /^[0-9]+$/) { f += $(i + 2); c += $(i + 4); break } }
         END { print f + 0, c + 0 }' "$1"
}

passed=0 failed=0
IFS=, read -ra list <<<"${apps:-$APPS_ALL}"
IFS=, read -ra cfgs <<<"$configs"
for app in "${list[@]}"; do
    app_source "$app" >/dev/null || { echo "run-under-zip: unknown application $app" >&2; exit 2; }
    if ! app_build "$app"; then
        echo "FAIL $app: build (log: $(app_dir "$app")/build.log)"
        failed=$((failed + ${#cfgs[@]}))
        continue
    fi
    if ! run "$app" stock; then
        echo "FAIL $app: the stock run failed or printed no results ($out/$app.stock.log)"
        failed=$((failed + ${#cfgs[@]}))
        continue
    fi
    for config in "${cfgs[@]}"; do
        if ! run "$app" "$config"; then
            echo "FAIL $app $config: the run failed or printed no results ($out/$app.$config.log)"
            failed=$((failed + 1))
        elif ! cmp -s "$out/$app.stock.results" "$out/$app.$config.results"; then
            echo "FAIL $app $config: results differ from stock:"
            diff "$out/$app.stock.results" "$out/$app.$config.results" | head -10
            failed=$((failed + 1))
        else
            read -r framed comp < <(zip_counts "$out/$app.$config.log")
            if ((framed == 0)); then
                echo "FAIL $app $config: zip saw no message or call ($out/$app.$config.log)"
                failed=$((failed + 1))
                continue
            fi
            # Payloads of types zip does not compress (CoMD's MPI_BYTE records) are framed
            # and sent raw: still a check that zip is in the path and changes nothing.
            echo "PASS $app $config: $(wc -l <"$out/$app.$config.results") result lines identical;" \
                "zip framed $framed messages and calls, compressed $comp"
            passed=$((passed + 1))
        fi
    done
done
echo "$passed passed, $failed failed"
((failed == 0))
