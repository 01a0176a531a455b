#!/usr/bin/env bash
# time-under-zip.sh: how long do real applications take with zip switched on, as a user
# switches it on, against stock Open MPI in the same session? Runs the mini-apps of
# perftest/apps/apps.sh over netemu's emulated network (one rank per namespace, ob1 over TCP) or
# on one node (shared memory), stock and each zip configuration in turn, round after round (the
# order rotates each round, so drift of a noisy host falls on every configuration alike), and
# reports each configuration's median wall time against stock's. Every zip run's results must
# equal stock's (run-under-zip.sh's comparison): a run that differs fails.
#
#   perftest/apps/time-under-zip.sh --build BUILD [--out DIR] [--work DIR] [--apps a,b,...]
#       [--configs auto,always,observe] [--rounds N] [--net netemu|shm] [--rate 1gbit]
#
#   --configs  auto: coll/zip and pml/zip switched on with every other setting at its default
#              (policy auto: zip measures the link and the codec and decides); always: the same
#              with policy always (compress whatever shrinks); never: policy never (zip loaded
#              and idle: what it costs to have it installed but off); observe: policy observe (zip
#              hands everything on and counts what auto would have saved). Default auto,always.
#   --rounds   rounds of every app and configuration (default 3)
#   --net      netemu (default): perftest/netemu up with one rank per node at --rate (the
#              script brings it up and down; it needs root); shm: one node, shared memory,
#              with every peer counted as remote (force_local): a link faster than the codec,
#              where zip under auto must find raw faster by itself
#   --work     the apps' sources and builds (built there if missing; record-corpus.sh's
#              CORPUS.work can be reused)
#   --apps, --clone-from, --jobs: as perftest/msgrec/record-corpus.sh
#
# Writes OUT/times.csv (app,config,round,seconds) and prints, per app and configuration, the
# median seconds, stock's median over it (above 1: zip faster) and the spread of that ratio
# over the rounds, then `N passed, M failed` (a run passes when it ends and its results equal
# stock's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

# shellcheck source=apps.sh
source "$here/apps.sh"

build="" out="" configs="auto,always" rounds=3 net=netemu rate=1gbit
while (($#)); do
    case $1 in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --configs) configs=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --net) net=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) apps_take_option "$1" "${2-}" || { echo "time-under-zip: unknown option $1" >&2; exit 2; }
           shift 2 ;;
    esac
done
apps_setup_dirs time-under-zip apps-timed
[[ $net == netemu || $net == shm ]] || { echo "time-under-zip: --net netemu or shm" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "time-under-zip: --rounds takes a count" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

IFS=, read -ra list <<<"${apps:-$APPS_ALL}"
IFS=, read -ra cfgs <<<"$configs"
for c in "${cfgs[@]}"; do
    [[ $c == auto || $c == always || $c == never || $c == observe ]] ||
        { echo "time-under-zip: unknown configuration $c" >&2; exit 2; }
done

# zip_args CONFIG: mpirun options after the pml (one per line). The stats are printed at
# finalize, after the application's own timers.
zip_args() {
    [[ $1 == stock ]] && return 0
    printf '%s\n' --mca mca_base_component_path "$coll_dir:$pml_dir:$ompi_dir" \
        --mca coll_zip_priority 40 --mca pml_zip_enable 1 --mca coll_zip_stats 1 \
        --mca pml_zip_stats 1
    # One node stands in for a link faster than the codec (InfiniBand): zip must count on-node
    # peers as remote to act at all, and under auto find by itself that raw is faster.
    [[ $net == shm ]] && printf '%s\n' --mca coll_zip_force_local 1 --mca pml_zip_force_local 1
    [[ $1 == auto ]] || printf '%s\n' --mca coll_zip_policy "$1" --mca pml_zip_policy "$1"
    return 0
}

# launch CONFIG NP ARGS...: mpirun of one run, on the chosen network.
launch() {
    local config=$1 np=$2
    shift 2
    local pml=ob1
    [[ $config != stock ]] && pml=ob1,zip
    if [[ $net == netemu ]]; then
        NETEMU_PML=$pml "$top/perftest/netemu" run -- -np "$np" -x OMP_NUM_THREADS=1 "$@"
    else
        mpirun -np "$np" --oversubscribe --bind-to none --mca pml "$pml" -x OMP_NUM_THREADS=1 "$@"
    fi
}

# run APP CONFIG ROUND: one timed run; appends to times.csv; fails when the run fails or its
# results differ from stock's (stock's own first run sets them).
run() {
    local app=$1 config=$2 round=$3 cmd args log=$out/$1.$2.$3.log t0 t1
    mapfile -t cmd < <(app_cmd "$app")
    mapfile -t args < <(zip_args "$config")
    app_clean_outputs "$app"
    t0=$(date +%s.%N)
    app_run "$app" "$log" "$out/$app.$config.$round.results" \
        launch "$config" "$(app_np "$app")" "${args[@]}" "${cmd[@]}" || return 1
    t1=$(date +%s.%N)
    [[ -s $out/$app.$config.$round.results ]] || return 1
    [[ -s $out/$app.results ]] || cp "$out/$app.$config.$round.results" "$out/$app.results"
    cmp -s "$out/$app.results" "$out/$app.$config.$round.results" || return 1
    awk -v a="$app" -v c="$config" -v r="$round" -v t0="$t0" -v t1="$t1" \
        'BEGIN { printf "%s,%s,%d,%.3f\n", a, c, r, t1 - t0 }' >>"$out/times.csv"
}

for app in "${list[@]}"; do
    app_source "$app" >/dev/null || { echo "time-under-zip: unknown application $app" >&2; exit 2; }
    if [[ ! -x $(app_dir "$app")/$(app_cmd "$app" | head -1) ]] && ! app_build "$app"; then
        echo "time-under-zip: $app does not build (log: $(app_dir "$app")/build.log)" >&2
        exit 1
    fi
    rm -f "$out/$app.results"
done

if [[ $net == netemu ]]; then
    most=0
    for app in "${list[@]}"; do (($(app_np "$app") > most)) && most=$(app_np "$app"); done
    "$top/perftest/netemu" up --ranks "$most" --rate "$rate" >"$out/netemu.log" 2>&1
    trap '"$top/perftest/netemu" down >>"$out/netemu.log" 2>&1' EXIT
fi

echo "app,config,round,seconds" >"$out/times.csv"
passed=0 failed=0
order=(stock "${cfgs[@]}")
for ((round = 1; round <= rounds; ++round)); do
    for app in "${list[@]}"; do
        # stock first in round 1 (its results are the reference), then rotated.
        n=${#order[@]}
        for ((i = 0; i < n; ++i)); do
            config=${order[(i + round - 1) % n]}
            if run "$app" "$config" "$round"; then
                passed=$((passed + 1))
            else
                echo "FAIL $app $config round $round: the run failed or its results differ" \
                    "from stock's ($out/$app.$config.$round.log)"
                failed=$((failed + 1))
            fi
        done
    done
done

# Per app and configuration: median seconds; stock median / config median; per-round ratios'
# range.
awk -F, 'NR > 1 { t[$1 "," $2] = t[$1 "," $2] " " $4; r[$1 "," $2 "," $3] = $4; app[$1] = 1;
                  cfg[$2] = 1; if ($3 > nr) nr = $3 }
    function median(s,   a, n, i, j, x) {
        n = split(s, a, " ")
        for (i = 2; i <= n; ++i) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; --j) a[j + 1] = a[j]; a[j + 1] = x }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
        printf "%-11s %-8s %9s %13s %s\n", "app", "config", "median_s", "stock/config", "per-round range"
        for (a in app) for (c in cfg) {
            if (!((a "," c) in t)) continue
            m = median(t[a "," c]); s = median(t[a ",stock"])
            lo = 1e9; hi = 0
            for (k = 1; k <= nr; ++k)
                if ((a "," c "," k) in r && (a ",stock," k) in r) {
                    x = r[a ",stock," k] / r[a "," c "," k]; if (x < lo) lo = x; if (x > hi) hi = x
                }
            printf "%-11s %-8s %9.2f %13.3f %.3f-%.3f\n", a, c, m, s / m, lo, hi
        }
    }' "$out/times.csv" | (read -r head; echo "$head"; sort) | tee "$out/summary.txt"
echo "$passed passed, $failed failed"
((failed == 0))
