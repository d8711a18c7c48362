# Compiles each header in HEADERS alone (a translation unit of one #include),
# so a header that leans on another's includes fails here.
# Usage: cmake -DCXX=<compiler> "-DHEADERS=<tvm/ffi/a.h;...>" "-DFLAGS=<flags>"
#              -P check_headers_alone.cmake
if(NOT CXX OR NOT HEADERS)
  message(FATAL_ERROR "check_headers_alone.cmake needs -DCXX=... and -DHEADERS=...")
endif()
set(failed "")
foreach(h IN LISTS HEADERS)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "#include <${h}>"
    COMMAND ${CXX} ${FLAGS} -fsyntax-only -x c++ -
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(APPEND failed "${h}")
    message(STATUS "${h}:\n${err}${out}")
  endif()
endforeach()
list(LENGTH HEADERS n)
if(failed)
  message(FATAL_ERROR "headers that do not compile alone: ${failed}")
endif()
message(STATUS "${n} headers compile alone")
