# The wheel (pyproject.toml at the repository root, scikit-build-core): the
# install prefix is the package folder tvmffi/ (wheel.install-dir), so the
# root's install rules lay out the SDK there (lib/, include/, bin/, cmake,
# pkg-config); this file adds the extension tvmffi._core (and
# tvmffi._torch_exchange where it is built) at the package's top.
# scikit-build-core copies the Python sources (wheel.packages).
include(${CMAKE_CURRENT_LIST_DIR}/tvmffi_python.cmake)
# Nothing shipped may look outside the package: the extensions need no run
# path (the runtime and torch are loaded before them, by SONAME).
set_target_properties(tvmffi_python_core ${TVMFFI_TORCH_EXCHANGE_TARGET}
  PROPERTIES INSTALL_RPATH "")
install(TARGETS tvmffi_python_core ${TVMFFI_TORCH_EXCHANGE_TARGET} LIBRARY DESTINATION .)
if(TVMFFI_TORCH_EXCHANGE_FOR)
  install(FILES "${TVMFFI_TORCH_EXCHANGE_FOR}" DESTINATION .)
endif()
# The exchange API's source, for building it against another torch at run time
# (tvmffi.utils._build_optional_torch_c_dlpack); shipped with or without torch here.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/../src/torch_exchange.cc DESTINATION .
  RENAME _torch_exchange.cc)
