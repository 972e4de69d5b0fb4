#!/usr/bin/env bash
# run_examples.sh - docs/examples as their users build and run them, against an
# installed shardtab only. One step a call, so that ctest runs them as cases
# beside each other after one install:
#   install     cmake --install the build tree into WORK/prefix (done once: the
#               other steps' fixture)
#   cmake       docs/examples configured as a project of its own with
#               CMAKE_PREFIX_PATH=WORK/prefix alone (find_package(shardtab)), built;
#               ldd shows the prefix's libshardtab.so.1; each example run: the C
#               ones and the Fortran one at 2 ranks, heat3d (the halo exchange
#               on a 3-D grid) at 1, 2, 3, 4 and 8, faces2d (direct faces) at 1, 2
#               and 3 and at 4 over simulated nodes of two; bad usage refused with
#               one line and exit 2
#   pkg-config  the same examples compiled with mpicc (mpif90) and
#               pkg-config's shardtab (shardtab-fortran), and run; and README.md's
#               first program, as printed there, in strict C11, at 3 ranks
#   python      numpy_table.py at 2 ranks and numpy_halo.py at 4 (a 2x2 grid) from
#               the prefix's Python package; and
#               gpu_table.py, which on the host backend must say it skipped (no
#               GPU) and exit 77: checked here, never a case of its own
# Every step has a time limit; each prints what it runs.
#
# Usage: run_examples.sh STEP --build DIR --source DIR --work DIR [--libdir DIR]
#          [--backend B] [--cmake CMAKE] [--generator GEN] [--cc CC]
#          [--initial-cache FILE (GPU compilers)] [--rocm-root DIR (Debian's ROCm)]
#          [--mpicc MPICC] [--mpif90 MPIF90] [--fortran] [--python PY --python-dir DIR]
#          [--mpiexec MPIEXEC] [--np-flag FLAG] [--preflags "FLAGS"] [--postflags "FLAGS"]
# Exit 0 all passed, 1 a check failed (each named), 2 bad usage.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u

step=${1:-}
shift || true
build="" source_dir="" work="" libdir=lib backend=host cmake=cmake generator="" cc="" rocm_root=""
mpicc=mpicc mpif90="" fortran=0 python="" python_dir="" mpiexec=mpiexec np_flag=-n
preflags="" postflags=""
cmake_args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --fortran) fortran=1; shift; continue ;;
    --build) build=$2 ;;
    --source) source_dir=$2 ;;
    --work) work=$2 ;;
    --libdir) libdir=${2:-lib} ;;
    --backend) backend=$2 ;;
    --cmake) cmake=${2:-cmake} ;;
    --generator) generator=$2 ;;
    --cc) cc=$2 ;;
    --initial-cache) cmake_args+=(-C "$2") ;;
    --rocm-root) rocm_root=$2 ;;
    --mpicc) mpicc=${2:-mpicc} ;;
    --mpif90) mpif90=$2 ;;
    --python) python=$2 ;;
    --python-dir) python_dir=$2 ;;
    --mpiexec) mpiexec=${2:-mpiexec} ;;
    --np-flag) np_flag=${2:--n} ;;
    --preflags) preflags=$2 ;;
    --postflags) postflags=$2 ;;
    *) echo "run_examples.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift 2
done
case "$step" in
install | cmake | pkg-config | python) ;;
*) echo "run_examples.sh: the first word is the step: install, cmake, pkg-config or python" >&2; exit 2 ;;
esac
if [ -z "$build" ] || [ -z "$source_dir" ] || [ -z "$work" ]; then
    echo "run_examples.sh: --build, --source and --work are required" >&2
    exit 2
fi

# shellcheck source=tests/lib/driver.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/../lib/driver.sh"
# nothing of the caller's may lead a build to another shardtab than the prefix's
unset CMAKE_PREFIX_PATH PKG_CONFIG_PATH PYTHONPATH SHARDTAB_LIBRARY

examples=$source_dir/docs/examples
prefix=$work/prefix
here=$work/$step
read -r -a pre <<<"$preflags"
read -r -a post <<<"$postflags"

# On a GPU backend a case's ranks may outnumber the machine's GPUs: the examples that
# take it run with --allow-shared-gpu there; the README's program, which does not, at as
# many ranks as GPUs (up to 3), numpy_table.py at one rank, numpy_halo.py at up to 2
share=()
first_np=3
numpy_np=2
halo_np=4
if [ "$backend" != host ]; then
    share=(--allow-shared-gpu)
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
    [ "${gpus:-0}" -gt 0 ] ||
        gpus=$(rocminfo 2>/dev/null | grep -cE '^[[:space:]]+Name:[[:space:]]+gfx' || true)
    first_np=$((${gpus:-0} < 1 ? 1 : (gpus < 3 ? gpus : 3)))
    numpy_np=1
    halo_np=$((${gpus:-0} < 2 ? 1 : 2))
fi

note() { printf '\n==== %s\n' "$*"; }
# limited LIMIT CMD...: runs with a time limit, the command shown; returns its status
limited() {
    local limit=$1
    shift
    echo "+ $*"
    timeout -k 5 "$limit" "$@"
}

# launch NP PROGRAM [ARGS...]: PROGRAM under mpiexec at NP ranks, 60 s at most,
# stdout in $here/out, stderr in $here/err; returns mpiexec's status
launch() {
    local np=$1 pass=()
    shift
    [ -n "${PYTHONPATH+set}" ] && pass+=(PYTHONPATH)
    [ -n "${SHARDTAB_RANKS_PER_NODE+set}" ] && pass+=(SHARDTAB_RANKS_PER_NODE)
    mpi_launch_flags "$mpiexec" "${pass[@]+"${pass[@]}"}"
    (
        mpi_single_rank_quick_exit "$np" # a refusal at one rank: no kill grace
        limited 60 "$mpiexec" "${launch_flags[@]+"${launch_flags[@]}"}" "$np_flag" "$np" \
            "${pre[@]+"${pre[@]}"}" "$@" "${post[@]+"${post[@]}"}"
    ) >"$here/out" 2>"$here/err"
    local rc=$?
    cat "$here/out" "$here/err"
    return "$rc"
}

# verified NAME NP PROGRAM [ARGS...]: exit 0, and one line "NAME: OK ..." on stdout
verified() {
    local name=$1 np=$2 rc=0
    shift 2
    launch "$np" "$@" || rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$name at $np ranks exited $rc"
    elif [ "$(grep -c "^$name: OK " "$here/out")" -ne 1 ]; then
        fail "$name at $np ranks did not print one line '$name: OK ...'"
    fi
}

# refused NAME PROGRAM [ARGS...]: bad usage at one rank: exit 2, one line from
# the program, naming it, and no OK
refused() {
    local name=$1 rc=0
    shift
    launch 1 "$@" || rc=$?
    local said
    said=$(cat "$here/out" "$here/err" | grep -c "^$name: ")
    if [ "$rc" -ne 2 ]; then
        fail "$name with bad usage exited $rc, expected 2"
    elif [ "$said" -ne 1 ] || grep -q "^$name: OK" "$here/out"; then
        fail "$name with bad usage: expected one line '$name: ...', found $said"
    fi
}

rm -rf "$here"
mkdir -p "$here"
case "$step" in
install)
    note "install $build into $prefix"
    rm -rf "$prefix"
    limited 120 "$cmake" --install "$build" --prefix "$prefix" >"$here/install.log" ||
        fail "cmake --install failed: $(tail -n 5 "$here/install.log")"
    for f in "$libdir/libshardtab.so.1" "$libdir/cmake/shardtab/shardtabConfig.cmake" \
             "$libdir/pkgconfig/shardtab.pc" include/shardtab.h; do
        [ -f "$prefix/$f" ] || fail "not installed: $f"
    done
    ;;

cmake)
    note "docs/examples as a project of its own: find_package(shardtab) in $prefix"
    gen=()
    [ -n "$generator" ] && gen=(-G "$generator")
    [ -n "$cc" ] && cmake_args+=("-DCMAKE_C_COMPILER=$cc")
    # Debian's packaged ROCm: CMake's HIP check looks for amd_comgr in the environment's
    # CMAKE_PREFIX_PATH (as a user there sets it); ROCm's, never shardtab's
    [ -n "$rocm_root" ] && export CMAKE_PREFIX_PATH=$rocm_root
    if limited 120 "$cmake" -S "$examples" -B "$here/build" "${gen[@]+"${gen[@]}"}" \
            "-DCMAKE_PREFIX_PATH=$prefix" "${cmake_args[@]+"${cmake_args[@]}"}" &&
        limited 180 "$cmake" --build "$here/build"; then
        found=$(sed -n 's/^shardtab_DIR:PATH=//p' "$here/build/CMakeCache.txt")
        case "$found" in
        "$prefix"/*) echo "shardtab_DIR=$found" ;;
        *) fail "find_package found shardtab at '$found', not in $prefix" ;;
        esac
        bin=$here/build
        linked=$(ldd "$bin/table_kernel" | grep -E 'libshardtab[.]so')
        echo "ldd table_kernel: $linked"
        case "$linked" in
        *"libshardtab.so.1 => $prefix/$libdir/libshardtab.so.1"*) ;;
        *) fail "table_kernel is not linked to $prefix/$libdir/libshardtab.so.1: $linked" ;;
        esac
        note "run"
        verified table_kernel 2 "$bin/table_kernel" "${share[@]+"${share[@]}"}"
        verified stream_collectives 2 "$bin/stream_collectives" "${share[@]+"${share[@]}"}"
        for np in 1 2 3 4 8; do # grids 1x1x1, 1x1x2, 1x1x3, 1x2x2, 2x2x2
            verified heat3d "$np" "$bin/heat3d" "${share[@]+"${share[@]}"}"
        done
        for np in 1 2 3; do # a ring of one rank (its own neighbour), of two, of three
            verified faces2d "$np" "$bin/faces2d" "${share[@]+"${share[@]}"}"
        done
        # simulated nodes of two ranks: two edges through the table, two through MPI
        SHARDTAB_RANKS_PER_NODE=2 verified faces2d 4 "$bin/faces2d" "${share[@]+"${share[@]}"}"
        refused table_kernel "$bin/table_kernel" --n 0
        refused heat3d "$bin/heat3d" --steps many
        refused faces2d "$bin/faces2d" --ny 0
        if [ "$fortran" -eq 1 ]; then
            if [ -x "$bin/fortran_table" ]; then
                verified fortran_table 2 "$bin/fortran_table"
                refused fortran_table "$bin/fortran_table" --n 1
            else
                fail "the package has the Fortran module, but fortran_table was not built"
            fi
        fi
    else
        fail "configuring or building docs/examples against $prefix failed"
    fi
    ;;

pkg-config)
    pc=$prefix/$libdir/pkgconfig
    note "docs/examples with $mpicc and pkg-config (PKG_CONFIG_PATH=$pc)"
    flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs shardtab) ||
        fail "pkg-config found no shardtab in $pc"
    echo "pkg-config --cflags --libs shardtab: $flags"
    names=(stream_collectives)
    if [ "$backend" = host ]; then
        names+=(table_kernel heat3d faces2d)
    else # a .hip file needs hipcc or nvcc (docs/examples/README.md): the cmake step builds those
        echo "backend $backend: table_kernel, heat3d and faces2d are built by the cmake step only"
    fi
    for name in "${names[@]}"; do
        sources=("$examples/$name.c")
        [ -f "$examples/${name}_host.c" ] && sources+=("$examples/${name}_host.c")
        np=2
        [ "$name" = heat3d ] && np=4
        # shellcheck disable=SC2086 # the flags are words, by design
        if limited 120 "$mpicc" "${sources[@]}" $flags -o "$here/$name"; then
            verified "$name" "$np" "$here/$name" "${share[@]+"${share[@]}"}"
        else
            fail "$mpicc $name.c \$(pkg-config --cflags --libs shardtab) failed"
        fi
    done
    # every public header in strict ISO C, as a user's host code includes them (the host
    # backend's primitives included: their clock without POSIX's names)
    printf '#include <shardtab.h>\n#include <shardtab_device.h>\n#include <shardtab_comm.h>\n%s\n%s\n%s\n%s\n' \
        '#include <shardtab_halo.h>' '#include <shardtab_halo_device.h>' '#include <shardtab_faces.h>' \
        'int main(void) { return (int)(sizeof(shardtab_signals_t) == 0); }' >"$here/headers.c"
    # shellcheck disable=SC2086 # the flags are words, by design
    limited 120 "$mpicc" -std=c11 -pedantic -Wall -Wextra -Werror "$here/headers.c" $flags \
        -o "$here/headers" || fail "the public headers do not compile with -std=c11 -pedantic"
    # the README's first program, as a user copies it: strict ISO C (-std=c11 -pedantic,
    # no POSIX names asked for), at 3 ranks (a GPU backend: up to its GPUs), every rank's
    # line exactly as the README says
    awk '/^## A first program/{f=1} /^Built against/{f=0} f' "$source_dir/README.md" |
        sed -n 's/^    //p' >"$here/first.c"
    grep -q '^int main' "$here/first.c" || fail "no program under '## A first program' in README.md"
    # shellcheck disable=SC2086 # the flags are words, by design
    if limited 120 "$mpicc" -std=c11 -pedantic -Wall -Wextra -Werror "$here/first.c" $flags \
            -o "$here/first"; then
        rc=0
        launch "$first_np" "$here/first" || rc=$?
        for ((r = 0; r < first_np; r++)); do
            sums=$(awk -v n="$first_np" 'BEGIN { printf "%g %g %g", n * 1.25, n * 2.5, n * 3.75 }')
            grep -qx "rank $r: next $(((r + 1) % first_np)).5, sums $sums" "$here/out" ||
                fail "README's first program: rank $r's line is not what the README says (status $rc)"
        done
        [ "$rc" -eq 0 ] || fail "README's first program exited $rc"
    else
        fail "the README's first program did not compile with -std=c11 -pedantic: $here/first.c"
    fi
    if [ "$fortran" -eq 1 ]; then
        fflags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs shardtab-fortran) ||
            fail "pkg-config found no shardtab-fortran in $pc"
        echo "pkg-config --cflags --libs shardtab-fortran: $fflags"
        # shellcheck disable=SC2086 # the flags are words, by design
        if limited 120 "$mpif90" "$examples/fortran_table.f90" $fflags -J "$here" \
                -o "$here/fortran_table"; then
            verified fortran_table 2 "$here/fortran_table"
        else
            fail "$mpif90 fortran_table.f90 \$(pkg-config --cflags --libs shardtab-fortran) failed"
        fi
    fi
    ;;

python)
    [ -n "$python" ] || { echo "run_examples.sh: python needs --python and --python-dir" >&2; exit 2; }
    export PYTHONPATH=$prefix/$python_dir
    note "the Python examples with the package of $PYTHONPATH"
    cd "$here" || exit 1
    verified numpy_table "$numpy_np" "$python" -m mpi4py "$examples/numpy_table.py"
    refused numpy_table "$python" -m mpi4py "$examples/numpy_table.py" --n none
    verified numpy_halo "$halo_np" "$python" -m mpi4py "$examples/numpy_halo.py"
    refused numpy_halo "$python" -m mpi4py "$examples/numpy_halo.py" --steps 11
    rc=0
    launch 2 "$python" -m mpi4py "$examples/gpu_table.py" "${share[@]+"${share[@]}"}" || rc=$?
    if [ "$backend" = host ]; then
        # no GPU: it must say so and skip; this is no case of its own (a skip would fail CI)
        [ "$rc" -eq 77 ] || fail "gpu_table.py on the host backend exited $rc, expected 77 (skipped)"
        grep -q "^gpu_table: skipped: the library's backend is host" "$here/out" ||
            fail "gpu_table.py on the host backend did not say it skipped for want of a GPU"
    elif [ "$rc" -eq 77 ]; then
        echo "gpu_table.py skipped (above): this step counts as skipped"
        cd "$work" && [ "$failures" -eq 0 ] && exit 77
    elif [ "$rc" -ne 0 ] || ! grep -q "^gpu_table: OK " "$here/out"; then
        fail "gpu_table.py at 2 ranks exited $rc, or did not print 'gpu_table: OK ...'"
    fi
    ;;
esac

echo
cd "$work" || exit 1
if [ "$failures" -eq 0 ] && [ "$step" != install ]; then rm -rf "$here"; fi
exit_verdict
