# Fails if the preprocessed SRC includes any header on the forbidden list.
# Usage: cmake -DCXX=<compiler> -DSRC=<file> "-DFLAGS=<-I...;-D...>"
#              [-DFORBIDDEN=<header;...>] -P check_includes.cmake
if(NOT CXX OR NOT SRC)
  message(FATAL_ERROR "check_includes.cmake needs -DCXX=... and -DSRC=...")
endif()
if(DEFINED FORBIDDEN)
  set(forbidden ${FORBIDDEN})
else()
  # Heavy std headers a kernel must not pay for, and the container
  # implementations that are opt-in. Not Array (with the Map it uses, and their
  # <iterator>): upstream's container/shape.h includes it and clients rely on
  # that (issue #40: FlashInfer's batch prefill binding). Not <sstream>:
  # upstream 0.1.15's expected.h streams TVM_FFI_UNEXPECTED's message through
  # it, manipulators (std::hex, std::endl) included, and code uses that.
  set(forbidden
    map unordered_map variant functional iostream mutex thread regex
    tvm/ffi/container/list.h tvm/ffi/container/dict.h tvm/ffi/extra/stl.h)
endif()
execute_process(COMMAND ${CXX} -std=c++17 -E ${FLAGS} ${SRC}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CXX} -E ${SRC} failed (${rc}):\n${err}")
endif()
# Line markers name every file entered: # <line> "<path>" <flags>
string(REGEX MATCHALL "\n# [0-9]+ \"[^\"]+\"" markers "${out}")
set(files "")
foreach(m IN LISTS markers)
  string(REGEX REPLACE "\n# [0-9]+ \"([^\"]+)\"" "\\1" f "${m}")
  list(APPEND files "${f}")
endforeach()
list(REMOVE_DUPLICATES files)
set(bad "")
foreach(h IN LISTS forbidden)
  foreach(f IN LISTS files)
    if(f MATCHES "/${h}$")
      list(APPEND bad "${h} (${f})")
    endif()
  endforeach()
endforeach()
string(REGEX MATCHALL "\n" nl "${out}")
list(LENGTH nl nlines)
list(LENGTH files nfiles)
if(bad)
  list(JOIN bad "\n  " bad_text)
  message(FATAL_ERROR "${SRC} pulls in forbidden headers:\n  ${bad_text}")
endif()
message(STATUS "${SRC}: ${nfiles} files, ${nlines} preprocessed lines, none forbidden")
