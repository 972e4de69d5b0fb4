#!/usr/bin/env bash
# run_install_test.sh - installs a built shardtab into a scratch prefix, checks what
# libshardtab.so exports (the functions shardtab.h declares, nothing else), then builds
# and runs a consumer program against that tree only: once through find_package(shardtab)
# (CMAKE_PREFIX_PATH: linked to libshardtab.so.1, ldd says so), once through pkg-config
# and mpicc (the shared library, and --static the static one).
#
# Then the fronts, when the build has them: the Fortran example against the
# installed module (find_package's shardtab::fortran, and pkg-config with the MPI
# Fortran wrapper), and the Python package imported from the installed prefix.
#
# Usage: run_install_test.sh --build DIR --work DIR --consumer DIR --cmake CMAKE
#          --cc CC --mpicc MPICC --libdir LIBDIR --generator GEN --source DIR
#          --mpiexec MPIEXEC --np-flag FLAG [--preflags "FLAGS"] [--postflags "FLAGS"]
#          [--fortran-consumer DIR --mpif90 MPIF90] [--python PYTHON --python-dir DIR]
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u

build="" work="" consumer="" cmake=cmake cc="" mpicc=mpicc libdir=lib generator=""
source_dir="" mpiexec=mpiexec np_flag=-n preflags="" postflags=""
fortran_consumer="" mpif90="" python="" python_dir=""
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2 ;;
    --work) work=$2 ;;
    --consumer) consumer=$2 ;;
    --cmake) cmake=${2:-cmake} ;;
    --cc) cc=$2 ;;
    --mpicc) mpicc=${2:-mpicc} ;;
    --libdir) libdir=${2:-lib} ;;
    --generator) generator=$2 ;;
    --source) source_dir=$2 ;;
    --mpiexec) mpiexec=${2:-mpiexec} ;;
    --np-flag) np_flag=${2:--n} ;;
    --preflags) preflags=$2 ;;
    --postflags) postflags=$2 ;;
    --fortran-consumer) fortran_consumer=$2 ;;
    --mpif90) mpif90=$2 ;;
    --python) python=$2 ;;
    --python-dir) python_dir=$2 ;;
    *) echo "run_install_test.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift 2
done
if [ -z "$build" ] || [ -z "$work" ] || [ -z "$consumer" ]; then
    echo "run_install_test.sh: --build, --work and --consumer are required" >&2
    exit 2
fi

# shellcheck source=tests/lib/driver.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/../lib/driver.sh"
unset CMAKE_PREFIX_PATH
unset PKG_CONFIG_PATH

prefix=$work/prefix
step() {
    echo
    echo "==== $*"
}
# run LIMIT CMD... : runs with a time limit, output shown; returns the status
run() {
    local limit=$1
    shift
    echo "+ $*"
    timeout -k 5 "$limit" "$@"
}

read -r -a pre <<<"$preflags"
read -r -a post <<<"$postflags"
# mpirun_np N PROGRAM [ARGS...]
mpirun_np() {
    local n=$1 program=$2 pass=()
    shift 2
    [ -n "${SHARDTAB_RANKS_PER_NODE+set}" ] && pass+=(SHARDTAB_RANKS_PER_NODE)
    [ -n "${PYTHONPATH+set}" ] && pass+=(PYTHONPATH)
    mpi_launch_flags "$mpiexec" "${pass[@]+"${pass[@]}"}"
    run 60 "$mpiexec" "${launch_flags[@]+"${launch_flags[@]}"}" "$np_flag" "$n" \
        "${pre[@]+"${pre[@]}"}" "$program" "${post[@]+"${post[@]}"}" "$@"
}

# run_says EXITED PATTERN MISSING CMD...: runs CMD, its output shown: it must exit 0
# (else the failure "EXITED <status>") and print a line that matches PATTERN (a basic
# regex; else the failure MISSING)
run_says() {
    local exited=$1 pattern=$2 missing=$3 out rc
    shift 3
    out=$("$@" 2>&1)
    rc=$?
    echo "$out"
    [ "$rc" -eq 0 ] || fail "$exited $rc"
    grep -q -- "$pattern" <<<"$out" || fail "$missing"
}

rm -rf "$work"
mkdir -p "$work"
shm_snapshot "$work/shm.before"

# ---- 1. install -----------------------------------------------------------------------
step "install into $prefix"
run 120 "$cmake" --install "$build" --prefix "$prefix" || fail "cmake --install failed"
for f in "include/shardtab.h" "include/shardtab_version.h" "$libdir/libshardtab.a" \
         "$libdir/libshardtab.so.1" "bin/multi_scal" "share/doc/shardtab/LICENSE" \
         "$libdir/cmake/shardtab/shardtabConfig.cmake" \
         "$libdir/cmake/shardtab/shardtabConfigVersion.cmake" \
         "$libdir/cmake/shardtab/shardtabTargets.cmake" "$libdir/pkgconfig/shardtab.pc"; do
    [ -f "$prefix/$f" ] || fail "not installed: $f"
done
# Every header of the source's include/ reaches users' code (the public ones
# include the others, include/shardtab/*.h): each must be installed.
if [ -n "$source_dir" ]; then
    while IFS= read -r f; do
        [ -f "$prefix/$f" ] || fail "not installed: $f"
    done < <(cd "$source_dir" && find include -name '*.h' | sort)
fi
# An installed package must not point back into the build or source tree.
for dir in "$build" ${source_dir:+"$source_dir"}; do
    if grep -rF -- "$dir" "$prefix/$libdir/cmake" "$prefix/$libdir/pkgconfig" 2>/dev/null |
        grep -vF -- "$prefix"; then
        fail "installed package files refer to $dir"
    fi
done

# ---- 1b. what libshardtab.so exports: the API its host headers declare, nothing more ----------
step "the exports of $libdir/libshardtab.so.1"
soname=$(objdump -p "$prefix/$libdir/libshardtab.so.1" 2>/dev/null | awk '/SONAME/ {print $2}')
[ "$soname" = libshardtab.so.1 ] || fail "libshardtab.so.1's soname is '$soname'"
exported=$(nm -D --defined-only "$prefix/$libdir/libshardtab.so.1" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u)
# a declaration: a line that starts with its type, then the name (not a comment's words)
declared=$(grep -ohE '^[a-z][a-z0-9_ *]*[ *]shardtab_[a-z0-9_]+\(' "$prefix/include/shardtab.h" \
    "$prefix/include/shardtab_halo.h" "$prefix/include/shardtab_faces.h" |
    grep -oE 'shardtab_[a-z0-9_]+\($' | sed 's/($//' | sort -u)
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
echo "exported: $(wc -w <<<"$exported") symbols; declared in shardtab.h, shardtab_halo.h and shardtab_faces.h: $(wc -w <<<"$declared")"
[ -z "$extra" ] || fail "libshardtab.so.1 exports what shardtab.h, shardtab_halo.h and shardtab_faces.h do not declare: $(tr '\n' ' ' <<<"$extra")"
[ -z "$missing" ] || fail "shardtab.h, shardtab_halo.h or shardtab_faces.h declares what libshardtab.so.1 does not export: $(tr '\n' ' ' <<<"$missing")"

# ---- 2. find_package(shardtab) -----------------------------------------------------------
step "consumer through find_package(shardtab)"
gen=()
[ -n "$generator" ] && gen=(-G "$generator")
cc_arg=()
[ -n "$cc" ] && cc_arg=("-DCMAKE_C_COMPILER=$cc")
if run 120 "$cmake" -S "$consumer" -B "$work/consumer-build" "${gen[@]+"${gen[@]}"}" \
        "${cc_arg[@]+"${cc_arg[@]}"}" "-DCMAKE_PREFIX_PATH=$prefix" &&
    run 120 "$cmake" --build "$work/consumer-build"; then
    found=$(sed -n 's/^shardtab_DIR:PATH=//p' "$work/consumer-build/CMakeCache.txt")
    echo "shardtab_DIR=$found"
    case "$found" in
    "$prefix"/*) ;;
    *) fail "find_package found shardtab at '$found', not in $prefix" ;;
    esac
    exe=$work/consumer-build/consumer
    linked=$(ldd "$exe" | grep -E 'libshardtab[.]so')
    echo "ldd: $linked"
    case "$linked" in
    *"libshardtab.so.1 => $prefix/$libdir/libshardtab.so.1"*) ;;
    *) fail "the consumer (find_package) is not linked to $prefix/$libdir/libshardtab.so.1: $linked" ;;
    esac
    run_says "consumer (find_package) at 2 ranks exited" '^consumer: OK (2 ranks' \
        "consumer (find_package) did not say OK" \
        mpirun_np 2 "$exe"

    SHARDTAB_RANKS_PER_NODE=1 run_says "consumer with SHARDTAB_RANKS_PER_NODE=1 exited" \
        '^consumer: OK (2 ranks' "consumer with SHARDTAB_RANKS_PER_NODE=1 did not say OK" \
        mpirun_np 2 "$exe"
else
    fail "configuring or building the consumer against $prefix failed"
fi

# ---- 3. pkg-config ----------------------------------------------------------------------
step "consumer through pkg-config and $mpicc"
if ! command -v pkg-config >/dev/null 2>&1; then
    fail "pkg-config is not installed"
else
    pc_dir=$prefix/$libdir/pkgconfig
    flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs shardtab)
    rc=$?
    echo "pkg-config --cflags --libs shardtab: $flags"
    [ "$rc" -eq 0 ] || fail "pkg-config found no shardtab in $pc_dir"
    # The flags must name the tree that was installed, wherever it was put
    # (compared as resolved paths: a .pc file may say ${pcfiledir}/../..).
    inc_ok=0 lib_ok=0
    for word in $flags; do
        case "$word" in
        -I*) [ "$(realpath -m -- "${word#-I}")" = "$(realpath -m -- "$prefix/include")" ] && inc_ok=1 ;;
        -L*) [ "$(realpath -m -- "${word#-L}")" = "$(realpath -m -- "$prefix/$libdir")" ] && lib_ok=1 ;;
        esac
    done
    [ "$inc_ok" -eq 1 ] ||
        fail "pkg-config --cflags has no -I for $prefix/include (the .pc file's prefix is wrong)"
    [ "$lib_ok" -eq 1 ] ||
        fail "pkg-config --libs has no -L for $prefix/$libdir (the .pc file's prefix is wrong)"
    # shellcheck disable=SC2086 # the flags are words, by design
    if run 120 "$mpicc" "$consumer/consumer.c" $flags -o "$work/consumer-pc"; then
        run_says "consumer (pkg-config) at 2 ranks exited" '^consumer: OK (2 ranks' \
            "consumer (pkg-config) did not say OK" \
            mpirun_np 2 "$work/consumer-pc"
    else
        fail "mpicc consumer.c \$(pkg-config --cflags --libs shardtab) failed"
    fi
    # the static library, as pkg-config --static gives it (what it needs added)
    static_flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --static --cflags --libs shardtab |
        sed "s|-lshardtab|$prefix/$libdir/libshardtab.a|")
    # shellcheck disable=SC2086 # the flags are words, by design
    if run 120 "$mpicc" "$consumer/consumer.c" $static_flags -o "$work/consumer-static"; then
        ! ldd "$work/consumer-static" | grep -q libshardtab || fail "the static consumer loads libshardtab.so"
        run_says "consumer (static) at 2 ranks exited" '^consumer: OK (2 ranks' \
            "consumer (static) did not say OK" \
            mpirun_np 2 "$work/consumer-static"
    else
        fail "mpicc consumer.c with libshardtab.a (pkg-config --static) failed"
    fi
fi

# ---- 4. the installed program ------------------------------------------------------------
step "installed multi_scal"
out=$(mpirun_np 2 "$prefix/bin/multi_scal" --n 1000 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || fail "installed multi_scal exited $rc"
[ "$(grep -c '^# verify [a-z]*: OK (1000 elements, 2 shards)' <<<"$out")" -eq 3 ] ||
    fail "installed multi_scal did not verify all three modes"

# ---- 5. the Fortran module ------------------------------------------------------------------
if [ -n "$fortran_consumer" ]; then
    step "Fortran example through find_package(shardtab): shardtab::fortran"
    if run 120 "$cmake" -S "$fortran_consumer" -B "$work/fortran-build" "${gen[@]+"${gen[@]}"}" \
            "${cc_arg[@]+"${cc_arg[@]}"}" "-DCMAKE_PREFIX_PATH=$prefix" \
            "-DEXAMPLE=$source_dir/tests/fortran/fortran_example.F90" &&
        run 120 "$cmake" --build "$work/fortran-build"; then
        run_says "Fortran example (find_package) at 2 ranks exited" '^# verify fortran: OK$' \
            "Fortran example (find_package) did not verify" \
            mpirun_np 2 "$work/fortran-build/fortran_example"
    else
        fail "building the Fortran example against $prefix failed"
    fi
    # a project of Fortran alone: find_package says what it needs (it failed inside FindMPI)
    step "a Fortran-only project's find_package(shardtab): our message"
    mkdir -p "$work/fortran-only"
    printf '%s\n' 'cmake_minimum_required(VERSION 3.21)' 'project(fortran_only LANGUAGES Fortran)' \
        'find_package(shardtab 1.0 REQUIRED)' >"$work/fortran-only/CMakeLists.txt"
    expect_command_refusal "find_package(shardtab) in a project without C" \
        "shardtab needs the C language enabled in the project that finds it" \
        "$cmake" -S "$work/fortran-only" -B "$work/fortran-only/build" "-DCMAKE_PREFIX_PATH=$prefix"
    step "Fortran example through pkg-config shardtab-fortran and $mpif90"
    flags=$(PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig pkg-config --cflags --libs shardtab-fortran)
    rc=$?
    echo "pkg-config --cflags --libs shardtab-fortran: $flags"
    [ "$rc" -eq 0 ] || fail "pkg-config found no shardtab-fortran"
    # shellcheck disable=SC2086 # the flags are words, by design
    if run 120 "$mpif90" "$source_dir/tests/fortran/fortran_example.F90" $flags \
            -J "$work" -o "$work/fortran-pc"; then
        run_says "Fortran example (pkg-config) at 2 ranks exited" '^# verify fortran: OK$' \
            "Fortran example (pkg-config) did not verify" \
            mpirun_np 2 "$work/fortran-pc"
    else
        fail "mpif90 fortran_example.F90 \$(pkg-config --cflags --libs shardtab-fortran) failed"
    fi
fi

# ---- 6. the Python package -----------------------------------------------------------------
if [ -n "$python" ]; then
    step "Python package imported from $prefix/$python_dir"
    [ -f "$prefix/$python_dir/shardtab/__init__.py" ] || fail "not installed: $python_dir/shardtab"
    [ ! -e "$prefix/$python_dir/shardtab/libshardtab.so" ] ||
        fail "a copy of libshardtab.so inside the installed package: it loads the prefix's"
    # the scratch prefix is not on python3's path, /usr/local would be
    where=$(cd "$work" && env -u SHARDTAB_LIBRARY PYTHONPATH="$prefix/$python_dir" "$python" -c \
        'import shardtab, shardtab._lib as l; print(shardtab.__file__); print(l._find()); print(shardtab.__version__)')
    echo "$where"
    case "$where" in
    "$prefix/$python_dir/shardtab/__init__.py"*"$prefix/$libdir/libshardtab.so.1"*) ;;
    *) fail "the package or its library did not come from $prefix: $where" ;;
    esac
    # check_views.py against the installed package alone (run_says runs it in a subshell)
    # shellcheck disable=SC2317 # run by run_says
    installed_views() {
        cd "$work" && unset SHARDTAB_LIBRARY && export PYTHONPATH="$prefix/$python_dir" &&
            mpirun_np 2 "$python" "$source_dir/tests/python/check_views.py"
    }
    run_says "check_views.py on the installed package at 2 ranks exited" '^# verify python: OK$' \
        "check_views.py on the installed package did not verify" installed_views
fi

# ---- nothing of ours left in /dev/shm ------------------------------------------------------
leaked=$(shm_leaked "$work/shm.before")
[ -z "$leaked" ] || fail "shared-memory segments left behind: $leaked"

echo
if [ "$failures" -eq 0 ]; then rm -rf "$work"; fi
exit_verdict
