# Runs one libFuzzer target for a bounded time (ctest entry of tests/fuzz).
#   cmake -DFUZZER=<exe> -DNAME=<name> -DSEEDS=<dir> [-DEXTRA_SEEDS=<files;...>]
#         -DWORK=<dir> [-DTIMEOUT=<seconds per input, default 10>] -P run_fuzzer.cmake
# The time is $ENV{TVMFFI_FUZZ_SECONDS} (default 30). The committed seeds are
# copied into WORK/corpus, which the fuzzer then grows (the source tree is
# never written). Fails on any crash, leak, sanitizer report or timeout; the
# input that failed is left in WORK/ (crash-*, leak-*, timeout-*); the
# figures of a passing run go to WORK/../NAME.stats.
set(_seconds 30)
if(DEFINED ENV{TVMFFI_FUZZ_SECONDS} AND NOT "$ENV{TVMFFI_FUZZ_SECONDS}" STREQUAL "")
  set(_seconds "$ENV{TVMFFI_FUZZ_SECONDS}")
endif()

# Seconds one input may take (libFuzzer's -timeout); -DTIMEOUT= overrides.
set(_timeout 10)
if(DEFINED TIMEOUT AND NOT "${TIMEOUT}" STREQUAL "")
  set(_timeout "${TIMEOUT}")
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/corpus")
file(GLOB _seeds "${SEEDS}/*")
file(COPY ${_seeds} ${EXTRA_SEEDS} DESTINATION "${WORK}/corpus")

execute_process(
  COMMAND "${FUZZER}" -max_total_time=${_seconds} -timeout=${_timeout} -rss_limit_mb=2048
          -print_final_stats=1 "-artifact_prefix=${WORK}/" "${WORK}/corpus"
  WORKING_DIRECTORY "${WORK}"
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out)

string(REGEX MATCH "stat::number_of_executed_units: *([0-9]+)" _ "${_out}")
set(_execs "${CMAKE_MATCH_1}")
string(REGEX MATCH "stat::new_units_added: *([0-9]+)" _ "${_out}")
set(_new "${CMAKE_MATCH_1}")
file(GLOB _corpus "${WORK}/corpus/*")
list(LENGTH _corpus _ncorpus)
if(NOT _rc EQUAL 0)
  file(GLOB _artifacts "${WORK}/crash-*" "${WORK}/leak-*" "${WORK}/timeout-*" "${WORK}/oom-*")
  string(LENGTH "${_out}" _len)
  if(_len GREATER 12000)
    math(EXPR _from "${_len} - 12000")
    string(SUBSTRING "${_out}" ${_from} -1 _out)
  endif()
  message("${_out}")
  message(FATAL_ERROR "fuzz: ${NAME}: FAILED (exit ${_rc}) after ${_execs} executions; "
                      "input(s): ${_artifacts}")
endif()
string(CONCAT _line "fuzz: ${NAME}: ${_execs} executions in ${_seconds} s, corpus "
       "${_ncorpus} inputs (${_new} new units), no crash, leak or sanitizer report")
message("${_line}")
# ctest shows a passing test's output only with -V: keep the figures.
file(WRITE "${WORK}/../${NAME}.stats" "${_line}\n")
