# Fails unless the dynamic symbols LIB defines are exactly the names in LIST
# (one mangled name per line, '#' comments). With -DFORBID=ON, fails if LIB
# exports any of them instead (a binary built with our headers must not
# interpose upstream's out-of-line functions).
# Usage: cmake -DLIB=<path> -DNM=<nm> -DLIST=<file> [-DFORBID=ON] -P check_exports.cmake
if(NOT LIB OR NOT NM OR NOT LIST)
  message(FATAL_ERROR "check_exports.cmake needs -DLIB=... -DNM=... -DLIST=...")
endif()
file(STRINGS "${LIST}" expected REGEX "^[^#]")
list(SORT expected)
execute_process(COMMAND ${NM} -D --defined-only ${LIB}
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIB} (${rc})")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(actual "")
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  # "<address> <type> <name>"; drop a version suffix if any.
  string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] +" "" name "${line}")
  string(REGEX REPLACE "@.*$" "" name "${name}")
  list(APPEND actual "${name}")
endforeach()
list(SORT actual)
if(FORBID)
  set(clash ${actual})
  list(FILTER clash INCLUDE REGEX "^_Z")
  # Type info (_ZTI, _ZTS) is data, the same in every copy: a host built with
  # the sanitizers exports its copy of ModuleObj's (-rdynamic), which upstream's
  # runtime may bind to harmlessly. Functions are what must never be interposed.
  list(FILTER clash EXCLUDE REGEX "^_ZT[IS]")
  set(allowed ${clash})
  list(REMOVE_ITEM allowed ${expected})
  if(allowed)
    list(REMOVE_ITEM clash ${allowed})
  endif()
  if(clash)
    list(JOIN clash "\n  " clash_text)
    message(FATAL_ERROR "${LIB} exports upstream's out-of-line names:\n  ${clash_text}")
  endif()
  message(STATUS "none of the listed names exported")
  return()
endif()
set(missing ${expected})
list(REMOVE_ITEM missing ${actual})
set(extra ${actual})
list(REMOVE_ITEM extra ${expected})
if(missing OR extra)
  list(JOIN missing "\n  " missing_text)
  list(JOIN extra "\n  " extra_text)
  message(FATAL_ERROR "exports of ${LIB} differ from ${LIST}\n"
                      "listed but not exported:\n  ${missing_text}\n"
                      "exported but not listed:\n  ${extra_text}")
endif()
list(LENGTH actual n)
message(STATUS "${n} exported symbols, exactly as listed")
