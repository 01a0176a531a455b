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
# MSGREC_MAX_BYTES, 64 MiB). 8 min on the loaded 2-core VM (2026-11-27), builds included.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=../apps/apps.sh
source "$here/../apps/apps.sh"

build="" out=""
while (($#)); do
    case $1 in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) apps_take_option "$1" "${2-}" || { echo "record-corpus: unknown option $1" >&2; exit 2; }
           shift 2 ;;
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

step() { printf '\n=== record-corpus: %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

record() {
    local app=$1 cmd
    app_build "$app" || return 1
    mapfile -t cmd < <(app_cmd "$app")
    cd "$(app_dir "$app")" || return 1
    mpirun_rec "$app" "$(app_every "$app")" "$(app_np "$app")" -- "${cmd[@]}" >run.log 2>&1
}

failed=()
IFS=, read -ra list <<<"${apps:-$APPS_ALL}"
for app in "${list[@]}"; do
    app_source "$app" >/dev/null || { echo "record-corpus: unknown application $app" >&2; exit 2; }
    step "$app"
    start=$SECONDS
    if (record "$app"); then
        idx=$(ls "$out/$app"/*.idx 2>/dev/null | wc -l)
        bytes=$(du -sb "$out/$app" | cut -f1)
        echo "record-corpus: $app: $idx ranks, $bytes bytes, $((SECONDS - start)) s"
        if ((idx == 0)) || grep -L '^# end' "$out/$app"/*.idx | grep -q .; then
            echo "record-corpus: $app: no index, or one without its end line (a rank died)" >&2
            failed+=("$app")
        fi
    else
        echo "record-corpus: $app failed; logs in $(app_dir "$app") (build.log, run.log)" >&2
        failed+=("$app")
    fi
done
((${#failed[@]} == 0)) || { echo "record-corpus: failed: ${failed[*]}" >&2; exit 1; }
echo "record-corpus: corpus in $out"
