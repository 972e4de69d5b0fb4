# tests/tiers.cmake - which cases run where: the labels every case carries, decided here
# and nowhere else.
#
# Every case carries the label of its folder (tests/<folder>: platform, shardtab, comm,
# signals, reliability, halo, common, multi_scal, jacobi, sparse, cg, install, examples, fortran,
# python, gpu, jobs, slurm, multihost, style, docs, ci), `unit` when it is a cmocka test,
# and the tiers it belongs to:
#   quick     the developer's loop (scripts/test.sh --quick, or ctest -L quick in a
#             build): every unit test, the format, the reference, and one verifying case
#             per program and library area; under two minutes on a 2-core machine
#   sanitize  run under ASan+UBSan+LSan (tests/shardtab/reliability/sanitize.sh), and
#             so left out of scripts/test.sh's plain run: each case runs once. The rule:
#               - every unit test;
#               - every case of the library's folders (SHARDTAB_SANITIZE_FOLDERS) but
#                 those that leave memory behind on purpose (SHARDTAB_SANITIZE_NEVER);
#               - of the programs, the cases of SHARDTAB_SANITIZE_CASES: each at its
#                 smallest and largest rank count, and each of its error paths once
#                 (its bad-usage table not: the parsers run under the sanitizers in the
#                 options' unit tests, and a refusal end to end in one case a program)
#             (not Python's: a sanitized library cannot load into an unsanitized python3;
#             nor Fortran's, installs', examples', jobs' and Slurm's, which build or
#             launch apart)
# A folder's CMakeLists.txt ends with shardtab_folder_labels(<folder>), which applies
# them; the end of tests/CMakeLists.txt checks that every case named here exists.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

set(SHARDTAB_QUICK_CASES
  # the format, the API reference (every public declaration documented), the environment
  # variables' reference, every program's --help and --version
  style.format docs.reference ci.environment-documented common.help-and-version
  # the library: the table (multi_scal's three modes), signals and the barrier,
  # collectives and LL puts on the device, stream-ordered collectives
  multi_scal.default.np3 signals.ring.np3 signals.example-barrier.np3 comm.every-call.np3
  comm.stream-every-call.np3 halo.2d-corners.np4 halo.2d-corners-rpn2.np4
  # the exact sums across simulated nodes (2 + 1) and their refusal of int64 (every-call
  # above runs them on one node, with the exact dot)
  comm.stream-every-call-rpn2.np3 comm.stream-fault-exact-int64.np2-each
  # the programs: jacobi's variants and every launch mode, cg's two variants (both
  # launches), the sparse product, coll_bench
  jacobi.table.np3 jacobi.host-sync.np4 jacobi.mpi.np4 jacobi.launch-onchip.np3
  jacobi.launch-graph.np4 jacobi.launch-stream.np4 jacobi.temporal-ranks.np3
  cg.verify-poisson2d-standard-persistent.np2 cg.verify-poisson2d-pipelined-stream.np2
  sparse.spmv-poisson2d.np3 comm.coll-bench.np3
  # the fronts, the installed package, and docs/examples built against it
  fortran.example.np4 python.views.np4 install.consumer examples.cmake fortran.halo.np4
  python.halo.np4)

set(SHARDTAB_SANITIZE_FOLDERS shardtab comm signals reliability halo)
set(SHARDTAB_SANITIZE_NEVER
  # they end in MPI_Abort with a gave-up table held on purpose, which the leak check
  # would report
  reliability.hostile-destroy-alone.np2 reliability.hostile-destroy-alone.np3
  reliability.hostile-crossed-destroy.np2 reliability.hostile-crossed-destroy.np3
  reliability.hostile-late-destroy.np2 reliability.hostile-late-destroy.np3
  halo.never-calls-rpn1.np2
  # MPI out of communicators: Open MPI 4.1's own failed MPI_Comm_dup frees a request that
  # a pending receive still writes into (ASan: heap-use-after-free under ompi_comm_nextcid)
  reliability.hostile-table-limit.np2
  # signals sent from outside at a moment the test picks (timing: RUN_SERIAL), the
  # memory limits of ulimit, a build of its own, and the leak detector's own self-test
  # (sanitize.sh runs that one in its own way)
  reliability.sigkill.np3 reliability.sigkill-during-create.np3
  reliability.launcher-sigkill-during-create.np3 reliability.ulimit-f.np2
  reliability.cycle-table-detects-leak.np2 reliability.shellcheck
  # the flatness of a process's memory over 1000 tables: ASan's quarantine grows it
  # (sanitize.sh runs cycle_table under the leak check and valgrind its own way)
  reliability.cycle-table.np2
  # the bad-usage tables: a process a line, the parsers' paths (under the sanitizers in
  # the options' unit tests, and end to end in one case a program: usage-*-each)
  signals.bad-usage comm.coll-bench-bad-usage)
foreach(_sig USR1 USR2 ALRM PIPE XCPU VTALRM PROF TERM)
  list(APPEND SHARDTAB_SANITIZE_NEVER reliability.sig${_sig}-all-during-create.np3)
endforeach()

set(SHARDTAB_SANITIZE_CASES
  # multi_scal: its modes at 1 and 4 ranks, nodes, JSON, the bench, a wrong value, an
  # injected fault, bad usage in a job and alone
  multi_scal.default.np1 multi_scal.default.np4 multi_scal.rpn2.np3 multi_scal.json.np4
  multi_scal.check-peers.np4 multi_scal.bench-uneven-nodes.np3 multi_scal.bench-pairs.np4
  multi_scal.corrupt.np3-each multi_scal.fault-open-r1.np3-each
  multi_scal.fault-free-r0.np3-each multi_scal.usage-n0.np3-each
  # jacobi: every launch mode at 1 and 4 ranks, nodes, the stop, a wait that times out,
  # a planted bug, the trace and JSON, bad usage
  jacobi.table.np1 jacobi.table.np4 jacobi.launch-onchip.np1 jacobi.launch-onchip.np4
  jacobi.launch-graph.np4 jacobi.launch-stream.np4 jacobi.temporal-ranks.np4
  jacobi.mpi.np4 jacobi.rpn2.np4 jacobi.converges-temporal.np2
  jacobi.never-signals-persistent.np3-each jacobi.stalled-rank-persistent.np3
  jacobi.fault-kernel.np3 jacobi.fault-at-free.np3 jacobi.trace-onchip.np2 jacobi.json.np2
  jacobi.usage-more-ranks-than-rows.np4-each jacobi.mpmd-nx.np3
  # sparse: the product at 1 and 4 ranks
  sparse.spmv-poisson2d.np1 sparse.spmv-poisson2d.np4 sparse.spmv-fault.np2-each
  # cg: both variants and launches at 1 and 4 ranks, nodes, --repro, JSON and the
  # trace, a matrix file refused, an indefinite one, a stalled rank, bad usage
  cg.verify-mtx-symmetric-standard-stream.np1 cg.verify-mtx-symmetric-pipelined-persistent.np1
  cg.verify-mtx-symmetric-standard-persistent.np4 cg.verify-mtx-symmetric-pipelined-stream.np4
  cg.nodes-mtx-symmetric-np4-per2-pipelined.np4 cg.repro-ranks-2d40-standard-persistent.np1-4
  cg.json.np2 cg.trace-nodes.np2 cg.bad-matrix-not-symmetric.np2-each
  cg.indefinite-second-pipelined.np3-each cg.stalled-rank-stream.np3 cg.mpmd-parse.np3
  cg.usage-variant.np2-each)

# shardtab_folder_labels(<folder>): the labels above, on every case this folder's
# CMakeLists.txt added: <folder>, unit where a cmocka test carries it, quick, sanitize.
function(shardtab_folder_labels folder)
  get_property(_tests DIRECTORY PROPERTY TESTS)
  foreach(_test IN LISTS _tests)
    get_test_property(${_test} LABELS _old)
    set(_labels ${folder})
    if(_old AND "unit" IN_LIST _old)
      list(APPEND _labels unit)
    endif()
    if((_old AND "unit" IN_LIST _old) OR _test IN_LIST SHARDTAB_QUICK_CASES)
      list(APPEND _labels quick)
    endif()
    if((_old AND "unit" IN_LIST _old)
       OR (folder IN_LIST SHARDTAB_SANITIZE_FOLDERS AND NOT _test IN_LIST SHARDTAB_SANITIZE_NEVER)
       OR _test IN_LIST SHARDTAB_SANITIZE_CASES)
      list(APPEND _labels sanitize)
    endif()
    set_tests_properties(${_test} PROPERTIES LABELS "${_labels}")
  endforeach()
endfunction()

# shardtab_check_tiers(): every case the lists name exists (a renamed case would
# otherwise drop out of its tier without a word), where its folder is built and its
# rank count allowed (SHARDTAB_TEST_MAX_RANKS), on the host backend (a GPU build leaves
# some out). Called once every folder is in.
function(shardtab_check_tiers)
  if(NOT SHARDTAB_RESOLVED_BACKEND STREQUAL "host")
    return()
  endif()
  set(_all "")
  set(_dirs ${CMAKE_CURRENT_SOURCE_DIR})
  while(_dirs)
    list(POP_FRONT _dirs _dir)
    get_property(_tests DIRECTORY ${_dir} PROPERTY TESTS)
    get_property(_subdirs DIRECTORY ${_dir} PROPERTY SUBDIRECTORIES)
    list(APPEND _all ${_tests})
    list(APPEND _dirs ${_subdirs})
  endwhile()
  foreach(_list SHARDTAB_QUICK_CASES SHARDTAB_SANITIZE_NEVER SHARDTAB_SANITIZE_CASES)
    foreach(_test IN LISTS ${_list})
      string(REGEX MATCH "^[^.]+" _folder "${_test}")
      string(REGEX MATCH "[.]np([0-9]+)" _np "${_test}")
      if(_np AND CMAKE_MATCH_1 GREATER SHARDTAB_TEST_MAX_RANKS)
        continue()
      endif()
      set(_of_folder ${_all})
      list(FILTER _of_folder INCLUDE REGEX "^${_folder}[.]")
      if(_of_folder AND NOT _test IN_LIST _all)
        message(FATAL_ERROR "tests/tiers.cmake: ${_list} names '${_test}', which no folder adds")
      endif()
    endforeach()
  endforeach()
endfunction()
