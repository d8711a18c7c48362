# docs/building.md's aarch64 cross build, typed as there: a plain configure with
# cmake/toolchains/aarch64-linux-gnu.cmake and nothing else must succeed (the
# header-only DLPack and nlohmann-json come from the build machine, copied into
# the build tree).
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -DGENERATOR=<gen> -P check_cross_configure.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}" -G "${GENERATOR}"
          -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
  WORKING_DIRECTORY "${SOURCE_DIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the documented cross configure failed (rc=${rc}):\n${out}")
endif()
foreach(header dlpack/dlpack.h nlohmann/json.hpp)
  if(NOT EXISTS "${WORK_DIR}/host-headers/${header}")
    message(FATAL_ERROR "${header} was not taken from the build machine:\n${out}")
  endif()
endforeach()

# The copies are whole: both compile with the target's compiler alone (the
# aarch64 phase of .ci/test.sh builds everything else for the target).
file(GLOB compiler_files "${WORK_DIR}/CMakeFiles/*/CMakeCXXCompiler.cmake")
include(${compiler_files})  # CMAKE_CXX_COMPILER, as the configure found it
set(cxx "${CMAKE_CXX_COMPILER}")
file(WRITE "${WORK_DIR}/header_deps.cc"
  "#include <dlpack/dlpack.h>\n#include <nlohmann/json.hpp>\n"
  "int main() { return nlohmann::json::parse(\"[1]\").size() == DLPACK_MAJOR_VERSION ? 0 : 1; }\n")
execute_process(COMMAND "${cxx}" -std=c++17 -fsyntax-only -I "${WORK_DIR}/host-headers"
                        "${WORK_DIR}/header_deps.cc"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${cxx} cannot compile with the copied headers alone:\n${out}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "cross configure: ok (${cxx})")
