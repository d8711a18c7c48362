# The project's compiler warnings, in one place.
#
#   tvmffi_add_warnings(<target>)  -Wall -Wextra on the target's C, C++ and
#                                  (host side of) CUDA sources.
#   TVMFFI_STRICT_C_WARNINGS       the flags for sources that must be clean
#                                  C11 (the pure C headers' tests).
set(TVMFFI_WARNINGS -Wall -Wextra)
set(TVMFFI_STRICT_C_WARNINGS ${TVMFFI_WARNINGS} -Wpedantic -Werror)

function(tvmffi_add_warnings target)
  string(REPLACE ";" "," _xcompiler "${TVMFFI_WARNINGS}")
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:C,CXX>:${TVMFFI_WARNINGS}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_xcompiler}>")
endfunction()
