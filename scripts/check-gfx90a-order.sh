#!/usr/bin/env bash
# check-gfx90a-order.sh - checks the memory ordering of the device-side signals
# (include/shardtab_device.h over its HIP primitives, include/shardtab/arch_hip.h)
# in gfx90a (MI250X) machine code, where no AMD GPU is at hand: compiles
# tests/order/order_probe.hip (one kernel per operation) for gfx90a with
# clang 15 and Debian's ROCm 5.2 as the HIP build does (-O2,
# with -g and without), disassembles the code object, and has
# tests/order/order_scan.py verify, per kernel and on every path of its
# control flow, that every release and every acquire carries the
# instruction sequence of LLVM's AMDGPUUsage, "Memory Model GFX90A", table
# "AMDHSA Memory Model Code Sequences GFX90A", at its scope: system scope
#   store atomic release, system    buffer_wbl2; s_waitcnt vmcnt(0); the store
#   atomicrmw release, system       buffer_wbl2; s_waitcnt vmcnt(0); the atomic
#   load atomic acquire, system     the load, glc; s_waitcnt vmcnt(0);
#                                   buffer_invl2; buffer_wbinvl1_vol
#   load atomic monotonic, system   the load, glc (the relaxed polls)
#   fence acquire, system           s_waitcnt vmcnt(0) lgkmcnt(0); buffer_invl2;
#                                   buffer_wbinvl1_vol
#   fence release, system           buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0)
#   fence seq_cst (= acq_rel),      buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0);
#     system                        buffer_invl2; buffer_wbinvl1_vol
# and agent (device) scope, for the words only a rank's own device touches
#   store atomic release, agent     s_waitcnt vmcnt(0); the store
#   cmpxchg acquire, agent          the atomic, glc; s_waitcnt vmcnt(0);
#                                   buffer_wbinvl1_vol
#   load atomic monotonic, agent    the load, glc
#   fence acquire / release, agent  s_waitcnt vmcnt(0) lgkmcnt(0) (acquire:
#                                   then buffer_wbinvl1_vol)
# and that every flag (a relaxed store that a release fence before it
# publishes: the collective's epoch words, its BUSY = 0) has no store but
# other flags between it and a completed buffer_wbl2 + s_waitcnt vmcnt(0)
# (device flags: s_waitcnt vmcnt(0)), that no deposit is read after a relaxed
# poll on a path without an acquire fence between them, that every wave's
# stores are written back and done before the s_barrier that precedes the
# leader's release, and that every thread acquires after the s_barrier that
# ends a block wait; and for the LL words of the collectives and of the LL
# puts (shardtab_put_ll_block / _wait_ll_block: a payload and its epoch or
# flag in one 8-byte word, relaxed at system scope) that each is one dwordx2
# store or load (glc), that the ordered form's LL stores follow its release
# fence with no other store between, and that every LL load is done
# (s_waitcnt vmcnt(0)) before any later LL store and any s_barrier, on which
# the peers' reuse of their deposit buffers rests (and an LL writer's reuse
# of its reader's buffer, once the reply came).
# (tests/order/order_scan.py says exactly how each point is found and checked.)
#
# Usage: scripts/check-gfx90a-order.sh [--plant NAME] [outdir]
#        scripts/check-gfx90a-order.sh --self-test [outdir]
#        scripts/check-gfx90a-order.sh --self-test-if-changed [outdir]
#   --plant NAME  check the probe built with -DSHARDTAB_ORDER_PLANT=NAME (a
#                 fence planted missing; tests/order/order_probe.hip lists them)
#   --self-test   prove the check can fail: the real code must pass, and every
#                 plant must be reported, in the probes it breaks, as missing
#                 its sequence, with no other kind of failure; once it passes,
#                 tests/order/self-test.sha256 records the hash of its inputs:
#                 the probe preprocessed with every header it includes (the
#                 library's device code, jacobi's and cg's protocols, HIP's
#                 own), the probe's source with its plants, the scan, this
#                 script, and the compiler's and disassembler's versions
#   --self-test-if-changed  the self-test only where those inputs differ from
#                 the recorded ones (what CI runs: the real check runs every
#                 time; the self-test, a dozen builds, when something it rests
#                 on changed). Commit the record it leaves.
#   outdir        where the code objects, IR and disassembly go
#                 (default build-test-order)
# Exit: 0 every sequence present (self-test: the check works), 1 one missing
# (self-test: the check did not behave), 2 usage or set-up error.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mode=check
plant=""
out=""
while (($#)); do
  case $1 in
    --self-test) mode=self-test; shift ;;
    --self-test-if-changed) mode=self-test-if-changed; shift ;;
    --plant)
      [[ $# -ge 2 ]] || { echo "check-gfx90a-order: --plant needs a name" >&2; exit 2; }
      plant=$2
      shift 2
      ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-gfx90a-order: unknown option $1" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
out=${out:-$top/build-test-order}
src=$top/tests/order/order_probe.hip
scan=$top/tests/order/order_scan.py

need() {
  command -v "$1" >/dev/null || {
    echo "check-gfx90a-order: $1 not found (Debian: apt-get install $2, or scripts/deps.sh --hip)" >&2
    exit 2
  }
}
clang=${SHARDTAB_ORDER_CLANG:-clang++-15}
need "$clang" hipcc
need clang-offload-bundler-15 hipcc
need llvm-objdump-15 hipcc
need llvm-symbolizer-15 hipcc
need python3 python3
# ROCm's device libraries, where the HIP build finds them (cmake/ShardtabHip.cmake)
libs=-nogpulib
for d in "/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/amdgcn/bitcode" \
  /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/amdgcn/bitcode /opt/rocm/amdgcn/bitcode; do
  if [[ -f $d/ockl.bc ]]; then
    libs=--rocm-device-lib-path=$d
    break
  fi
done
flags=(-x hip --offload-arch=gfx90a --rocm-path=/usr "$libs" --cuda-device-only -std=c++17
  -O2 -I"$top/include" -I"$top/kernels/jacobi" -I"$top/kernels/shardtab" -I"$top/kernels/cg"
  -I"$top/kernels/sparse")
mkdir -p "$out"

# build NAME PLANT [extra flags...]: NAME.co (the gfx90a code object), NAME.ll
# (its IR) and NAME.ii (the preprocessed source: which probes there are)
build() {
  local name=$1 plant=$2
  shift 2
  local def=()
  [[ -n $plant ]] && def=(-DSHARDTAB_ORDER_PLANT="$plant")
  "$clang" "${flags[@]}" "${def[@]}" -E -o "$out/$name.ii" "$src"
  "$clang" "${flags[@]}" "${def[@]}" "$@" -c -o "$out/$name.bundle" "$src"
  clang-offload-bundler-15 --unbundle --type=o --targets=hipv4-amdgcn-amd-amdhsa--gfx90a \
    --input="$out/$name.bundle" --output="$out/$name.co"
  "$clang" "${flags[@]}" "${def[@]}" "$@" -S -emit-llvm -o "$out/$name.ll" "$src"
}
# scan NAME [--quiet]
scan() {
  local name=$1
  shift
  python3 "$scan" --co "$out/$name.co" --ir "$out/$name.ll" --probe "$out/$name.ii" \
    --objdump llvm-objdump-15 --symbolizer llvm-symbolizer-15 "$@"
}
# the instructions of a code object, without addresses (debug sections move .text)
text() { llvm-objdump-15 -d --mcpu=gfx90a "$1" | tail -n +3 | sed -E 's@ *//.*@@; s/^[0-9a-f]+ </</'; }

if [[ $mode == check ]]; then
  name=probe${plant:+-$plant}
  # The points are found through the debug line table. -gline-tables-only
  # leaves the code as plain -O2 makes it (a Release build; checked here), and
  # -g, the HIP build's default (RelWithDebInfo), may schedule it differently
  # (clang 15 does, in the collectives): both are checked.
  build "$name" "$plant" -gline-tables-only
  def=()
  [[ -n $plant ]] && def=(-DSHARDTAB_ORDER_PLANT="$plant")
  "$clang" "${flags[@]}" "${def[@]}" -c -o "$out/$name-nodebug.bundle" "$src"
  clang-offload-bundler-15 --unbundle --type=o --targets=hipv4-amdgcn-amd-amdhsa--gfx90a \
    --input="$out/$name-nodebug.bundle" --output="$out/$name-nodebug.co"
  text "$out/$name.co" >"$out/$name.s"
  if ! cmp -s "$out/$name.s" <(text "$out/$name-nodebug.co"); then
    echo "# gfx90a order: FAILED: -gline-tables-only changed the machine code ($out/$name.s)"
    exit 1
  fi
  [[ -f $top/include/shardtab_comm.h ]] ||
    echo "# gfx90a order: include/shardtab_comm.h not there: its probes are left out"
  echo "# gfx90a order: -O2 (as a Release build):"
  rc=0
  scan "$name" || rc=$?
  build "$name-g" "$plant" -g
  text "$out/$name-g.co" >"$out/$name-g.s"
  echo "# gfx90a order: -O2 -g (as RelWithDebInfo, the default build$(cmp -s "$out/$name.s" \
    "$out/$name-g.s" && echo ": the same code" || echo ": other code, checked too")):"
  rc_g=0
  scan "$name-g" --quiet || rc_g=$?
  ((rc_g > rc)) && rc=$rc_g
  exit "$rc"
fi

# ---- the self-test's inputs, as one hash (see --self-test) ----
stamp=$top/tests/order/self-test.sha256
inputs_hash() {
  {
    "$clang" "${flags[@]}" -E -P -o - "$src"
    cat "$src" "$scan" "$top/scripts/check-gfx90a-order.sh"
    "$clang" --version | head -n 1
    llvm-objdump-15 --version | head -n 2
  } | sha256sum | cut -d' ' -f1
}
hash=$(inputs_hash)
if [[ $mode == self-test-if-changed ]]; then
  if [[ -f $stamp ]] && [[ $(grep -v '^#' "$stamp") == "$hash" ]]; then
    echo "# gfx90a order self-test: not run: its inputs are those it last passed with ($hash, tests/order/self-test.sha256)"
    exit 0
  fi
  echo "# gfx90a order self-test: its inputs changed since it last passed (now $hash): running it"
fi

# ---- self-test: each plant, the probes it must break, the kinds it may break ----
# A plant leaves the header as it is and weakens one builtin it calls (see
# order_probe.hip). Fields: name | probe:kind of shardtab_device.h's probes that
# must be reported | the same of shardtab_comm.h's and of jacobi's kernels'
# (when they are there) | the kinds of failure it may cause. Some probes rightly survive a plant: with
# store_relaxed (or add_relaxed), a leader's signal that follows the block's
# seq_cst fence (buffer_wbl2; s_waitcnt vmcnt(0)) still has its release, which a
# relaxed atomic may pair with (signal_set_block, put_signal_block,
# signal_after_blocks); with release_fence_none, cg's meeting flag still follows
# the barrier's s_waitcnt vmcnt(0), all a device-scope flag needs, while its
# fences are reported missing. The collectives order nothing between ranks but their
# LL words (each 8-byte word carries its epoch), so the fence plants reach only
# their ordered forms (the library's stream-ordered calls): release_fence_* the
# deposit's per-thread release fence (agent scope: the fence and the LL stores
# it publishes reported; left out: the fence reported missing), acquire_fence_*
# the gather's acquire fences; ll_store_split breaks every LL store in two
# (the collectives' and the LL puts'; poll_workgroup their loads too). The
# collective bodies (collective_body.h) sync through the same calls: every
# plant that breaks the held calls breaks all three, the fence plants the two
# whose first sync is ordered (ST_PHASE_SYNC, ST_PHASE_ONE_BLOCK), not ST_PHASE_LL.
bodies="probe_st_body_sync_block probe_st_body_ll probe_st_body_one_block"
ordered="probe_st_body_sync_block probe_st_body_one_block"
deposit="probe_coll_start_block probe_coll_deposit_ordered probe_all_reduce_block probe_all_reduce_loop
      probe_all_reduce_held_loop probe_broadcast_block probe_all_gather_block $bodies"
gather="probe_coll_take probe_coll_finish_block probe_coll_gather_ordered probe_all_reduce_block
      probe_all_reduce_loop probe_all_reduce_held_loop probe_broadcast_block probe_all_gather_block
      $bodies"
ll_wait="probe_ll_take probe_wait_ll_block probe_ll_pingpong"
claim="probe_coll_enter probe_coll_hold_block probe_coll_start_block probe_coll_deposit_ordered
      probe_coll_finish_block probe_coll_gather_ordered probe_all_reduce_block probe_all_reduce_loop
      probe_all_reduce_held_loop probe_broadcast_block probe_all_gather_block $bodies"
each() { # each KIND WORD...: WORD:KIND for every word
  local kind=$1 w
  shift
  for w in "$@"; do printf '%s:%s ' "$w" "$kind"; done
}
# shellcheck disable=SC2086 # the lists are meant to split into words
plants=(
  "store_relaxed|$(each release-store probe_signal_set probe_wait probe_barrier \
    probe_barrier_block probe_signal_wait_block)|$(each release-store $claim) \
    probe_device_claim:release-store-device \
    probe_temporal_pass_end:release-store probe_temporal_wait:release-store \
    $(each release-store $ll_wait) \
    $(each release-store probe_onchip_ll_wait probe_onchip_may_run)|release-store release-store-device"
  "add_relaxed|probe_signal_add:release-rmw||release-rmw"
  "load_relaxed|probe_signal_read:acquire-load||acquire-load"
  "poll_workgroup|$(each poll probe_poll probe_wait probe_barrier probe_barrier_block \
    probe_signal_wait_block) probe_device_acquire:poll-device|$(each poll $claim probe_coll_take \
    probe_halo_put_block probe_halo_put_grid) \
    $(each ll-load $gather) $(each poll $ll_wait) $(each ll-load $ll_wait) \
    probe_coll_pending:poll-device probe_device_claim:poll-device \
    probe_temporal_wait:poll $(each poll probe_onchip_ll_wait probe_onchip_may_run) \
    $(each poll-device probe_onchip_ll_wait probe_onchip_may_run) probe_onchip_ll_wait:ll-load \
    $(each poll-device probe_cg_meet_solo probe_cg_meet_other probe_cg_meet_zero)|poll poll-device ll-load"
  "acquire_fence_agent|$(each acquire-fence probe_wait probe_barrier probe_barrier_block \
    probe_signal_wait_block) $(each block-acquire probe_barrier_block \
    probe_signal_wait_block)|probe_coll_gather_ordered:acquire-fence $(each acquire-fence $ordered) \
    probe_temporal_wait:acquire-fence probe_temporal_wait:block-acquire \
    $(each acquire-fence probe_halo_put_block probe_halo_put_grid) \
    $(each block-acquire probe_halo_put_block probe_halo_put_grid)|acquire-fence block-acquire ir-scope"
  "acquire_fence_none|$(each acquire-fence probe_wait probe_barrier probe_barrier_block \
    probe_signal_wait_block) $(each block-acquire probe_barrier_block \
    probe_signal_wait_block) probe_device_acquire:acquire-fence-device|probe_coll_gather_ordered:acquire-fence \
    $(each acquire-fence $ordered) probe_temporal_wait:acquire-fence probe_temporal_wait:block-acquire \
    $(each acquire-fence probe_halo_put_block probe_halo_put_grid) \
    $(each block-acquire probe_halo_put_block probe_halo_put_grid) \
    probe_temporal_pass_end:acquire-fence-device \
    $(each acquire-fence-device probe_cg_meet_solo probe_cg_meet_other probe_cg_meet_zero probe_cg_last_block)|acquire-fence block-acquire
    acquire-fence-device unacquired-read"
  "block_fence_workgroup|$(each seq-cst-fence probe_signal_set_block probe_barrier_block) \
    $(each block-release probe_signal_set_block probe_barrier_block)|$(each seq-cst-fence \
    probe_put_signal_block probe_signal_after_blocks probe_halo_put_block probe_halo_put_grid) $(each block-release \
    probe_put_signal_block probe_signal_after_blocks probe_halo_put_block probe_halo_put_grid) \
    probe_temporal_pass_end:seq-cst-fence probe_temporal_pass_end:block-release|seq-cst-fence block-release ir-scope"
  "block_fence_none|$(each seq-cst-fence probe_signal_set_block probe_barrier_block) \
    $(each block-release probe_signal_set_block probe_barrier_block)|$(each seq-cst-fence \
    probe_put_signal_block probe_signal_after_blocks probe_halo_put_block probe_halo_put_grid) $(each block-release \
    probe_put_signal_block probe_signal_after_blocks probe_halo_put_block probe_halo_put_grid) \
    probe_temporal_pass_end:seq-cst-fence probe_temporal_pass_end:block-release|seq-cst-fence block-release"
  "release_fence_agent||probe_coll_deposit_ordered:release-fence \
    probe_coll_deposit_ordered:ll-store $(each release-fence $ordered) \
    $(each ll-store $ordered)|release-fence ll-store ir-scope"
  "release_fence_none|probe_device_release:release-fence-device probe_device_release:flag-device|\
    probe_coll_deposit_ordered:release-fence $(each release-fence $ordered) \
    probe_temporal_pass_end:release-fence-device \
    $(each release-fence-device probe_cg_meet_solo probe_cg_meet_other probe_cg_meet_zero probe_cg_last_block)|release-fence
    release-fence-device flag-device"
  "ll_store_split||$(each ll-store $deposit probe_put_ll_block probe_ll_clear_block \
    probe_ll_pingpong)|ll-store"
)
bad=0
# the builds, up to nproc (at most 4) at once; each leaves NAME.built when done
max=$(nproc 2>/dev/null || echo 2)
((max > 4)) && max=4
rm -f "$out"/probe*.built
for name in "" "${plants[@]%%|*}"; do
  (build "probe${name:+-$name}" "$name" -gline-tables-only &&
    touch "$out/probe${name:+-$name}.built") >"$out/probe${name:+-$name}.build.log" 2>&1 &
  while (($(jobs -rp | wc -l) >= max)); do wait -n || true; done
done
wait
for name in "" "${plants[@]%%|*}"; do
  [[ -f $out/probe${name:+-$name}.built ]] || {
    echo "# gfx90a order self-test: FAILED: the probe${name:+ with plant $name} did not build:"
    cat "$out/probe${name:+-$name}.build.log"
    exit 2
  }
done
comm=0 # are shardtab_comm.h's probes in?
grep -q '"probe_coll_start_block"' "$out/probe.ii" && comm=1
if scan probe --quiet >"$out/probe.log"; then
  echo "# gfx90a order self-test: the real code passes ($(tail -n 1 "$out/probe.log" |
    sed -E 's/.*: ([0-9]+ probes, [0-9]+ ordering points).*/\1/'))"
else
  echo "# gfx90a order self-test: FAILED: the real code does not pass:"
  cat "$out/probe.log"
  bad=1
fi
for entry in "${plants[@]}"; do
  IFS='|' read -r name must must_comm may <<<"$(tr -s ' \n' ' ' <<<"$entry")"
  ((comm)) && must="$must $must_comm"
  rc=0
  scan "probe-$name" --quiet >"$out/probe-$name.log" || rc=$?
  problems=()
  [[ $rc == 1 ]] || problems+=("exit status $rc, not 1")
  caught=()
  for want in $must; do
    if grep -q "^# gfx90a order: ${want%%:*}: FAILED ${want#*:}: " "$out/probe-$name.log"; then
      caught+=("${want%%:*} (${want#*:})")
    else
      problems+=("${want%%:*} not reported missing its ${want#*:} sequence")
    fi
  done
  while read -r kind; do
    [[ " $may " == *" $kind "* ]] || problems+=("an unrelated failure: $kind")
  done < <(sed -nE 's/^# gfx90a order: [^:]+: FAILED ([a-z-]+): .*/\1/p' "$out/probe-$name.log" | sort -u)
  if ((${#problems[@]})); then
    list=$(
      IFS=';'
      echo "${problems[*]}"
    )
    echo "# gfx90a order self-test: plant $name: FAILED: ${list//;/; } (log: $out/probe-$name.log)"
    bad=1
  else
    list=$(
      IFS=,
      echo "${caught[*]}"
    )
    echo "# gfx90a order self-test: plant $name: caught: ${list//,/, }"
  fi
done
if ((bad)); then
  echo "# gfx90a order self-test: FAILED"
  exit 1
fi
echo "# gfx90a order self-test: the real code passes and all ${#plants[@]} planted missing fences are caught"
{
  echo "# the hash of the gfx90a order self-test's inputs when it last passed (scripts/check-gfx90a-order.sh --self-test writes it)"
  echo "$hash"
} >"$stamp"
if [[ -n $(git -C "$top" status --porcelain -- "$stamp" 2>/dev/null) ]]; then
  echo "# gfx90a order self-test: tests/order/self-test.sha256 updated: commit it"
fi
