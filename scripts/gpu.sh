#!/usr/bin/env bash
# gpu.sh - the one GPU driver: check, bench or compare the programs on an NVIDIA machine, in one call.
#
# Usage: scripts/gpu.sh [options] check | bench | compare TREE_A TREE_B | tree REV DIR
#   check    builds the CUDA backend with its tests and runs, for each program named: the GPU
#            library checks (ctest -L unit and -L gpu, threads, memory kinds), the programs'
#            verifying runs (every mode and launch from a random start, ranks sharing the GPU
#            under MPS, planted faults caught, compute-sanitizer), and the examples against
#            the installed package (ctest -L examples)
#   bench    the programs' standard figures: every timed run the median of --repeat solves
#            after a warm-up, verified; with --anchors the codes we compare against beside
#            them in the same job (NVIDIA's multi-GPU Jacobi, NCCL, NVSHMEM, the CPU-free
#            model's Jacobi and CG, torch's mul_, NCCL's and SymmetricMemory's all-reduce)
#   compare  TREE_A and TREE_B (source trees) built and timed in the same job, A B A B for
#            --rounds rounds, config by config; the table gives each tree's median, B / A, and
#            marks rows beyond --tolerance
#   tree     (here, not on the GPU) REV unpacked into DIR with git archive, for compare;
#            DIR is added to .git/info/exclude: carry it to the machine
# Options:
#   --programs "P ..."  check: library multi_scal jacobi cg comm spmv fronts examples (all);
#                       bench, compare: multi_scal jacobi cg coll spmv (bench: all; compare:
#                       jacobi cg)
#   --jacobi-sizes "N|NXxNY ..."   (default "16384 8192 4096 2048 2048x1026 1024 1024x514")
#   --jacobi-launches "L ..."      (default "persistent onchip temporal auto")
#   --cg-sizes "N ..."             2D Poisson N^2 (default "256 512 2048")
#   --repeat R   solves a run, the median kept (default 3; cg 5)
#   --rounds N   compare: rounds of A then B (default 2); bench: rounds of this tree (default 1)
#   --tolerance F  compare: |B/A - 1| beyond F is marked (default 0.02)
#   --anchors    bench: the anchors too (.anchors = a copy of ../shared/anchors, carried)
#   --no-sanitizer  check: no compute-sanitizer steps
#   --backend cuda|host  (default cuda; host runs the same steps on the CPU, for the driver's test)
#   --build DIR  check, bench: the build to use (default build-gpu; configured and built again)
#   --out DIR    logs and tables (default $OUT, else ./gpu-out)
#   --dry-run    print every step and build, run nothing (here, to see what a call does)
# Writes into DIR: gpu.log (every step and its output), machine.txt (GPUs, driver, CUDA, MPI),
# timing.txt (one line a timed run), table.txt (the table, rewritten as each program ends and
# printed last), json/ (each run's JSON).
# Exit status: 0 every step passed and every timed run verified, 1 otherwise, 2 bad usage.
# The machine's GPUs are shared: NVLink multicast stays off (gpu-common.sh). One device call
# is at most 10 minutes: split a long check by --programs; the builds stay between warm calls.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
# shellcheck disable=SC2317  # check_*, time_* and anchors_* are called by name, the helpers via step
set -uo pipefail

usage() {
  sed -n '4,/^# SPDX/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-2}"
}
command="" positional=() programs="" backend=cuda outdir=${OUT:-./gpu-out} with_anchors=0 sanitizer=1
jacobi_sizes="16384 8192 4096 2048 2048x1026 1024 1024x514" jacobi_launches="persistent onchip temporal auto"
cg_sizes="256 512 2048" repeat=3 rounds="" tolerance=0.02 build_dir=""
while (($#)); do
  case $1 in
  --programs) programs=$2; shift 2 ;;
  --jacobi-sizes) jacobi_sizes=$2; shift 2 ;;
  --jacobi-launches) jacobi_launches=$2; shift 2 ;;
  --cg-sizes) cg_sizes=$2; shift 2 ;;
  --repeat) repeat=$2; shift 2 ;;
  --rounds) rounds=$2; shift 2 ;;
  --tolerance) tolerance=$2; shift 2 ;;
  --anchors) with_anchors=1; shift ;;
  --no-sanitizer) sanitizer=0; shift ;;
  --backend) backend=$2; shift 2 ;;
  --build) build_dir=$(realpath -m "$2"); shift 2 ;;
  --out) outdir=$2; shift 2 ;;
  --dry-run) export GPU_DRY_RUN=1; shift ;;
  -h | --help) usage 0 ;;
  check | bench | compare | tree) [[ -z $command ]] || usage; command=$1; shift ;;
  -*) echo "gpu.sh: unknown option '$1'" >&2; usage ;;
  *) positional+=("$1"); shift ;;
  esac
done
[[ $backend == cuda || $backend == host ]] || { echo "gpu.sh: --backend cuda or host" >&2; usage; }
case $command in
check | bench) ((${#positional[@]} == 0)) || usage ;;
compare) ((${#positional[@]} == 2)) || usage ;;
tree) ((${#positional[@]} == 2)) || usage ;;
*) usage ;;
esac

# ---- tree REV DIR: here, a source tree for compare -------------------------------------------
if [[ $command == tree ]]; then
  set -e
  rev=${positional[0]} dir=${positional[1]}
  rm -rf "$dir" && mkdir -p "$dir"
  git archive "$rev" | tar -x -C "$dir" --exclude=results --exclude=docs/'*.png'
  exclude=$(git rev-parse --git-common-dir)/info/exclude
  rel=$(realpath --relative-to="$(git rev-parse --show-toplevel)" "$dir")
  grep -qx "/$rel/" "$exclude" 2>/dev/null || echo "/$rel/" >>"$exclude"
  echo "$dir: $(git rev-parse --short "$rev"), $(du -sh "$dir" | cut -f1); carry \"$rel\""
  exit 0
fi

# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/gpu-common.sh"
# shellcheck source=scripts/gpu-anchors.sh disable=SC1091
source "$(dirname "$0")/gpu-anchors.sh"
gpu_start "$outdir" gpu.log
mkdir -p "$out/json"
: >"$out/timing.txt"
say "# gpu.sh $command on $(hostname), backend $backend$( ((dry)) && echo ', dry run')"

if ((dry)) || [[ $backend == host ]]; then
  gpus=1
  echo "# $backend backend$( ((dry)) && echo ', dry run'): no GPU asked" >"$out/machine.txt"
else
  gpus=$(nvidia-smi -L | grep -c "^GPU")
  {
    nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.max.sm --format=csv
    nvidia-smi topo -m
    nvcc --version | tail -2
    mpirun --version | head -1
    echo "cpus $(nproc)"
  } >"$out/machine.txt" 2>&1
  cat "$out/machine.txt" >>"$log"
fi
share=(--allow-shared-gpu)
# the cmocka packages the unit tests need, carried as .debs (apt-get download libcmocka0
# libcmocka-dev, here) where the machine has none
prefix=()
if compgen -G "$top/.debs/*.deb" >/dev/null; then
  for deb in "$top"/.debs/*.deb; do dpkg -x "$deb" /tmp/cmocka-root; done
  prefix=(-DCMAKE_PREFIX_PATH=/tmp/cmocka-root/usr)
  export LD_LIBRARY_PATH=/tmp/cmocka-root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi

# build_tree SRC DIR BACKEND TESTS [TARGET...]: one build into DIR (kept between warm calls); exits
# when it fails
build_tree() {
  local src=$1 dir=$2 backend=$3 tests=$4 before=$failures
  shift 4
  local targets=()
  (($#)) && targets=(--target "$@")
  step "configure $(basename "$dir") ($backend, tests $tests)" timeout 600 cmake -S "$src" -B "$dir" \
    -DSHARDTAB_BACKEND="$backend" -DSHARDTAB_BUILD_TESTS="$tests" "${prefix[@]}"
  step "build $(basename "$dir")" timeout 900 cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
  ((failures == before)) || { say "# $src: the build failed (gpu.log)"; tail -30 "$log"; exit 1; }
}

# the build targets the timed programs need
targets_of() {
  local p
  for p in "$@"; do
    case $p in coll) echo coll_bench ;; spmv) echo spmv_check ;; *) echo "$p" ;; esac
  done
}

# tests_for PROGRAM...: ON where a timed program is a test (spmv_check), else OFF
tests_for() { [[ " $* " == *" spmv "* ]] && echo ON || echo OFF; }

# expect_once PATTERN CMD...: CMD prints a line matching PATTERN exactly once (one message, not
# one a rank)
# shellcheck disable=SC2317  # called via step
expect_once() {
  local pattern=$1 count
  shift
  count=$("$@" 2>&1 | tee /dev/stderr | grep -c -- "$pattern")
  echo "'$pattern' printed $count time(s), want 1"
  ((count == 1))
}

# verifies_or_refuses CMD...: CMD verifies, or is refused before the solve (exit 2, a reason that
# is not a wait's timeout)
# shellcheck disable=SC2317  # called via step
verifies_or_refuses() {
  local r rc
  r=$("$@" 2>&1)
  rc=$?
  echo "$r"
  ((rc == 0)) && grep -q "^# verify jacobi: OK" <<<"$r" && return 0
  ((rc == 2)) && ! grep -qi "late, stuck or gone" <<<"$r"
}

# sanitizer_off, sanitizer_on: compute-sanitizer runs without MPS
sanitizer_off() { mps_stop; }
sanitizer_on() { mps_start; }

# ---- check: each program's verifying runs ----------------------------------------------------
check_library() {
  step "unit tests" timeout 300 ctest --test-dir "$b" -L unit --output-on-failure
  step "GPU tests (ctest -L gpu)" timeout 300 ctest --test-dir "$b" -L gpu --output-on-failure
  step "a table made, used and destroyed from a second thread (np2)" \
    run -np 2 "$b/tests/shardtab/reliability/handed_memory" --allow-shared-device
  step "memory kinds legacy IPC cannot export, refused by name (np1)" run -np 1 "$b/tests/gpu/memory_kinds"
  step "1000 create/destroy cycles np2: fds, mappings, memory flat" \
    run -np 2 "$b/tests/shardtab/reliability/cycle_table" --allow-shared-device
  step "many tables over one allocation (np2)" run -np 2 "$b/tests/shardtab/reliability/many_tables" \
    --allow-shared-device
  step "SIGKILL rank 1 of 2 while the kernels run" "$top/tests/shardtab/reliability/sigkill.sh" --phase run \
    --np 2 --rank 1 --end-within 10 mpirun "$b/multi_scal" --n 1G --iters 10000 --mode local "${share[@]}"
  for mode in example barrier streams; do
    step "signal_example $mode np2" run -np 2 "$b/tests/shardtab/signals/signal_example" --mode "$mode" \
      --rounds 500 "${share[@]}"
  done
  step "signal_example concurrent: two barriers of one rank at once, refused by name, exit 2" \
    expect_line "entered a barrier of this table while another" expect_rc 2 \
    run -np 2 -x SHARDTAB_WAIT_TIMEOUT=5 "$b/tests/shardtab/signals/signal_example" --mode concurrent "${share[@]}"
}

check_multi_scal() {
  local ms=$b/multi_scal variant
  step "multi_scal np2 default" run -np 2 "$ms" "${share[@]}"
  step "multi_scal np2 --n 1G (4 GiB a shard), every mode" run -np 2 "$ms" --n 1G "${share[@]}"
  step "multi_scal np2 uneven --n 1000003 -i 3 -a 0.5" run -np 2 "$ms" --n 1000003 -i 3 -a 0.5 "${share[@]}"
  step "multi_scal np2 --n 1" run -np 2 "$ms" --n 1 "${share[@]}"
  step "multi_scal np4 shared, --n 2 (empty shards)" run -np 4 "$ms" --n 2 "${share[@]}"
  step "multi_scal np4 shared, --n 256M+1" run -np 4 "$ms" --n 268435457 "${share[@]}"
  ((gpus < 4)) && step "multi_scal np4 without --allow-shared-gpu: exit 2" expect_rc 2 run -np 4 "$ms"
  step "multi_scal np4 SHARDTAB_RANKS_PER_NODE=2" run -np 4 -x SHARDTAB_RANKS_PER_NODE=2 "$ms" "${share[@]}"
  for variant in naive vec2 vec2x4 vec2x8 vec2x4s chunk; do
    step "multi_scal np2 variant $variant --n 100000007" run -np 2 "$ms" --variant "$variant" --n 100000007 -i 2 \
      "${share[@]}"
  done
  step "multi_scal np2 --check-peers" run -np 2 "$ms" --check-peers "${share[@]}"
  step "multi_scal np2, fault at open on rank 1: one message" expect_once "fault injected" \
    run -np 2 -x SHARDTAB_FAULT=open:1 "$ms" "${share[@]}"
  # shellcheck disable=SC2016  # expanded by each rank's shell
  step "multi_scal np2, one visible GPU per rank" run -np 2 bash -c \
    'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' "$ms" --n 10M "${share[@]}"
  step "every kernel variant and chunk shape, bit for bit" "$b/tests/gpu/scal_variants"
  step "seed scenario" "$b/tests/gpu/seed_scenario"
  if ((sanitizer)); then
    sanitizer_off
    for tool in memcheck initcheck racecheck; do
      step "compute-sanitizer $tool, multi_scal np2" run -np 2 compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$ms" --n 100003 "${share[@]}"
    done
    step "compute-sanitizer memcheck, multi_scal np2 --check-peers" run -np 2 compute-sanitizer --tool memcheck \
      --error-exitcode 9 "$ms" --check-peers --n 100003 "${share[@]}"
    sanitizer_on
  fi
}

check_jacobi() {
  local jac=$b/jacobi l v spec np g nx ny
  local ok="^# verify jacobi: OK"
  for l in persistent onchip temporal graph stream auto; do
    step "jacobi np1 $l 1024x1026, random start" expect_line "$ok" \
      run -np 1 "$jac" -nx 1024 -ny 1026 -niter 301 --launch "$l" --init random --cpu-check no
  done
  for l in persistent graph stream auto; do
    step "jacobi np2 $l 1026x515 (uneven rows), random start" expect_line "$ok" \
      run -np 2 "$jac" -nx 1026 -ny 515 -niter 300 --launch "$l" --init random "${share[@]}"
  done
  for spec in 2:1024:1026 3:1000:999 4:4096:4096; do
    IFS=: read -r np nx ny <<<"$spec"
    step "jacobi np$np temporal ${nx}x$ny, random start" expect_line "$ok" \
      run -np "$np" "$jac" -nx "$nx" -ny "$ny" -niter 301 --launch temporal --init random --cpu-check no "${share[@]}"
  done
  for l in persistent graph stream; do
    step "jacobi np1 $l 2048^2 x 1000, CPU check" expect_line "^# check cpu: the plain reference equals a CPU loop" \
      run -np 1 "$jac" -nx 2048 -ny 2048 -niter 1000 --init random --launch "$l" --cpu-check yes
  done
  step "jacobi np1 persistent, one column a thread (nx % 4 != 0)" expect_line "$ok" \
    run -np 1 "$jac" -nx 2050 -ny 1027 -niter 300 --init random --launch persistent
  for np in 2 3 4; do
    step "jacobi np$np onchip 1024x1030 between ranks" expect_line "$ok" \
      run -np "$np" "$jac" -nx 1024 -ny 1030 -niter 300 --init random --launch onchip "${share[@]}"
  done
  step "jacobi np1 onchip refuses 4096^2: exit 2" expect_rc 2 run -np 1 "$jac" -nx 4096 -ny 4096 -niter 10 \
    --launch onchip
  for v in host-sync mpi; do
    step "jacobi np2 variant $v" expect_line "$ok" run -np 2 "$jac" -nx 1026 -ny 515 -niter 200 --init random \
      --variant "$v" "${share[@]}"
  done
  step "jacobi np2 simulated two nodes" expect_line "$ok" run -np 2 -x SHARDTAB_RANKS_PER_NODE=1 "$jac" \
    -nx 1026 -ny 515 -niter 200 --init random "${share[@]}"
  for l in persistent graph; do
    step "jacobi np2 $l converges and stops on the device (-nccheck 3)" expect_line "$ok" \
      run -np 2 "$jac" -nx 66 -ny 34 -niter 20000 -nccheck 3 --launch "$l" "${share[@]}"
  done
  for l in onchip temporal; do
    step "jacobi np1 $l converges, the stop at 422 inside a pass" expect_line "422 iterations each" \
      run -np 1 "$jac" -nx 20 -ny 20 -niter 5000 -nccheck 7 --launch "$l"
  done
  # every check must fail on a planted bug the zero start would not see
  for spec in "kernel:stale:30:1024:40|check reference: .* DIFFERS" "run:stale:30:1024:40|check run: .* DIFFERS" \
    "plain:stale:30:1024:40|check cpu: the plain reference DIFFERS" "run:norm:30:1024:40|norms differ by" \
    "run:stop:0:0:30|31 iterations, expected 60"; do
    for l in persistent graph; do
      step "jacobi planted bug ${spec%%|*}, $l: caught" expect_line "${spec#*|}" expect_rc 1 \
        run -np 2 -x JACOBI_TEST_FAULT="${spec%%|*}" "$jac" -nx 2048 -ny 66 -niter 60 --init random --launch "$l" \
        "${share[@]}"
    done
  done
  for spec in onchip:run:edge:300:0:40 onchip:run:lag:300:0:0 temporal:run:edge:100:300:40 temporal:run:stale:100:300:40; do
    step "jacobi np1 ${spec%%:*}, planted ${spec#*:}: caught" expect_rc 1 run -np 1 -x JACOBI_TEST_FAULT="${spec#*:}" \
      "$jac" -nx 1024 -ny 1026 -niter 200 --launch "${spec%%:*}" --init random --cpu-check no
  done
  for l in persistent graph onchip; do
    local nx=1026 # an odd width; onchip's tiles take four columns a thread
    [[ $l == onchip ]] && nx=1024
    step "jacobi np2 $l, a rank that never signals: every rank ends, exit 1" expect_rc 1 \
      run -np 2 -x JACOBI_TEST_SKIP_SIGNAL=1 -x SHARDTAB_WAIT_TIMEOUT=2 "$jac" -nx "$nx" -ny 515 -niter 300 \
      -nccheck 1000 --launch "$l" "${share[@]}"
  done
  # ranks sharing the GPU under MPS: each verifies, or is refused before the solve (exit 2)
  for np in 2 4; do
    for g in 1024 2048 4096; do
      for l in persistent onchip; do
        step "jacobi np$np ${g}^2 $l under MPS: verifies or refuses" verifies_or_refuses \
          run -np "$np" -x CUDA_MPS_PIPE_DIRECTORY "$jac" -nx "$g" -ny "$g" -niter 1000 --launch "$l" --repeat 3 \
          --init random --cpu-check no "${share[@]}"
      done
    done
  done
  if ((sanitizer)); then
    sanitizer_off
    for l in persistent onchip temporal stream; do
      step "compute-sanitizer memcheck, jacobi np1 $l" run -np 1 compute-sanitizer --error-exitcode 9 --tool memcheck \
        "$jac" -nx 516 -ny 259 -niter 40 --init random --launch "$l"
      step "compute-sanitizer racecheck, jacobi np1 $l" run -np 1 compute-sanitizer --error-exitcode 9 \
        --tool racecheck "$jac" -nx 516 -ny 259 -niter 20 --init random --launch "$l"
    done
    sanitizer_on
  fi
}

check_cg() {
  local cg=$b/cg np variant launch spec prints=() f label
  local ok="^# verify cg: OK [(]([0-9]+ iterations as|not converged in [0-9]+ iterations, nor) the CPU's CG"
  for np in 1 2 3 4; do
    for variant in standard pipelined; do
      for launch in persistent stream; do
        step "cg np$np $variant $launch 2d:257" expect_line "$ok" run -np "$np" "$cg" --poisson 2d:257 -niter 400 \
          --variant "$variant" --launch "$launch" --cpu-check yes "${share[@]}"
      done
    done
    step "cg np$np pipelined persistent 3d:31" expect_line "$ok" run -np "$np" "$cg" --poisson 3d:31 \
      --variant pipelined --launch persistent --cpu-check yes "${share[@]}"
  done
  for spec in 2/1 4/2 3/2; do
    step "cg np${spec%/*} in nodes of ${spec#*/}" expect_line "$ok" run -np "${spec%/*}" \
      -x SHARDTAB_RANKS_PER_NODE="${spec#*/}" "$cg" --poisson 2d:257 -niter 400 --cpu-check yes "${share[@]}"
  done
  # --repro: one fingerprint at every rank count, across nodes and on the host backend
  for variant in standard pipelined; do
    prints=()
    for spec in host 1 2 3 4 2/1 4/2; do
      f=$out/repro-$variant-${spec/\//-}.txt
      if [[ $spec == host ]]; then
        step "cg --repro $variant, host backend np2" run -np 2 "$hb/cg" --poisson 3d:40 -niter 200 --tol 0 \
          --variant "$variant" --repro --cpu-check no --json "$f.json"
      else
        label="np${spec%/*}"
        [[ $spec == */* ]] && label+=" in nodes of ${spec#*/}"
        step "cg --repro $variant $label" run -np "${spec%/*}" -x SHARDTAB_RANKS_PER_NODE="${spec#*/}" \
          "$cg" --poisson 3d:40 -niter 200 --tol 0 --variant "$variant" --repro --cpu-check no --json "$f.json" \
          "${share[@]}"
      fi
      prints+=("$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["x_fingerprint"], d["history_fingerprint"])' \
        "$f.json" 2>/dev/null || echo "none ($spec)")")
    done
    step "cg --repro $variant: one fingerprint everywhere (${prints[0]})" \
      test "$(printf '%s\n' "${prints[@]}" | sort -u | wc -l)" -eq 1 -a "${prints[0]}" != "none (host)"
  done
  for np in 1 2; do
    step "python cg.py np$np (CuPy over the table)" expect_line "^# verify cg.py: OK" \
      run -np "$np" -x PYTHONPATH="$top/src/python" -x SHARDTAB_LIBRARY="$b/libshardtab.so" \
      python3 "$top/src/python/examples/cg.py" --n 64 --niter 400
  done
}

check_comm() {
  local comm=$b/tests/shardtab/comm/comm_check stream=$b/tests/shardtab/comm/stream_check np spec fault rc re
  for np in 1 2 4; do
    step "comm_check np$np: every call bit for bit" expect_line "^# comm_check: OK" run -np "$np" "$comm" "${share[@]}"
    step "stream_check np$np: every op, type, count, algorithm" expect_line "^# stream_check: OK" \
      run -np "$np" "$stream" "${share[@]}"
  done
  step "stream_check np2, 64 MiB a rank" expect_line "64 MiB all-reduce OK" run -np 2 "$stream" --big "${share[@]}"
  step "stream_check np4 on 2+2 nodes" expect_line "^# stream_check: OK" \
    run -np 4 -x SHARDTAB_RANKS_PER_NODE=2 "$stream" "${share[@]}"
  for spec in "never|1|a device-side wait gave up" "corrupt|1|fail their checksum" \
    "count|2|disagree on a collective call" "concurrent|2|while another call of the same collective" \
    "third|2|started a third call"; do
    IFS='|' read -r fault rc re <<<"$spec"
    step "comm_check np2, planted $fault: caught on every rank" expect_line "$re" expect_rc "$rc" \
      run -np 2 -x SHARDTAB_WAIT_TIMEOUT=2 "$comm" --fault "$fault" "${share[@]}"
  done
  for fault in count offset; do
    step "stream_check np2, planted $fault: one message, exit 2" expect_rc_line 2 "stream_check: error" \
      run -np 2 -x SHARDTAB_WAIT_TIMEOUT=5 "$stream" --fault "$fault" "${share[@]}"
  done
  for np in 2 4; do
    step "Python collectives over torch tensors, np$np" expect_line "^# verify torch collectives: OK" \
      run -np "$np" -x PYTHONPATH="$top/src/python" -x SHARDTAB_LIBRARY="$b/libshardtab.so" \
      python3 "$top/tests/gpu/check_torch_collectives.py" --allow-shared-device
  done
}

check_spmv() {
  local check=$b/tests/sparse/spmv_check np spec
  for np in 1 2 3 4; do
    for spec in 2d:257 3d:31; do
      step "spmv_check np$np $spec" expect_line "^# spmv_check: OK" run -np "$np" "$check" --poisson "$spec" "${share[@]}"
    done
  done
  step "spmv_check np2, planted bug: caught" expect_rc_line 1 "rank 0: [0-9]+ of its [0-9]+ rows differ" \
    run -np 2 "$check" --poisson 2d:257 --fault "${share[@]}"
}

check_fronts() {
  local fresh
  step "python + torch fronts (np2)" run -np 2 -x PYTHONPATH="$top/src/python" -x SHARDTAB_LIBRARY="$b/libshardtab.so" \
    -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NCCL_NVLS_ENABLE python3 "$top/tests/gpu/check_torch.py" --allow-shared-device
  # the README's main command as a new user runs it, from a fresh copy
  fresh=/tmp/shardtab-fresh
  ((dry)) || { rm -rf "$fresh" && mkdir -p "$fresh" &&
    tar -C "$top" --exclude='./build*' --exclude='./.git' --exclude=./results -cf - . | tar -C "$fresh" -xf -; }
  step "scripts/run.sh from a fresh copy, no argument" expect_line "^# verify ring: OK" \
    bash -c "cd '$fresh' && timeout 400 scripts/run.sh"
}

check_examples() {
  step "examples against the installed package (ctest -L examples)" \
    timeout 600 ctest --test-dir "$b" -L examples --output-on-failure --timeout 300
}

# ---- bench and compare: timed runs, A B A B ---------------------------------------------------
# timed PROGRAM CONFIG VALUE RAN NP BINARY ARGS...: one configuration, each tree in turn for each
# round; BINARY is a name in the tree's build; VALUE and RAN are Python expressions of the run's
# JSON (d; --json FILE is added unless TIMED_JSON=0) and output (t), VALUE None when the run did
# not verify; a line of timing.txt each
timed() {
  local program=$1 config=$2 value=$3 ran=$4 np=$5 binary=$6 round tree json r line jsonargs
  shift 6
  for ((round = 1; round <= rounds; round++)); do
    for tree in "${trees[@]}"; do
      json=$out/json/$program-${config// /-}-$tree-$round.json
      jsonargs=(--json "$json")
      ((${TIMED_JSON:-1})) || jsonargs=()
      if ((dry)); then
        say "\$ run -np $np ${tree_dir[$tree]}/$binary $* ${jsonargs[*]}"
        continue
      fi
      rm -f "$json"
      r=$(run -np "$np" "${tree_dir[$tree]}/$binary" "$@" "${jsonargs[@]}" 2>&1)
      echo "$r" >>"$log"
      line=$(python3 -c "$extract" "$json" "$value" "$ran" <<<"$r" 2>>"$log")
      [[ -n $line ]] || line=$'-\t-'
      [[ $line == -$'\t'* ]] && { failures=$((failures + 1)); say "# $program $config [$tree]: failed or not verified"; }
      printf '%s\t%s\t%s\t%s\t%s\n' "$program" "$config" "$tree" "$round" "$line" >>"$out/timing.txt"
    done
  done
}
# extract JSON VALUE RAN (the output on stdin): "value<TAB>ran", value "-" when the run did not
# verify, "refused" when the program refused the configuration (a mode that does not fit)
extract='
import json, re, sys
t = sys.stdin.read()
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    d = {}
try:
    v, ran = eval(sys.argv[2]), eval(sys.argv[3])
except Exception:
    v, ran = None, "-"
if v is None:
    v = "refused" if "cannot run here" in t else "-"
else:
    v = f"{v:.6g}"
print(f"{v}\t{ran}")
'
jacobi_value='d["seconds"] if d.get("verified") is True else None'
jacobi_ran='d.get("launch", "-")'
cg_value='d["us_per_iteration"] if d.get("verified") is True and d.get("exit_status", 0) == 0 else None'
cg_ran='d["launch"]'  # the floor of each run is in its JSON (floor_us_per_iteration)
ms_value='next(r["gbps"] for r in d["results"] if r["verified"] and not r["mismatches"]) if d.get("exit_status") == 0 else None'

time_jacobi() {
  local n nx ny np l nps=(1)
  ((gpus >= 2)) && nps=(1 2)
  for n in $jacobi_sizes; do
    [[ $n == *x* ]] || n=${n}x$n
    nx=${n%x*} ny=${n#*x}
    for np in "${nps[@]}"; do
      for l in $jacobi_launches; do
        timed jacobi "np$np $n $l" "$jacobi_value" "$jacobi_ran" "$np" jacobi -nx "$nx" -ny "$ny" -niter 1000 \
          --repeat "$repeat" --cpu-check no --launch "$l"
      done
      timed jacobi "np$np $n persistent-one-norm" "$jacobi_value" "$jacobi_ran" "$np" jacobi -nx "$nx" -ny "$ny" \
        -niter 1000 -nccheck 1000 --repeat "$repeat" --cpu-check no --launch persistent
      if ((np == 2)); then
        for v in host-sync mpi; do
          timed jacobi "np2 $n $v" "$jacobi_value" "$jacobi_ran" 2 jacobi -nx "$nx" -ny "$ny" -niter 1000 \
            --repeat "$repeat" --cpu-check no --variant "$v"
        done
      fi
    done
  done
}

time_cg() {
  local n tol np variant launch
  for n in $cg_sizes; do
    tol=0
    ((n == 256)) && tol=1e-8 # pipelined CG reaches rounding before 1000 iterations at 256^2
    for np in 1 2; do
      for variant in standard pipelined; do
        for launch in persistent stream; do
          ((np == 2)) && [[ $launch == stream ]] && continue
          timed cg "np$np 2d:$n $variant $launch" "$cg_value" "$cg_ran" "$np" cg --poisson "2d:$n" -niter 1000 \
            --tol "$tol" --repeat "$((repeat > 5 ? repeat : 5))" --cpu-check no --variant "$variant" --launch "$launch" \
            --floor "${share[@]}"
        done
        timed cg "np$np 2d:$n $variant persistent-repro" "$cg_value" "$cg_ran" "$np" cg --poisson "2d:$n" \
          -niter 1000 --tol "$tol" --repeat "$((repeat > 5 ? repeat : 5))" --cpu-check no --variant "$variant" \
          --launch persistent --repro "${share[@]}"
      done
    done
  done
}

time_multi_scal() {
  local mode
  for mode in local ring global; do
    timed multi_scal "np2 4GiB-shards $mode" "$ms_value" '"GB/s"' 2 multi_scal --n 1G --mode "$mode" -i 20 "${share[@]}"
  done
}

time_coll() {
  local np size
  for np in 2 4; do
    for size in 8 65536 268435456; do
      TIMED_JSON=0 timed coll "np$np ${size}B auto" \
        '[float(m.group(1)) for m in re.finditer(r"^ +'"$size"' +\d+ +float +sum +auto +([0-9.]+)", t, re.M)][0] if "every result verified" in t else None' \
        '"us"' "$np" coll_bench --min "$size" --max "$size" --repeats 7 "${share[@]}"
    done
    TIMED_JSON=0 timed coll "np$np device-side 8B held" \
      'float(re.search(r"held: one claim a kernel\): median ([0-9.]+) us", t).group(1)) if "every result verified" in t else None' \
      '"us"' "$np" coll_bench --max 8 --repeats 7 "${share[@]}"
  done
}

time_spmv() {
  local np spec
  for np in 1 2; do
    for spec in 2d:256 2d:512 2d:2048 3d:128; do
      TIMED_JSON=0 timed spmv "np$np $spec" \
        'float(re.search(r"^# spmv_check bench:.*: ([0-9.]+) us a product", t, re.M).group(1)) if "# spmv_check: OK" in t else None' \
        '"us"' "$np" tests/sparse/spmv_check --poisson "$spec" --bench 50 "${share[@]}"
    done
  done
}

# the anchors, in the same job: rows of their own in timing.txt (tree "anchor")
anchors_jacobi() {
  local n a t g names np
  anchors_build single_gpu multi_threaded_p2p_opt nccl nccl_graphs nvshmem cpu-free
  for n in $jacobi_sizes; do
    [[ $n == *x* ]] || n=${n}x$n
    for np in 1 2; do
      ((np > gpus)) && continue
      names=(single_gpu cpu-free-v2 cpu-free-v4)
      ((np == 2)) && names=(multi_threaded_p2p_opt nccl nccl_graphs nvshmem cpu-free-v2 cpu-free-v4)
      for a in "${names[@]}"; do
        ts=()
        for ((r = 0; r < repeat; r++)); do
          if ((dry)); then say "\$ anchor $a ${n} np$np"; break; fi
          read -r t _ <<<"$(anchor_jacobi "$a" "${n%x*}" "${n#*x}" 1000 "$np")"
          [[ -n $t ]] && ts+=("$t")
        done
        ((dry)) && continue
        g=$(python3 -c 'import statistics, sys; v = [float(x) for x in sys.argv[1:]]; print(statistics.median(v) if v else "-")' "${ts[@]}")
        printf 'jacobi\tnp%s %s %s\tanchor\t1\t%s\t%s\n' "$np" "$n" "$a" "$g" "$([[ $a == cpu-free-* ]] && echo no-norm || echo -)" \
          >>"$out/timing.txt"
      done
    done
  done
}

anchors_cg() {
  local n v t
  anchors_build cg
  for n in $cg_sizes; do
    for v in 2 3 8; do
      if ((dry)); then say "\$ anchor cg -v $v 2d:$n"; continue; fi
      t=$(anchor_cg "$n" "$v")
      say "anchor cg 2d:$n -v $v: $t"
      t=$(sed -n 's/.*Execution time: *\([0-9.e+-]*\) s.*/\1/p' <<<"$t")
      printf 'cg\tnp1 2d:%s anchor-v%s\tanchor\t1\t%s\tus/it\n' "$n" "$v" \
        "$(python3 -c 'import sys; print("%.6g" % (float(sys.argv[1]) * 1e3) if sys.argv[1] else "-")' "$t")" >>"$out/timing.txt"
    done
  done
}

anchors_multi_scal() {
  step "torch mul_ at the bench's sizes, each GPU" python3 "$top/scripts/gpu-torch-baseline.py" \
    --bytes 1M,4M,16M,64M,256M,1G,4G --device "$(seq -s, 0 $((gpus - 1)))"
}

anchors_coll() {
  step "NCCL and SymmetricMemory all-reduce (torch), np$gpus" \
    expect_line "^# bench_torch_allreduce: every result verified" run -np "$gpus" \
    -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=$((29500 + $$ % 2000)) -x NCCL_NVLS_ENABLE \
    -x TORCH_SYMM_MEM_DISABLE_MULTICAST python3 "$top/tests/gpu/bench_torch_allreduce.py" --max 1073741824
}

# the table: per program and configuration, each tree's median over its rounds; B / A in compare
table() {
  python3 - "$out/timing.txt" "$tolerance" "${trees[@]}" <<'PY'
import statistics, sys
path, tolerance, trees = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
rows = {}
for line in open(path):
    program, config, tree, _, value, ran = line.rstrip("\n").split("\t")
    row = rows.setdefault((program, config), {})
    row.setdefault(tree, []).append((value, ran))
def median(got):
    v = [float(x) for x, _ in got if x not in ("-", "refused")]
    return statistics.median(v) if v else None
cols = trees + (["anchor"] if any("anchor" in r for r in rows.values()) else [])
print(f"{'program':<10} {'configuration':<36}" + "".join(f" {t:>12}" for t in cols)
      + ("   B/A" if len(trees) == 2 else "") + "  ran")
beyond = 0
for (program, config), row in rows.items():
    med = {t: median(row.get(t, [])) for t in cols}
    cells = "".join(
        f" {med[t]:12.6g}" if med[t] is not None
        else f" {('refused' if any(x == 'refused' for x, _ in row.get(t, [])) else '-'):>12}" for t in cols)
    ratio = ""
    if len(trees) == 2:
        a, b = med[trees[0]], med[trees[1]]
        if a and b:
            r = b / a
            # coll, spmv, jacobi, cg: times (smaller is better); multi_scal: GB/s
            mark = " *" if abs(r - 1) > tolerance else "  "
            beyond += mark == " *"
            ratio = f" {r:5.3f}{mark}"
        else:
            ratio = "     -  "
    ran = " / ".join(sorted({r for t in cols for _, r in row.get(t, [])}))
    print(f"{program:<10} {config:<36}{cells}{ratio}  {ran}")
if len(trees) == 2:
    print(f"# {beyond} row(s) beyond B/A 1 +- {tolerance} (marked *); the trees: gpu.log's first lines")
PY
}

# ---- the command -----------------------------------------------------------------------------
declare -A tree_dir=()
case $command in
check)
  programs=${programs:-library multi_scal jacobi cg comm spmv fronts examples}
  b=${build_dir:-$top/build-gpu}
  hb=$top/build-gpu-host
  [[ $backend == cuda ]] && mps_start
  build_tree "$top" "$b" "$backend" ON
  [[ " $programs " == *" cg "* ]] && build_tree "$top" "$hb" host OFF cg
  for p in $programs; do
    declare -F "check_$p" >/dev/null || { say "# check: no program '$p'"; failures=$((failures + 1)); continue; }
    say "# ---- check $p"
    "check_$p"
  done
  say "# gpu.sh check: $failures failure(s)"
  grep -E "^## .*: (PASS|FAIL)" "$log" | grep -c PASS | sed 's/^/# steps passed: /'
  grep -E "^## .*: FAIL" "$log"
  ;;
bench | compare)
  if [[ $command == bench ]]; then
    programs=${programs:-multi_scal jacobi cg coll spmv}
    rounds=${rounds:-1}
    trees=(this)
    tree_dir[this]=${build_dir:-$top/build-gpu}
    # shellcheck disable=SC2046,SC2086  # one target a word
    build_tree "$top" "${tree_dir[this]}" "$backend" "$(tests_for $programs)" $(targets_of $programs)
  else
    programs=${programs:-jacobi cg}
    rounds=${rounds:-2}
    trees=(A B)
    for t in 0 1; do
      src=$(cd "${positional[$t]}" && pwd) || { echo "gpu.sh: no tree ${positional[$t]}" >&2; exit 2; }
      tree_dir[${trees[$t]}]=$top/build-gpu-compare-${trees[$t]}
      say "# tree ${trees[$t]}: $src"
      # shellcheck disable=SC2046,SC2086  # one target a word
      build_tree "$src" "${tree_dir[${trees[$t]}]}" "$backend" "$(tests_for $programs)" $(targets_of $programs)
    done
  fi
  for p in $programs; do
    declare -F "time_$p" >/dev/null || { say "# $command: no program '$p'"; failures=$((failures + 1)); continue; }
    say "# ---- $command $p"
    # ranks sharing the GPU run at once under MPS for the collectives; one rank runs alone
    if [[ $p == coll || $p == spmv || $p == cg ]] && ((gpus < 2)) && [[ $backend == cuda ]]; then mps_start; else
      mps_stop
    fi
    "time_$p"
    if [[ $command == bench && $p == multi_scal ]]; then
      step "multi_scal bench sweep np2, 1 MiB to 4 GiB a shard" run -np 2 "${tree_dir[this]}/multi_scal" --bench \
        --json "$out/json/bench-np2.json" "${share[@]}"
    fi
    if ((with_anchors)) && [[ $command == bench ]] && declare -F "anchors_$p" >/dev/null; then "anchors_$p"; fi
    # the rows so far, so that a call cut short by its time limit keeps the programs it finished
    ((dry)) || table >"$out/table.txt"
  done
  mps_stop
  ((dry)) || table | tee "$out/table.txt" | tee -a "$log"
  say "# gpu.sh $command: $failures failure(s)"
  ;;
esac
exit $((failures > 0))
