nvcc -shared -Xcompiler -fPIC,-fvisibility=hidden -O2 scale.cu \
     $(tvm-ffi-config --cxxflags --ldflags --libs) -o libcuda_scale.so
