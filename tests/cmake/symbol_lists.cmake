# Shared by check_symbols.cmake and interop/check_portable.cmake (cmake -P).

# Sets `out` to the names of `nm -D <flag> <lib>` (version suffixes dropped).
function(tvmffi_dynamic_symbols out nm flag lib)
  execute_process(COMMAND ${nm} -D ${flag} ${lib} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${nm} failed on ${lib} (${rc})")
  endif()
  string(REPLACE "\n" ";" lines "${text}")
  set(names "")
  foreach(line IN LISTS lines)
    # "<address> <type> <name>[@version]"; undefined ones have no address.
    string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] +" "" name "${line}")
    string(REGEX REPLACE "@.*$" "" name "${name}")
    if(NOT name STREQUAL "")
      list(APPEND names "${name}")
    endif()
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# Sets `out` to the standard TVM-FFI 0.1 C symbols listed in `file`
# (runtime/standard_symbols.txt); fails unless it lists 48.
function(tvmffi_standard_symbols out file)
  file(STRINGS "${file}" names REGEX "^TVMFFI")
  list(LENGTH names n)
  if(NOT n EQUAL 48)
    message(FATAL_ERROR "${file} lists ${n} names, expected the 48 of TVM-FFI 0.1")
  endif()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()
