gcc -std=c11 -O2 codegen.c $(tvm-ffi-config --cflags --ldflags --libs) \
    -L. -ladd_one -Wl,-rpath,"$(tvm-ffi-config --libdir)" -Wl,-rpath,'$ORIGIN' -o codegen
./codegen
