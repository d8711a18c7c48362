g++ -shared -fPIC -O2 -fvisibility=hidden rowops.cc \
    $(tvm-ffi-config --cxxflags --ldflags --libs) -o librowops.so
