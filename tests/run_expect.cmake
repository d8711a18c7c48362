# Run a command and check its exit status and output (for ctest):
#   cmake -DCMD=<prog;arg;...> -DEXPECT_RC=0|nonzero -DEXPECT_REGEX=<regex>
#         [-DEXPECT_NOT_REGEX=<regex>] -P run_expect.cmake
# Unlike PASS_REGULAR_EXPRESSION, both the status and the output must hold,
# and a crash (signal) never counts as the expected failure.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
if(EXPECT_RC STREQUAL "nonzero")
  if(NOT rc MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "expected a non-zero exit status, got '${rc}'")
  endif()
elseif(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "expected exit status ${EXPECT_RC}, got '${rc}'")
endif()
if(DEFINED EXPECT_REGEX AND NOT all MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match: ${EXPECT_REGEX}")
endif()
if(DEFINED EXPECT_NOT_REGEX AND all MATCHES "${EXPECT_NOT_REGEX}")
  message(FATAL_ERROR "output matches what it must not: ${EXPECT_NOT_REGEX}")
endif()
