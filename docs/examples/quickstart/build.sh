g++ -shared -fPIC -O2 -fvisibility=hidden add_one.cc \
    $(tvm-ffi-config --cxxflags --ldflags --libs) -o libadd_one.so
