g++ -O2 host.cc $(tvm-ffi-config --cxxflags --ldflags --libs) \
    -Wl,-rpath,"$(tvm-ffi-config --libdir)" -o host
./host ./libadd_one.so
