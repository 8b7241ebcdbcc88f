# Helpers to register MPI-launched tests. Every test gets a process count and
# a time limit; the launcher never busy-polls (yield_when_idle), so 8 ranks
# plus servers run on 2 cores.
#
# armada_add_mpi_test(NAME <ctest name> NP <n> COMMAND <target-or-path> [args...]
#                     [TIMEOUT <s>] [ENV VAR=value ...] [EXPECT_FAIL <regex>]
#                     [LABELS ...])
# EXPECT_FAIL: the run must exit non-zero and its output must match <regex>.
set(ARMADA_MPIEXEC ${MPIEXEC_EXECUTABLE})
set(ARMADA_MPIEXEC_FLAGS --allow-run-as-root --oversubscribe --bind-to none
    --mca btl self,vader --mca mpi_yield_when_idle 1)
set(ARMADA_TEST_ENV
    OMPI_MCA_btl_vader_single_copy_mechanism=none
    OMPI_MCA_rmaps_base_oversubscribe=1
    ARMADA_TEST=1)
if(ARMADA_SANITIZE)
  # Open MPI and UCX leak by design (tests/lsan.supp); Armada's own
  # allocations stay checked. Open MPI's components stay mapped after
  # MPI_Finalize (tests/support/keep_modules.c), so ten frames of each
  # allocation's stack reach a library that the suppressions name; before,
  # unloaded components needed thirty frames of slow unwinding, which took
  # two thirds of the stage's time (decision 088). The preloaded library
  # comes before the sanitizer runtime, hence verify_asan_link_order=0.
  add_library(armada_keep_modules SHARED ${CMAKE_SOURCE_DIR}/tests/support/keep_modules.c)
  set_target_properties(armada_keep_modules PROPERTIES COMPILE_OPTIONS "" LINK_OPTIONS "")
  list(APPEND ARMADA_TEST_ENV
       "LD_PRELOAD=$<TARGET_FILE:armada_keep_modules>"
       "LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0:malloc_context_size=10"
       "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:verify_asan_link_order=0")
endif()

if(ARMADA_TSAN)
  # A report makes the process exit 66 at its end, so the test fails. UCX's
  # memory hooks (it patches mmap and malloc) and ThreadSanitizer's cannot
  # both hold; Armada needs neither.
  list(APPEND ARMADA_TEST_ENV "TSAN_OPTIONS=halt_on_error=0:report_signal_unsafe=0"
       UCX_MEM_EVENTS=no UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none)
endif()

function(armada_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;NP;TIMEOUT;EXPECT_FAIL" "COMMAND;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  list(GET T_COMMAND 0 exe)
  list(REMOVE_AT T_COMMAND 0)
  if(TARGET ${exe})
    set(exe $<TARGET_FILE:${exe}>)
  endif()
  set(cmd ${ARMADA_MPIEXEC} ${ARMADA_MPIEXEC_FLAGS} -np ${T_NP} ${exe} ${T_COMMAND})
  # The test's own time limit is kept by the script that launches it
  # (time_limit.sh, or expect_fail.sh): past it, the script says where each
  # process of the job waited, then ends the job. CTest's limit, 10 s later,
  # is the backstop; its kill alone would leave no trace of a hang.
  if(DEFINED T_EXPECT_FAIL)
    set(cmd ${CMAKE_SOURCE_DIR}/tests/expect_fail.sh "${T_EXPECT_FAIL}" ${cmd})
    list(APPEND T_ENV "EXPECT_FAIL_LIMIT=${T_TIMEOUT}")
  else()
    set(cmd ${CMAKE_SOURCE_DIR}/tests/time_limit.sh ${T_TIMEOUT} ${cmd})
    # Under the sanitizer a stall must reach the time limit, whose report
    # says where each process waited, rather than end earlier as a bare
    # "no answer" from peer-failure detection (30 s by default). Tests that
    # set ARMADA_PEER_TIMEOUT themselves keep theirs.
    if(ARMADA_SANITIZE AND NOT "${T_ENV}" MATCHES "ARMADA_PEER_TIMEOUT=")
      math(EXPR _peer "${T_TIMEOUT} + 30")
      list(APPEND T_ENV "ARMADA_PEER_TIMEOUT=${_peer}")
    endif()
  endif()
  math(EXPR _backstop "${T_TIMEOUT} + 10")
  add_test(NAME ${T_NAME} COMMAND ${cmd})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${_backstop}
    ENVIRONMENT "${ARMADA_TEST_ENV};${T_ENV}" LABELS "mpi;${T_LABELS}")
  _armada_note_size(${T_NAME} ${T_NP})
endfunction()

# A variant is a test name less its ".npN" ending. Once a directory is read,
# every size of a variant strictly between its smallest and 16 processes is
# labelled "midsize": the sanitizer stages of `armada.sh test` leave those
# out (each variant still runs there at its smallest size and at 16), the
# normal build runs them all, and `armada.sh test full` runs them everywhere
# (decision 084).
function(_armada_note_size name np)
  if(NOT name MATCHES "^(.*)\\.np[0-9]+$")
    return()
  endif()
  set(key ${CMAKE_MATCH_1})
  get_property(keys DIRECTORY PROPERTY ARMADA_SIZE_KEYS)
  if(NOT keys)
    cmake_language(DEFER CALL _armada_label_midsize)
  endif()
  if(NOT key IN_LIST keys)
    set_property(DIRECTORY APPEND PROPERTY ARMADA_SIZE_KEYS ${key})
  endif()
  set_property(DIRECTORY APPEND PROPERTY "ARMADA_SIZES_${key}" "${np}:${name}")
endfunction()

function(_armada_label_midsize)
  get_property(keys DIRECTORY PROPERTY ARMADA_SIZE_KEYS)
  foreach(key IN LISTS keys)
    get_property(entries DIRECTORY PROPERTY "ARMADA_SIZES_${key}")
    set(min 1000000)
    foreach(e IN LISTS entries)
      string(REGEX REPLACE ":.*" "" np "${e}")
      if(np LESS min)
        set(min ${np})
      endif()
    endforeach()
    foreach(e IN LISTS entries)
      string(REGEX REPLACE ":.*" "" np "${e}")
      string(REGEX REPLACE "^[0-9]+:" "" name "${e}")
      if(np GREATER min AND np LESS 16)
        set_property(TEST ${name} APPEND PROPERTY LABELS midsize)
      endif()
    endforeach()
  endforeach()
endfunction()
