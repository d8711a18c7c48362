cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
      -Dtvm_ffi_ROOT="$(python -m tvmffi.config --cmakedir)"
cmake --build build
