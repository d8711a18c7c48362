gcc -std=c11 -shared -fPIC -O2 c_kernel.c \
    $(tvm-ffi-config --cflags --ldflags --libs) -o libc_kernel.so
