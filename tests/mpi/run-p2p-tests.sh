#!/usr/bin/env bash
# pml/zip integration tests under mpirun: every p2p_* test with stock Open MPI (baseline), with
# zip in front of ob1 and in front of pml/ucx, 2-4 ranks; the MPI rules of p2p_semantics, one-sided
# communication over osc/pt2pt (p2p_osc), p2p_probe_finalize and inter-communicators
# (p2p_intercomm), one line per case; then the checks of how the component loads (which --mca
# pml lists open it), the per-communicator switch and the parameters.
# One line per run: "PASS: name" / "FAIL: name" (or "SKIP: name"); exit status is the number of
# failures (capped at 100).
#
# Usage: run-p2p-tests.sh [component dir]
#   component dir: directory holding mca_pml_zip.so (default: $ZIP_PML_DIR, else
#   $BUILD_DIR/ucx-hooks/.libs, else the libtool output ucx-hooks/.libs in this source tree; if
#   that has none, the component is built by hand into a temp dir).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
pmldir=${1:-${ZIP_PML_DIR:-$(built_component_dir ucx-hooks)}}
ompidir=$(ompi_component_dir)
limit=${ZIP_TEST_TIMEOUT:-120}
ompi_inc=$(mpicc --showme:incdirs | tr ' ' '\n' | grep -v '/openmpi$' | head -n 1)

require_component "$ompidir/mca_pml_ob1.so" \
    "no Open MPI component directory; set OMPI_COMPONENT_DIR"
start_runner p2p-tests

# --- the codec engine and the data sets, from the Autotools build or compiled here -----------
static_lib() { # name libtool-archive-dir sources...
    local name=$1 dir=$2
    shift 2
    if [ -f "$dir/.libs/$name.a" ]; then
        echo "$dir/.libs/$name.a"
        return
    fi
    mkdir -p "$bin/$name"
    for f in "$@"; do
        g++ -std=c++20 -O2 -fPIC -ffp-contract=off -I"$top/codecs/include" -I"$top/codecs/src" \
            -c "$f" -o "$bin/$name/$(basename "$f" .cpp).o" || return 1
    done
    ar rcs "$bin/$name.a" "$bin/$name"/*.o && echo "$bin/$name.a"
}
datalib=$(static_lib libzipdata "$top/perftest/data" \
    $(ls "$top"/perftest/data/*.cpp | grep -v zipdata-gen)) || { echo "FAIL: build libzipdata"; exit 1; }

if [ ! -f "$pmldir/mca_pml_zip.so" ]; then
    codeclib=$(static_lib libzipcodec "$top/codecs" "$top"/codecs/src/*.cpp) ||
        { echo "FAIL: build libzipcodec"; exit 1; }
    pmldir=$bin/pml
    mkdir -p "$pmldir/obj"
    ok=0
    for f in "$top"/ucx-hooks/*.c "$top"/common/*.c; do
        gcc -O2 -g -fPIC -mcx16 -Wall -Wextra -std=gnu11 -I"$ompi_inc" -I"$ompi_inc/openmpi" \
            -I"$top/codecs/include" -I"$top/common" -c "$f" -o "$pmldir/obj/$(basename "$f" .c).o" \
            2>>"$bin/cc.log" || ok=1
    done
    for f in "$top"/common/*.cpp; do # libzipcommon: no MPI
        g++ -std=c++20 -O2 -g -fPIC -Wall -Wextra -c "$f" \
            -o "$pmldir/obj/$(basename "$f" .cpp).o" 2>>"$bin/cc.log" || ok=1
    done
    [ $ok = 0 ] && g++ -shared -o "$pmldir/mca_pml_zip.so" "$pmldir"/obj/*.o "$codeclib" \
        $(mpicc --showme:link) -lopen-pal -llz4 -lzstd -lxxhash -Wl,--no-undefined 2>>"$bin/cc.log" || ok=1
    report "build mca_pml_zip.so by hand" $ok "$bin/cc.log"
    [ $ok = 0 ] || exit 1
fi

tests="basic nonblocking probe persistent cancel threads info records"
# Programs of named cases (one mpirun per case below) and the finalize check.
case_tests="semantics osc probe_finalize link_hint irecv_link temporal coll_link intercomm small_frames soak gpu"
for t in $tests $case_tests; do
    if ! mpicc -O2 -Wall -Wextra -Werror -pthread -I"$top/perftest/data" -o "$bin/p2p_$t" \
        "$here/p2p_$t.c" "$datalib" -lstdc++ -lm 2>"$bin/cc.log"; then
        report "build p2p_$t" 1 "$bin/cc.log"
    fi
done

# p2p_nbc_tags sets a communicator's non-blocking tag counter: Open MPI's internal headers.
if ! mpicc -O2 -Wall -Wextra -Werror -pthread -mcx16 -I"$ompi_inc" -I"$ompi_inc/openmpi" \
    -I"$top/perftest/data" -o "$bin/p2p_nbc_tags" "$here/p2p_nbc_tags.c" "$datalib" -lstdc++ -lm \
    2>"$bin/cc.log"; then
    report "build p2p_nbc_tags" 1 "$bin/cc.log"
fi

path="--mca mca_base_component_path $pmldir:$ompidir"
ucx_opts="--mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self,sm"
declare -A cfg
cfg[ob1]="$path --mca pml ob1"
cfg[ucx]="$path --mca pml ucx $ucx_opts"
# All ranks share this machine: force_local judges peers on this node like remote ones, and
# policy "always" compresses whatever shrinks (policy "auto" would rightly find shared memory
# faster than the codec and send everything raw: the ob1+zip+auto configuration).
zip_on="--mca pml_zip_enable 1 --mca pml_zip_force_local 1 --mca pml_zip_policy always"
cfg[ob1+zip]="$path --mca pml ob1,zip $zip_on"
cfg[ucx+zip]="$path --mca pml ucx,zip $ucx_opts $zip_on"
# A threshold of 1 KiB sends every float/double message but the tiny ones compressed.
cfg[ob1+zip+lowthreshold]="$path --mca pml ob1,zip $zip_on --mca pml_zip_threshold 1024"
# Same-node peers without force_local: every message raw.
cfg[ob1+zip+local]="$path --mca pml ob1,zip --mca pml_zip_enable 1"
cfg[ucx+zip+local]="$path --mca pml ucx,zip $ucx_opts --mca pml_zip_enable 1"
# The default policy, deciding from measured speeds (here: raw, shared memory is fast).
cfg[ob1+zip+auto]="$path --mca pml ob1,zip --mca pml_zip_enable 1 --mca pml_zip_force_local 1"

for t in $tests; do
    [ -x "$bin/p2p_$t" ] || continue
    for c in ob1 ucx ob1+zip ucx+zip; do
        for np in 2 4; do
            run "p2p_$t np=$np pml=$c" "p2p_$t" -np $np --oversubscribe ${cfg[$c]} "$bin/p2p_$t"
        done
    done
    run "p2p_$t np=3 pml=ob1+zip+lowthreshold" "p2p_$t" -np 3 --oversubscribe \
        ${cfg[ob1+zip+lowthreshold]} "$bin/p2p_$t"
    run "p2p_$t np=2 pml=ob1+zip (same node, raw)" "p2p_$t" -np 2 ${cfg[ob1+zip+local]} \
        "$bin/p2p_$t"
    run "p2p_$t np=2 pml=ucx+zip (same node, raw)" "p2p_$t" -np 2 ${cfg[ucx+zip+local]} \
        "$bin/p2p_$t"
    run "p2p_$t np=2 pml=ob1+zip+auto" "p2p_$t" -np 2 ${cfg[ob1+zip+auto]} "$bin/p2p_$t"
done
for codec in fpc zstd lz4; do
    run "p2p_basic np=2 pml=ob1+zip codec=$codec" p2p_basic -np 2 ${cfg[ob1+zip]} \
        --mca pml_zip_codec $codec "$bin/p2p_basic"
done

# The randomized soak (p2p_soak.c): every send mode against every receive and probe, wildcards,
# larger buffers, derived types, policies by Info; every byte and status checked. Stock as the
# control, then pml/zip over ob1 and ucx, with a 1 KiB threshold, envelope framing for every
# message (bare_max 0), temporal streams and policy auto.
if [ -x "$bin/p2p_soak" ]; then
    seed=20
    for c in ob1 ucx ob1+zip ucx+zip ob1+zip+lowthreshold ob1+zip+auto; do
        for np in 2 3 4; do
            seed=$((seed + 1))
            run "p2p_soak np=$np pml=$c seed=$seed" p2p_soak -np $np --oversubscribe ${cfg[$c]} \
                "$bin/p2p_soak" --seed $seed
        done
    done
    run "p2p_soak np=3 pml=ob1+zip+lowthreshold bare_max=0" p2p_soak -np 3 --oversubscribe \
        ${cfg[ob1+zip+lowthreshold]} --mca pml_zip_bare_max 0 "$bin/p2p_soak" --seed 41
    run "p2p_soak np=3 pml=ucx+zip threshold=1024 temporal=auto" p2p_soak -np 3 --oversubscribe \
        ${cfg[ucx+zip]} --mca pml_zip_threshold 1024 --mca pml_zip_temporal auto \
        "$bin/p2p_soak" --seed 42
    # Three threads per rank at once (MPI_THREAD_MULTIPLE), each its own soak on its own
    # communicators: pml/zip's shared state under concurrent sends, receives and probes.
    for c in ob1 ob1+zip ucx+zip ob1+zip+lowthreshold; do
        run "p2p_soak np=3 threads=3 pml=$c seed=45" p2p_soak -np 3 --oversubscribe ${cfg[$c]} \
            "$bin/p2p_soak" --seed 45 --threads 3 --steps 60
    done
    # Over an emulated cluster network (perftest/netemu: TCP between namespaces, 1 Gbit/s
    # ports): policy auto times the link and decides per message; two ranks per node, so node
    # mates get raw messages and the others compressed ones, and with envelopes for all.
    if netemu_up zp 10.197.0 4 2 1gbit; then
        NETEMU_PML=ob1,zip run "p2p_soak netemu 2x2 ranks 1gbit pml=ob1+zip auto seed=43" \
            p2p_soak -np 4 $path --mca pml_zip_enable 1 "$bin/p2p_soak" --seed 43
        NETEMU_PML=ob1,zip run "p2p_soak netemu 2x2 ranks 1gbit pml=ob1+zip bare_max=0 seed=44" \
            p2p_soak -np 4 $path --mca pml_zip_enable 1 --mca pml_zip_threshold 1024 \
            --mca pml_zip_bare_max 0 "$bin/p2p_soak" --seed 44
        netemu_down
    else
        echo "SKIP: p2p_soak over netemu (no emulated network here)"
    fi
fi

# --- MPI rules a PML must keep: one mpirun per case, each its own line ----------------------------
# p2p_semantics <case> / p2p_osc <case> run one case; a case that hangs fails on its own deadline
# (alarm, a few seconds; PT_CASE_SECONDS=N lengthens every one, e.g. under a debugger).
# iprobe_local sleeps 3 s by design: run on the four main configurations only.
semantics_cases="probe_ssend probe_order probe_order_long recv_untouched c2f_reuse free_active status_error type_mismatch info_in_flight truncate
    sendrecv_replace zero_length iprobe_local shared_buffer"
if [ -x "$bin/p2p_semantics" ]; then
    for c in ob1 ucx ob1+zip ucx+zip ob1+zip+lowthreshold ob1+zip+local ob1+zip+auto; do
        for k in $semantics_cases; do
            case "$k/$c" in iprobe_local/*+lowthreshold | iprobe_local/*+local | iprobe_local/*+auto) continue ;; esac
            run "p2p_semantics $k np=2 pml=$c" "p2p_semantics $k (" -np 2 ${cfg[$c]} \
                "$bin/p2p_semantics" "$k"
        done
    done
fi
# Raw payloads up to 64 KiB go bare (pml_zip_bare_max); with 0 every message goes as envelope +
# payload: that path keeps working, over ucx as well.
if [ -x "$bin/p2p_semantics" ]; then
    for k in probe_order probe_order_long recv_untouched type_mismatch truncate shared_buffer; do
        run "p2p_semantics $k np=2 pml=ucx+zip bare_max=0" "p2p_semantics $k (" -np 2 \
            ${cfg[ucx+zip+local]} --mca pml_zip_bare_max 0 "$bin/p2p_semantics" "$k"
    done
fi
# Direct receives off (pml_zip_direct_recv 0): every MPI_Irecv is a zip request again, the path
# MPI_THREAD_MULTIPLE programs take; it keeps working.
if [ -x "$bin/p2p_semantics" ]; then
    for k in recv_untouched free_active truncate type_mismatch shared_buffer; do
        run "p2p_semantics $k np=2 pml=ob1+zip direct_recv=0" "p2p_semantics $k (" -np 2 \
            ${cfg[ob1+zip]} --mca pml_zip_direct_recv 0 "$bin/p2p_semantics" "$k"
    done
fi
# MPI_THREAD_MULTIPLE, four threads per rank receiving into one buffer, every message an
# envelope: each receive completes with its own status (before, one took another's envelope
# and waited for ever, or completed as a 14-byte message).
if [ -x "$bin/p2p_threads" ]; then
    for c in ob1+zip ucx+zip; do
        run "p2p_threads shared_buffer np=2 pml=$c bare_max=0" "p2p_threads shared_buffer" \
            -np 2 --oversubscribe ${cfg[$c]} --mca pml_zip_threshold 1 --mca pml_zip_bare_max 0 \
            "$bin/p2p_threads" shared_buffer
    done
fi
# The same programs under MPI_THREAD_MULTIPLE (OMPI_MPI_THREAD_LEVEL=3 makes MPI_Init give it),
# every message an envelope: zip then takes its paths for threaded programs (MPI_Irecv posted
# inactive, its callback attached, then started over ob1; posted, given its callback and fenced
# over ucx; receives of up to 4 KiB landing in zip's own buffer).
mt="-x OMPI_MPI_THREAD_LEVEL=3 --mca pml_zip_threshold 1 --mca pml_zip_bare_max 0"
for t in basic nonblocking probe persistent cancel records; do
    [ -x "$bin/p2p_$t" ] &&
        run "p2p_$t np=2 pml=ob1+zip bare_max=0 MPI_THREAD_MULTIPLE" "p2p_$t" -np 2 \
            ${cfg[ob1+zip]} $mt "$bin/p2p_$t"
done
if [ -x "$bin/p2p_semantics" ]; then
    for k in $semantics_cases; do
        [ "$k" = iprobe_local ] && continue
        run "p2p_semantics $k np=2 pml=ob1+zip bare_max=0 MPI_THREAD_MULTIPLE" \
            "p2p_semantics $k (" -np 2 ${cfg[ob1+zip]} $mt "$bin/p2p_semantics" "$k"
    done
fi
# Over ucx too: there a threaded MPI_Irecv is pml/ucx's own request, posted with pml/ucx's irecv,
# given zip's callback and fenced (pml_zip_ucx_fence.c).
for t in nonblocking cancel records; do
    [ -x "$bin/p2p_$t" ] &&
        run "p2p_$t np=2 pml=ucx+zip bare_max=0 MPI_THREAD_MULTIPLE" "p2p_$t" -np 2 \
            ${cfg[ucx+zip]} $mt "$bin/p2p_$t"
done
if [ -x "$bin/p2p_semantics" ]; then
    for k in free_active truncate recv_untouched zero_length type_mismatch; do
        run "p2p_semantics $k np=2 pml=ucx+zip bare_max=0 MPI_THREAD_MULTIPLE" \
            "p2p_semantics $k (" -np 2 ${cfg[ucx+zip]} $mt "$bin/p2p_semantics" "$k"
    done
fi
# ...but never through pml/ucx's persistent start, which loses completions made by another
# thread while it starts (pml_zip_direct.c), and with the fence instead: a shim counts the UCP
# call only that start makes and zip's fences, with four threads per rank receiving small
# messages in windows of MPI_Irecv into one buffer. Stock ucx must count 0 starts on the same
# program first (a pml/ucx built without ucp_tag_recv_nbx would make that call for every
# MPI_Irecv). The receiving rank must fence (its MPI_Irecv are direct), the other rank receives
# blocking and need not.
shim_count() { # the ranks' counts of the shim's line $1 in out.log, one per line
    grep -o "$1: [0-9]*" "$bin/out.log" | awk '{print $NF}'
}
if [ -x "$bin/p2p_threads" ] &&
    gcc -O2 -shared -fPIC -Wall -Wextra -o "$bin/ucx_call_counter.so" \
        "$here/ucx_call_counter.c" -ldl 2>"$bin/cc.log"; then
    counter="-x LD_PRELOAD=$bin/ucx_call_counter.so"
    mpirun_logged -np 2 --oversubscribe ${cfg[ucx]} $counter \
        "$bin/p2p_threads" shared_buffer
    if [ "$(shim_count 'ucp_tag_recv_nb calls' | grep -c '^0$')" != 2 ]; then
        echo "SKIP: no pml/ucx persistent start under MPI_THREAD_MULTIPLE (stock ucx itself" \
            "makes the counted call: $(shim_count 'ucp_tag_recv_nb calls' | tr '\n' ' '))"
    else
        run "p2p_threads shared_buffer np=2 pml=ucx+zip MPI_THREAD_MULTIPLE" \
            "p2p_threads shared_buffer" -np 2 --oversubscribe ${cfg[ucx+zip]} \
            --mca pml_zip_threshold 1 --mca pml_zip_bare_max 0 $counter "$bin/p2p_threads" \
            shared_buffer
        starts=$(shim_count 'ucp_tag_recv_nb calls')
        [ "$(echo "$starts" | grep -c .)" = 2 ] && [ "$(echo "$starts" | grep -vc '^0$')" = 0 ]
        report "no pml/ucx persistent start under MPI_THREAD_MULTIPLE (2 ranks report 0)" $? \
            "$bin/out.log"
        # Its MPI_Irecv: 4 threads x 4 sizes x 1500 windows x 16 (p2p_threads.c).
        [ "$(shim_count 'zip fences' | sort -n | tail -1)" -ge 384000 ] 2>/dev/null
        report "threaded MPI_Irecv over ucx is direct and fenced (one rank fences >= 384000)" $? \
            "$bin/out.log"
    fi
fi
for t in nonblocking records; do
    [ -x "$bin/p2p_$t" ] &&
        run "p2p_$t np=2 pml=ucx+zip direct_recv=0" "p2p_$t" -np 2 ${cfg[ucx+zip]} \
            --mca pml_zip_direct_recv 0 "$bin/p2p_$t"
done
for t in basic nonblocking probe; do
    [ -x "$bin/p2p_$t" ] &&
        run "p2p_$t np=3 pml=ob1+zip bare_max=0" "p2p_$t" -np 3 --oversubscribe \
            ${cfg[ob1+zip+local]} --mca pml_zip_bare_max 0 "$bin/p2p_$t"
done
# One-sided communication over osc/pt2pt, which moves everything as PML messages.
if [ -x "$bin/p2p_osc" ]; then
    for c in ob1 ob1+zip ucx ucx+zip; do
        for k in get8 get put accumulate; do
            if [ ! -f "$ompidir/mca_osc_pt2pt.so" ]; then
                echo "SKIP: p2p_osc $k np=2 pml=$c osc=pt2pt (no osc/pt2pt in $ompidir)"
                continue
            fi
            run "p2p_osc $k np=2 pml=$c osc=pt2pt" "p2p_osc $k (" -np 2 ${cfg[$c]} --mca osc pt2pt \
                "$bin/p2p_osc" "$k"
        done
    done
fi
# Probed messages never received, then MPI_Finalize.
if [ -x "$bin/p2p_probe_finalize" ]; then
    for c in ob1 ucx ob1+zip ucx+zip; do
        run "p2p_probe_finalize np=2 pml=$c" p2p_probe_finalize -np 2 ${cfg[$c]} \
            "$bin/p2p_probe_finalize"
    done
fi

# Payloads beside non-blocking collectives whose tags have reached the payloads' windows (every
# message split: an envelope and a payload): with a single window the payloads met the
# barriers' receives (the first case failed every run).
if [ -x "$bin/p2p_nbc_tags" ]; then
    for c in ob1 ob1+zip ucx+zip; do
        run "p2p_nbc_tags np=2 pml=$c bare_max=0" p2p_nbc_tags -np 2 ${cfg[$c]} \
            --mca pml_zip_threshold 1 --mca pml_zip_bare_max 0 "$bin/p2p_nbc_tags"
    done
    run "p2p_nbc_tags np=3 pml=ob1+zip bare_max=0" p2p_nbc_tags -np 3 --oversubscribe \
        ${cfg[ob1+zip]} --mca pml_zip_threshold 1 --mca pml_zip_bare_max 0 "$bin/p2p_nbc_tags"
fi

# Inter-communicators: made by MPI_Intercomm_create and merged (3 ranks: groups of 2 and 1), and
# MPI_Comm_spawn's parent-child communicator (2 ranks spawning 2).
if [ -x "$bin/p2p_intercomm" ]; then
    for c in ob1 ucx ob1+zip ucx+zip ob1+zip+local; do
        run "p2p_intercomm np=3 pml=$c" p2p_intercomm -np 3 --oversubscribe ${cfg[$c]} \
            "$bin/p2p_intercomm"
        run "p2p_intercomm spawn np=2 pml=$c" "p2p_intercomm (spawn)" -np 2 --oversubscribe \
            ${cfg[$c]} "$bin/p2p_intercomm" spawn
    done
fi

# --- how it loads -------------------------------------------------------------------------------
verbose="--mca pml_zip_verbose 1"
for c in ob1 ucx; do
    mpirun_logged -np 2 ${cfg[$c+zip]} $verbose "$bin/p2p_basic"
    [ "$(grep -c "interposed in front of pml/$c" "$bin/out.log")" = 2 ]
    report "--mca pml $c,zip interposes in front of pml/$c on every rank" $? "$bin/out.log"
    # How a threaded MPI_Irecv is made: ob1's start links first; pml/ucx's worker was found.
    case $c in ob1) how=started ;; ucx) how=fenced ;; esac
    [ "$(grep -c "MPI_THREAD_MULTIPLE: the wrapped PML's request, $how" "$bin/out.log")" = 2 ]
    report "pml/$c: a threaded MPI_Irecv is the wrapped PML's request, $how (every rank)" $? \
        "$bin/out.log"
done
# Open MPI does not open a PML that is not in the list: "--mca pml ucx" alone leaves zip out.
mpirun_logged -np 2 ${cfg[ucx]} --mca pml_zip_enable 1 $verbose "$bin/p2p_basic"
! grep -q "interposed" "$bin/out.log" && grep -q "PASS: " "$bin/out.log"
report "--mca pml ucx alone does not open pml/zip" $? "$bin/out.log"
# Debian's default (pml = ^ucx, an exclude list) opens every other PML, zip included.
mpirun_logged -np 2 $path --mca pml_zip_enable 1 $verbose "$bin/p2p_basic"
grep -q "interposed in front of pml/ob1" "$bin/out.log" && grep -q "PASS: " "$bin/out.log"
report "default pml selection (exclude list) is wrapped too" $? "$bin/out.log"
# "--mca pml zip" alone has nothing to wrap: it must stop with a message naming the option.
mpirun_logged -np 2 $path --mca pml zip "$bin/p2p_basic"
rc=$?
[ $rc != 0 ] && grep -q -- "--mca pml ob1,zip" "$bin/out.log"
report "--mca pml zip alone stops with a hint" $? "$bin/out.log"
# "--mca pml ucx,zip" where pml/ucx declines (here: no transport or device matches) leaves zip
# selected alone: MPI_Init must fail with zip's message, as it would with pml/ucx alone, and not
# crash. The first rank whose MPI_Init fails aborts the job, and mpirun may kill the other rank
# before it prints (1 of 12 runs here): at least one rank's message.
mpirun_logged -np 2 $path --mca pml ucx,zip --mca pml_ucx_tls none_such --mca pml_ucx_devices none_such \
    "$bin/p2p_basic"
rc=$?
[ $rc != 0 ] && [ "$(grep -c 'no PML before it in the pml list could be selected' "$bin/out.log")" -ge 1 ] &&
    ! grep -qiE 'segmentation|signal 11' "$bin/out.log"
report "--mca pml ucx,zip with pml/ucx declining fails MPI_Init with a message, no crash" $? "$bin/out.log"

# --- it really compresses, and only where asked --------------------------------------------------
for c in ob1 ucx; do
    mpirun_logged -np 2 ${cfg[$c+zip]} --mca pml_zip_stats 1 "$bin/p2p_basic"
    awk '/pml:zip stats/ { for (i = 1; i <= NF; ++i) if ($i == "zip" && $(i+1) == "messages")
             { sent = $(i-1); comp = substr($(i+2), 2) } if (comp > 0) ok++ } END { exit ok != 2 }' \
        "$bin/out.log"
    report "pml=$c+zip: stats show compressed messages on every rank" $? "$bin/out.log"
done
# Records that MPI sees as bytes (MPI_BYTE, a struct of ints and doubles, MPI_PACKED) go through
# the codec's byte path: each rank sends the three record messages compressed and the random
# bytes raw (the fifth message, ids and positions through a type with gaps, either way).
for c in ob1 ucx; do
    mpirun_logged -np 2 ${cfg[$c+zip]} --mca pml_zip_stats 1 "$bin/p2p_records"
    [ "$(grep -cE "sent 5 zip messages \([34] compressed\)" "$bin/out.log")" = 2 ] &&
        grep -q "PASS: " "$bin/out.log"
    report "pml=$c+zip: records sent as bytes are compressed, random bytes are not" $? \
        "$bin/out.log"
done
# Without force_local, peers on one node get no frames (raw messages behind the header).
mpirun_logged -np 2 ${cfg[ob1+zip+local]} --mca pml_zip_stats 1 "$bin/p2p_basic"
[ "$(grep -c "zip messages (0 compressed)" "$bin/out.log")" = 2 ] && grep -q "PASS: " "$bin/out.log"
report "same-node peers are not compressed unless pml_zip_force_local" $? "$bin/out.log"
# pml_zip_enable=0: only the two communicators with zip_p2p=true compress (each rank sends one
# message on each of four communicators; every message is framed, only those are compressed).
mpirun_logged -np 2 $path --mca pml ob1,zip --mca pml_zip_force_local 1 --mca pml_zip_stats 1 \
    --mca pml_zip_policy always -x P2P_INFO_EXPECT_KEY=1 "$bin/p2p_info"
[ "$(grep -c "sent 4 zip messages (2 compressed)" "$bin/out.log")" = 2 ] &&
    grep -q "PASS: " "$bin/out.log"
report "Info key zip_p2p=true enables one communicator" $? "$bin/out.log"
mpirun_logged -np 2 ${cfg[ob1+zip]} --mca pml_zip_stats 1 "$bin/p2p_info"
[ "$(grep -c "sent 4 zip messages (3 compressed)" "$bin/out.log")" = 2 ] &&
    grep -q "PASS: " "$bin/out.log"
report "Info key zip_p2p=false disables one communicator" $? "$bin/out.log"

# --- the policy ------------------------------------------------------------------------------------
# verdicts <name>: the count after "<name> " in every "pml:zip policy" line, summed.
verdicts() {
    grep 'pml:zip policy' "$bin/out.log" | grep -o "$1 [0-9]*" | awk '{ s += $2 } END { print s + 0 }'
}
# auto on shared memory (force_local): the measured rate beats the codec, so nothing is
# compressed and no sample is taken: every large message says link_faster, but the first ones,
# sent before the link was timed, which say link_unknown.
mpirun_logged -np 2 ${cfg[ob1+zip+auto]} --mca pml_zip_stats 1 "$bin/p2p_basic"
[ "$(verdicts link_faster)" -gt 10 ] && [ "$(verdicts "compressed")" -le 2 ] &&
    [ "$(verdicts link_unknown)" -ge 1 ] &&
    grep -q "PASS: " "$bin/out.log"
report "policy auto: shared memory is faster than the codec, large messages go raw" $? \
    "$bin/out.log"
# A 1 Gbit/s link (pml_zip_link_gbps_remote 1): auto compresses the smooth messages.
slow="--mca pml_zip_link_gbps_remote 1 --mca pml_zip_stats 1"
mpirun_logged -np 2 ${cfg[ob1+zip+auto]} $slow "$bin/p2p_basic"
[ "$(verdicts "compressed")" -gt 10 ] && [ "$(verdicts link_faster)" = 0 ] &&
    [ "$(verdicts link_unknown)" = 0 ] &&
    grep -q "PASS: " "$bin/out.log"
report "policy auto: over a 1 Gbit/s link smooth messages are compressed" $? "$bin/out.log"
# Messages too small to sample (8 KiB, pml_zip_threshold 4096): the frame's ratio is judged as a
# sample's. Random doubles with a fixed top byte shrink by about 12 %, which over 1 Gbit/s does
# not pay for coding and decoding: sent raw (they went compressed before); smooth ones compress.
small="$slow --mca pml_zip_threshold 4096"
mpirun_logged -np 2 ${cfg[ob1+zip+auto]} $small "$bin/p2p_small_frames" weak
[ "$(verdicts incompressible)" = 32 ] && [ "$(verdicts "compressed")" = 0 ] &&
    grep -q "PASS: " "$bin/out.log"
report "policy auto: a message too small to sample goes raw when its frame does not pay" $? \
    "$bin/out.log"
mpirun_logged -np 2 ${cfg[ob1+zip+auto]} $small "$bin/p2p_small_frames" smooth
[ "$(verdicts "compressed")" = 32 ] && grep -q "PASS: " "$bin/out.log"
report "policy auto: a message too small to sample is compressed when its frame pays" $? \
    "$bin/out.log"
# observe: decides as auto, sends raw, reports what it would have saved.
mpirun_logged -np 2 ${cfg[ob1+zip+auto]} $slow --mca pml_zip_policy observe "$bin/p2p_basic"
grep 'pml:zip policy' "$bin/out.log" | grep -q 'observe: [1-9][0-9]* would compress' &&
    [ "$(grep -c 'zip messages (0 compressed)' "$bin/out.log")" = 2 ] && grep -q "PASS: " "$bin/out.log"
report "policy observe: counts what it would compress, sends everything raw" $? "$bin/out.log"
# ... and by message size: per rank, the size-class lines add up to the total.
awk '/pml:zip policy/ { for (i = 1; i < NF; ++i) if ($i == "observe:") want += $(i + 1) }
     /pml:zip observe/ { for (i = 1; i < NF; ++i) if ($i == "would") got += $(i - 1); rows++ }
     END { exit !(rows > 0 && got == want) }' "$bin/out.log"
report "policy observe: would-compress messages by size class add up" $? "$bin/out.log"
# never: nothing compressed, every large message says so.
mpirun_logged -np 2 ${cfg[ob1+zip+auto]} $slow --mca pml_zip_policy never "$bin/p2p_basic"
[ "$(grep -c 'zip messages (0 compressed)' "$bin/out.log")" = 2 ] && [ "$(verdicts never)" -gt 10 ] &&
    grep -q "PASS: " "$bin/out.log"
report "policy never: nothing is compressed" $? "$bin/out.log"
# The link hint: rank 1 alone is told its link runs at 1 Gbit/s. Rank 0 only streams large
# messages to it; with rank 1's small acks it learns that rate (125 MB/s) from their headers and
# compresses; without them it has no rate (it does not time its own sends) and sends raw.
rank0_policy() { grep 'pml:zip policy (rank 0)' "$bin/out.log"; }
mpirun_logged -np 2 ${cfg[ob1+zip+auto]} --mca pml_zip_stats 1 -x P2P_HINT_SLOW_RANK=1 \
    "$bin/p2p_link_hint" ack
rank0_policy | grep -q 'remote 12[4-6] (peers);' && [ "$(rank0_policy | grep -o 'compressed [0-9]*' |
    awk '{ print $2 }')" -ge 12 ] && grep -q "PASS: " "$bin/out.log"
report "link hint: a rank that only streams data compresses at the rate its receiver has" $? \
    "$bin/out.log"
mpirun_logged -np 2 ${cfg[ob1+zip+auto]} --mca pml_zip_stats 1 -x P2P_HINT_SLOW_RANK=1 \
    "$bin/p2p_link_hint" noack
rank0_policy | grep -q 'remote 0 (none);' && rank0_policy | grep -q 'compressed 0,' &&
    grep -q "PASS: " "$bin/out.log"
report "link hint: without replies the streaming rank has no rate and sends raw" $? "$bin/out.log"
# Arrivals through MPI_Irecv: a receiver that waits times them and has a rate to other nodes;
# one that computes while they travel (MPI_Test every 5 ms) has none, where untimed gaps would
# have made its 5 GB/s look like 0.16 GB/s. UCX over TCP here, as its progress reads a socket a
# segment at a time: ob1's TCP BTL reads a whole 4 MiB payload in one poll on loopback, a gap as
# long as the transfer, which is not timed.
rank1_policy() { grep 'pml:zip policy (rank 1)' "$bin/out.log"; }
irecv_cfg="$path --mca pml ucx,zip --mca pml_ucx_tls any --mca pml_ucx_devices any
    -x UCX_TLS=tcp,self --mca pml_zip_enable 1 --mca pml_zip_force_local 1 --mca pml_zip_stats 1"
# shellcheck disable=SC2086
mpirun_logged -np 2 $irecv_cfg "$bin/p2p_irecv_link" wait
rank1_policy | grep -q 'remote [1-9][0-9]* (arrivals);' && grep -q "PASS: " "$bin/out.log"
report "MPI_Irecv arrivals: a receiver that waits for them times the link" $? "$bin/out.log"
# shellcheck disable=SC2086
mpirun_logged -np 2 $irecv_cfg "$bin/p2p_irecv_link" compute
rank1_policy | grep -q 'remote 0 (none);' && grep -q "PASS: " "$bin/out.log"
report "MPI_Irecv arrivals: a receiver that computes while they travel times nothing" $? \
    "$bin/out.log"
# coll/zip's agreed link: a halo exchange of 32 KiB messages through MPI_Irecv (never timed)
# after a barrier, where coll/zip's ranks agree on the link (told 0.1 Gbit/s, so no probe runs):
# pml/zip takes coll/zip's 12.5 MB/s and compresses the halos; with coll/zip not selected it
# has no rate and sends them raw.
# coll/zip: $ZIP_COMPONENT_DIR, else beside pml/zip in the same build tree.
colldir=${ZIP_COMPONENT_DIR:-$pmldir/../../ompi-coll-zip/.libs}
if [ -e "$colldir/mca_coll_zip.so" ]; then
    coll_slow="--mca mca_base_component_path $pmldir:$colldir:$ompidir --mca pml ob1,zip
        --mca pml_zip_enable 1 --mca pml_zip_force_local 1 --mca pml_zip_stats 1
        --mca coll_zip_force_local 1 --mca coll_zip_link_gbps_remote 0.1
        --mca coll_zip_link_gbps_local 0.1"
    # Rank 0 compressed its 24 halos at coll/zip's rate, or had no rate and sent them raw.
    at_coll_rate() {
        rank0_policy | grep -q 'remote 1[23] (coll/zip);' && [ "$(rank0_policy |
            grep -o 'compressed [0-9]*' | awk '{ print $2 }')" = 24 ] && grep -q "PASS: " "$bin/out.log"
    }
    without_rate() {
        rank0_policy | grep -q 'remote 0 (none);' && rank0_policy | grep -q 'compressed 0,' &&
            grep -q "PASS: " "$bin/out.log"
    }
    # After a barrier, after a small allreduce, and with no collective at all (the rates given:
    # coll/zip's ranks agreed inside MPI_Init).
    for before in "barrier:halos below the timed size compress at its rate" \
        "allreduce:a small allreduce on MPI_COMM_WORLD is enough" \
        "none:agreed inside MPI_Init, no collective needed"; do
        # shellcheck disable=SC2086
        mpirun_logged -np 3 --oversubscribe $coll_slow --mca coll_zip_priority 40 \
            "$bin/p2p_coll_link" "${before%%:*}"
        at_coll_rate
        report "coll/zip's agreed link: ${before#*:}" $? "$bin/out.log"
    done
    # shellcheck disable=SC2086
    mpirun_logged -np 3 --oversubscribe $coll_slow --mca coll_zip_priority 40 \
        --mca coll_zip_agree_early 0 "$bin/p2p_coll_link" none
    without_rate
    report "coll/zip's agreed link: with coll_zip_agree_early 0 and no collective, none" $? \
        "$bin/out.log"
    # shellcheck disable=SC2086
    mpirun_logged -np 3 --oversubscribe $coll_slow --mca coll_zip_priority 0 "$bin/p2p_coll_link"
    without_rate
    report "coll/zip's agreed link: without coll/zip the halos have no rate and go raw" $? \
        "$bin/out.log"
    # The randomized soak of the collectives (test_soak.c) with pml/zip under them: every
    # collective's messages, tuned's, libnbc's and coll/zip's own, through pml/zip with a 1 KiB
    # threshold, over ob1 and ucx.
    if mpicc -O2 -Wall -Wextra -Werror -pthread -o "$bin/test_soak" "$here/test_soak.c" -lm \
        2>"$bin/cc.log"; then
        coll_on="--mca mca_base_component_path $pmldir:$colldir:$ompidir --mca coll_zip_priority 40
            --mca coll_zip_force_local 1 --mca coll_zip_policy always --mca coll_zip_threshold 1024
            --mca pml_zip_threshold 1024 $zip_on"
        # shellcheck disable=SC2086
        run "soak np=3 ob1+zip, coll/zip" soak -np 3 --oversubscribe $coll_on --mca pml ob1,zip \
            "$bin/test_soak" --seed 11 --inplace-ialltoallv 1
        # shellcheck disable=SC2086
        run "soak np=4 ucx+zip, coll/zip" soak -np 4 --oversubscribe $coll_on --mca pml ucx,zip \
            $ucx_opts "$bin/test_soak" --seed 12 --inplace-ialltoallv 1
    else
        report "build test_soak" 1 "$bin/cc.log"
    fi
    # Neighbourhood and persistent collectives on topology communicators, beside coll/zip's
    # compressed calls (test_topo_persistent.c): libnbc's and basic's messages (internal tags,
    # which pml/zip passes on as they are) through the interposer over ob1 and ucx.
    if mpicc -O2 -Wall -Wextra -Werror -pthread -o "$bin/test_topo_persistent" \
        "$here/test_topo_persistent.c" -lm 2>"$bin/cc.log"; then
        # shellcheck disable=SC2086
        run "topo_persistent np=3 ob1+zip, coll/zip" topo_persistent -np 3 --oversubscribe \
            $coll_on --mca pml ob1,zip "$bin/test_topo_persistent"
        # shellcheck disable=SC2086
        run "topo_persistent np=4 ucx+zip, coll/zip" topo_persistent -np 4 --oversubscribe \
            $coll_on --mca pml ucx,zip $ucx_opts "$bin/test_topo_persistent"
    else
        report "build test_topo_persistent" 1 "$bin/cc.log"
    fi
else
    echo "SKIP: coll/zip's agreed link (no mca_coll_zip.so in $colldir)"
fi
# Under another Open MPI release than the one it was built against (release_shim.c answers
# MPI_Get_library_version for one that does not exist), pml/zip stays out after one line from
# rank 0 and the PML named first runs alone (no pml/zip statistics); MPI_Init must not fail
# although "--mca pml X,zip" names it. With pml_zip_version_check 0 it interposes again.
if mpicc -shared -fPIC -O2 -Wall -Wextra -o "$bin/release_shim.so" "$here/release_shim.c" \
    2>"$bin/cc.log"; then
    shim="-x LD_PRELOAD=$bin/release_shim.so"
    for c in ob1+zip ucx+zip; do
        # shellcheck disable=SC2086
        run "p2p_basic np=2 pml=$c under another release: the PML alone" p2p_basic -np 2 \
            ${cfg[$c]} --mca pml_zip_stats 1 $shim "$bin/p2p_basic"
        said=$(grep -c "pml/zip: built against Open MPI .*, but this is Open MPI v4.1.99" \
            "$bin/out.log")
        [ "$said" = 1 ] && ! grep -q "pml:zip stats" "$bin/out.log"
        report "pml=$c under another release: pml/zip says so once ($said) and stays out" $? \
            "$bin/out.log"
    done
    # shellcheck disable=SC2086
    run "p2p_basic np=2 pml=ob1+zip under another release, version_check 0" p2p_basic -np 2 \
        ${cfg[ob1+zip]} --mca pml_zip_stats 1 --mca pml_zip_version_check 0 $shim \
        "$bin/p2p_basic"
    [ "$(grep -c "pml:zip stats (rank [01]): sent [1-9][0-9]* zip messages ([1-9]" \
        "$bin/out.log")" = 2 ]
    report "version_check 0: pml/zip interposes and compresses under another release" $? \
        "$bin/out.log"
else
    report "build release_shim.so" 1 "$bin/cc.log"
fi
# The Info key zip_policy overrides pml_zip_policy per communicator (p2p_info sets never on one).
mpirun_logged -np 2 ${cfg[ob1+zip]} --mca pml_zip_stats 1 -x P2P_INFO_POLICY_KEY=1 "$bin/p2p_info"
[ "$(grep -c "sent 4 zip messages (2 compressed)" "$bin/out.log")" = 2 ] &&
    grep -q "PASS: " "$bin/out.log"
report "Info key zip_policy=never overrides pml_zip_policy on one communicator" $? "$bin/out.log"

# Raw messages to a node mate go bare at any size (its link rate is never asked: it never gets
# a frame), so without force_local zip adds no byte to p2p_pingpong's 256 KiB-4 MiB messages;
# a peer judged as remote (force_local) gets an envelope in front of a raw one above
# pml_zip_bare_max for the first 32 while the sender has no rate to it, then in front of about
# one in 16 (so that its receiver goes on timing the link); under policy never, in front of none.
if mpicc -O2 -Wall -Wextra -Werror -I"$top/perftest/data" -o "$bin/p2p_pingpong" \
    "$here/p2p_pingpong.c" "$datalib" -lstdc++ -lm 2>"$bin/cc.log"; then
    bare_check() { # the stats lines of both ranks: their number, messages, raw and wire bytes
        grep -o 'sent [0-9]* zip messages ([0-9]* compressed), [0-9]* raw bytes -> [0-9]* wire' \
            "$bin/out.log" |
            awk '{ n++; msgs += $2; raw += $7; wire += $11 } END { print n, msgs, raw, wire }'
    }
    mpirun_logged -np 2 ${cfg[ob1+zip+local]} --mca pml_zip_stats 1 "$bin/p2p_pingpong" 262144 \
        4194304
    read -r n msgs raw wire <<<"$(bare_check)"
    echo "    ($n stats lines, raw $raw, wire $wire)" >>"$bin/out.log"
    [ "$n" = 2 ] && [ "$raw" -gt 100000000 ] && [ "$wire" = "$raw" ]
    report "raw messages of 256 KiB-4 MiB to a node mate go bare (wire bytes = raw bytes)" $? \
        "$bin/out.log"
    # Policy auto: on shared memory the link is faster than the codec, so all go raw.
    mpirun_logged -np 2 $path --mca pml ob1,zip --mca pml_zip_enable 1 --mca pml_zip_force_local 1 \
        --mca pml_zip_stats 1 "$bin/p2p_pingpong" 262144 4194304
    read -r n msgs raw wire <<<"$(bare_check)"
    envelopes=$(((wire - raw) / 14))
    echo "    ($n stats lines, $msgs messages, raw $raw, wire $wire: $envelopes envelopes)" \
        >>"$bin/out.log"
    [ "$n" = 2 ] && [ "$raw" -gt 100000000 ] && [ $(((wire - raw) % 14)) = 0 ] &&
        [ "$envelopes" -gt 0 ] && [ $((4 * envelopes)) -lt "$msgs" ]
    report "under force_local some of them go as envelope + payload, most bare" $? \
        "$bin/out.log"
    for idle in "1 never" "0 auto"; do # zip loaded and idle: policy never, or not enabled
        mpirun_logged -np 2 $path --mca pml ob1,zip --mca pml_zip_enable "${idle% *}" \
            --mca pml_zip_policy "${idle#* }" --mca pml_zip_force_local 1 --mca pml_zip_stats 1 \
            "$bin/p2p_pingpong" 262144 4194304
        read -r n msgs raw wire <<<"$(bare_check)"
        echo "    ($n stats lines, raw $raw, wire $wire)" >>"$bin/out.log"
        [ "$n" = 2 ] && [ "$raw" -gt 100000000 ] && [ "$wire" = "$raw" ]
        report "pml_zip_enable ${idle% *}, policy ${idle#* }: all of them go bare, to a peer judged remote too" $? \
            "$bin/out.log"
    done
else
    report "build p2p_pingpong" 1 "$bin/cc.log"
fi

# pml_zip_codec takes effect: p2p_codec sends the same two messages whatever the codec, so a
# codec that differs from fast costs different wire bytes, and a lossy stage fewer (its values
# arrive within their bound). An invalid spec stops MPI_Init with a message naming it.
wire_bytes() { # the "raw bytes -> N wire bytes" of every stats line in $bin/out.log, summed
    grep -o 'raw bytes -> [0-9]* wire bytes' "$bin/out.log" | awk '{ s += $4 } END { print s + 0 }'
}
if mpicc -O2 -Wall -Wextra -Werror -pthread -I"$top/perftest/data" -o "$bin/p2p_codec" \
    "$here/p2p_codec.c" "$datalib" -lstdc++ -lm 2>"$bin/cc.log"; then
    declare -A wire
    : >"$bin/wire.log"
    for codec in fast lz4 zstd fpc trunc:20+fast f32+fast; do
        mode=exact
        case $codec in *+*) mode=lossy ;; esac
        run "p2p_codec $mode np=2 pml=ob1+zip codec=$codec" p2p_codec -np 2 ${cfg[ob1+zip]} \
            --mca pml_zip_stats 1 --mca pml_zip_codec "$codec" "$bin/p2p_codec" $mode
        wire[$codec]=$(wire_bytes)
        echo "codec $codec: ${wire[$codec]} wire bytes" >>"$bin/wire.log"
    done
    ok=0
    for codec in lz4 zstd fpc; do
        [ "${wire[fast]}" -gt 0 ] && [ "${wire[$codec]}" -gt 0 ] &&
            [ "${wire[$codec]}" != "${wire[fast]}" ] || ok=1
    done
    report "pml_zip_codec lz4, zstd, fpc: other wire bytes than fast" $ok "$bin/wire.log"
    # pml_zip_codec_threads 2: 1 MiB messages coded on two threads, exact, and on smooth
    # doubles the same frames (wire bytes) as one thread. Unbound: a rank bound to one core (the
    # default on 2 ranks) gets one codec thread.
    run "p2p_codec exact np=2 pml=ob1+zip codec=fast codec_threads=2" p2p_codec -np 2 \
        --bind-to none ${cfg[ob1+zip]} --mca pml_zip_stats 1 --mca pml_zip_codec_threads 2 \
        "$bin/p2p_codec" exact
    threads_wire=$(wire_bytes)
    echo "codec fast, 2 threads: $threads_wire wire bytes" >>"$bin/wire.log"
    [ "$threads_wire" -gt 0 ] && [ "$threads_wire" = "${wire[fast]}" ]
    report "pml_zip_codec_threads 2: the wire bytes of one thread" $? "$bin/wire.log"
    ok=0
    for codec in trunc:20+fast f32+fast; do
        [ "${wire[$codec]}" -gt 0 ] && [ "${wire[$codec]}" -lt "${wire[fast]}" ] || ok=1
    done
    report "pml_zip_codec trunc:20+fast, f32+fast: fewer wire bytes than fast" $ok "$bin/wire.log"
    mpirun_logged -np 2 ${cfg[ob1+zip]} --mca pml_zip_codec bogus "$bin/p2p_codec" exact
    rc=$?
    [ $rc != 0 ] && [ "$(grep -c 'pml_zip_codec "bogus" cannot be used' "$bin/out.log")" = 2 ] &&
        grep -q "MPI_Init" "$bin/out.log" && ! grep -q "PASS: " "$bin/out.log"
    report "pml_zip_codec bogus stops MPI_Init, naming the value" $? "$bin/out.log"
else
    report "build p2p_codec" 1 "$bin/cc.log"
fi

# --- pml_zip_temporal: stream messages coded against their predecessors ------------------------
# Every p2p_temporal case, one mpirun each, with stream coding on over ob1 and ucx (a 2 KiB
# threshold, so that the small messages of "order" are stream messages too), and the whole
# program once at 3 ranks, with a memory cap that leaves streams without references, without
# pml_zip_temporal (zip on) and with stock ob1 and ucx.
temporal_on="--mca pml_zip_temporal auto --mca pml_zip_threshold 2048"
temporal_cases="steps order wildcard mprobe cancel truncate types modes commfree"
if [ -x "$bin/p2p_temporal" ]; then
    for c in ob1+zip ucx+zip; do
        for k in $temporal_cases; do
            run "p2p_temporal $k np=2 pml=$c temporal=auto" "$k (" -np 2 ${cfg[$c]} $temporal_on \
                "$bin/p2p_temporal" "$k"
        done
    done
    # Over TCP, payloads of one stream in flight together complete out of order (a receiver that
    # decoded them as they came would fail here; over shared memory they come in order).
    run "p2p_temporal order np=2 pml=ob1+zip btl=tcp temporal=auto" "order (" -np 2 \
        ${cfg[ob1+zip]} --mca btl tcp,self $temporal_on "$bin/p2p_temporal" order
    run "p2p_temporal np=3 pml=ob1+zip temporal=auto" "p2p_temporal (" -np 3 --oversubscribe \
        ${cfg[ob1+zip]} $temporal_on "$bin/p2p_temporal"
    run "p2p_temporal np=2 pml=ucx+zip temporal=auto temporal_memory=300000" "p2p_temporal (" \
        -np 2 ${cfg[ucx+zip]} $temporal_on --mca pml_zip_temporal_memory 300000 "$bin/p2p_temporal"
    for c in ob1 ucx ob1+zip; do
        run "p2p_temporal np=2 pml=$c" "p2p_temporal (" -np 2 ${cfg[$c]} "$bin/p2p_temporal"
    done
    # The other programs know nothing of streams: with stream coding on they must pass as well.
    for t in basic nonblocking probe persistent cancel semantics; do
        [ -x "$bin/p2p_$t" ] || continue
        run "p2p_$t np=2 pml=ob1+zip temporal=auto" "p2p_$t (" -np 2 ${cfg[ob1+zip]} $temporal_on \
            "$bin/p2p_$t"
    done
    # The counters: on slowly changing random doubles (which do not compress on their own) most
    # messages go as delta frames, and the run puts at least a third fewer bytes on the wire
    # than without pml_zip_temporal.
    temporal_stat() { # the number after "<word> " / before " <word>" in every temporal line, summed
        grep 'pml:zip temporal' "$bin/out.log" | grep -o "$1" | grep -o '[0-9]*' |
            awk '{ s += $1 } END { print s + 0 }'
    }
    run "p2p_temporal bytes np=2 pml=ob1+zip temporal=off" "bytes (" -np 2 ${cfg[ob1+zip]} \
        --mca pml_zip_threshold 8192 --mca pml_zip_stats 1 "$bin/p2p_temporal" bytes
    off_wire=$(wire_bytes)
    run "p2p_temporal bytes np=2 pml=ob1+zip temporal=auto" "bytes (" -np 2 ${cfg[ob1+zip]} \
        $temporal_on --mca pml_zip_stats 1 "$bin/p2p_temporal" bytes
    auto_wire=$(wire_bytes)
    deltas=$(temporal_stat '[0-9]* delta frames saving')
    echo "temporal off: $off_wire wire bytes; auto: $auto_wire wire bytes, $deltas delta frames" \
        >>"$bin/out.log"
    [ "$off_wire" -gt 0 ] && [ "$deltas" -ge 80 ] && [ $((3 * auto_wire)) -le $((2 * off_wire)) ]
    report "pml_zip_temporal auto: delta frames, and at most 2/3 of the wire bytes of off" $? \
        "$bin/out.log"
    # The Info key zip_p2p_temporal turns it on for a communicator (and off, over the parameter).
    run "p2p_temporal bytes np=2 pml=ob1+zip Info zip_p2p_temporal=auto" "bytes (" -np 2 \
        ${cfg[ob1+zip]} --mca pml_zip_threshold 8192 --mca pml_zip_stats 1 \
        -x P2P_TEMPORAL_INFO=auto "$bin/p2p_temporal" bytes
    [ "$(temporal_stat '[0-9]* delta frames saving')" -ge 80 ]
    report "Info key zip_p2p_temporal=auto turns stream coding on for one communicator" $? \
        "$bin/out.log"
    run "p2p_temporal bytes np=2 pml=ob1+zip Info zip_p2p_temporal=off" "bytes (" -np 2 \
        ${cfg[ob1+zip]} $temporal_on --mca pml_zip_stats 1 -x P2P_TEMPORAL_INFO=off \
        "$bin/p2p_temporal" bytes
    [ "$(temporal_stat 'sent [0-9]* stream messages')" = 0 ]
    report "Info key zip_p2p_temporal=off turns it off over pml_zip_temporal auto" $? "$bin/out.log"
    # Where it cannot apply, it says so once and everything is sent as before.
    mpirun_logged -np 2 ${cfg[ob1+zip]} $temporal_on --mca pml_zip_codec trunc:20+fast \
        "$bin/p2p_codec" lossy
    # (once per process that sends a message it would code: p2p_codec's senders)
    told=$(grep -c 'pml_zip_temporal is off: codec "trunc:20+fast" cannot code deltas' "$bin/out.log")
    [ "$told" -ge 1 ] && [ "$told" -le 2 ] && grep -q "PASS: " "$bin/out.log"
    report "pml_zip_temporal with a lossy codec: off, with a message" $? "$bin/out.log"
    mpirun_logged -np 2 ${cfg[ob1+zip]} $temporal_on "$bin/p2p_threads"
    grep -q 'pml_zip_temporal is off under MPI_THREAD_MULTIPLE' "$bin/out.log" &&
        grep -q "PASS: " "$bin/out.log"
    report "pml_zip_temporal under MPI_THREAD_MULTIPLE: off, with a message" $? "$bin/out.log"
    mpirun_logged -np 2 ${cfg[ob1+zip]} --mca pml_zip_temporal bogus "$bin/p2p_temporal" steps
    grep -q 'unknown pml_zip_temporal "bogus"' "$bin/out.log" && grep -q "PASS: " "$bin/out.log"
    report "pml_zip_temporal bogus: a message, and off" $? "$bin/out.log"
fi

# --- a process with a GPU runtime ------------------------------------------------------------------
# The last rank gets a stand-in libcuda.so.1 preloaded (fake_gpu_runtime.c): MPI_COMM_WORLD then
# has a GPU process and goes untouched on every rank; ranks 0 and 1 alone still compress
# (p2p_gpu's 3 messages from rank 0). Without the stand-in, or with pml_zip_gpu_guard 0,
# MPI_COMM_WORLD's smooth messages are compressed too.
if gpu_lib=$(build_gpu_stand_in); then
    sent_by_rank() { # the "sent N zip messages" of every rank's stats line, in rank order
        sed -n 's/.*pml:zip stats (rank \([0-9]*\)): sent \([0-9]*\) zip messages.*/\1 \2/p' \
            "$bin/out.log" | sort -n | awk '{ printf "%s%s", sep, $2; sep = " " }'
    }
    for c in ob1 ucx; do
        mpirun_logged --oversubscribe ${cfg[$c+zip]} --mca pml_zip_stats 1 -np 2 "$bin/p2p_gpu" : \
            -np 1 env LD_PRELOAD="$gpu_lib" "$bin/p2p_gpu"
        [ "$(sent_by_rank)" = "3 0 0" ] && grep -q "PASS: p2p_gpu" "$bin/out.log"
        report "pml=$c+zip: a communicator with a GPU process goes untouched, one without compresses" \
            $? "$bin/out.log"
    done
    mpirun_logged --oversubscribe ${cfg[ob1+zip]} --mca pml_zip_stats 1 -np 3 "$bin/p2p_gpu"
    sent=$(sent_by_rank)
    [ "${sent%% *}" -gt 3 ] && [ "${sent##* }" -gt 0 ] && grep -q "PASS: p2p_gpu" "$bin/out.log"
    report "pml=ob1+zip: without a GPU process MPI_COMM_WORLD compresses too ($sent)" $? \
        "$bin/out.log"
    mpirun_logged --oversubscribe ${cfg[ob1+zip]} --mca pml_zip_stats 1 --mca pml_zip_gpu_guard 0 \
        -np 2 "$bin/p2p_gpu" : -np 1 env LD_PRELOAD="$gpu_lib" "$bin/p2p_gpu"
    sent=$(sent_by_rank)
    [ "${sent##* }" -gt 0 ] && grep -q "PASS: p2p_gpu" "$bin/out.log"
    report "pml_zip_gpu_guard 0: a GPU process's communicators compress ($sent)" $? "$bin/out.log"
else
    report "build the stand-in GPU runtime" 1 "$bin/cc.log"
fi

check_params_listed pml zip "$pmldir:$ompidir" enable codec threshold codec_threads verbose stats force_local \
    policy link_gbps_remote temporal temporal_memory gpu_guard

finish_runner
