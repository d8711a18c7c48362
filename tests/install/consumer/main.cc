// Built against the installed headers and library: a typed call and a caught error.
#include <tvm/ffi/tvm_ffi.h>

#include <cstdio>

int main() {
  namespace ffi = tvm::ffi;
  ffi::Function add = ffi::Function::FromTyped([](int a, int b) { return a + b; }, "add");
  if (add(40, 2).cast<int>() != 42) return 1;
  try {
    add(1, "two");
    return 1;
  } catch (const ffi::Error& e) {
    if (e.kind() != "TypeError") return 1;
  }
  TVMFFIVersion v;
  TVMFFIGetVersion(&v);
  std::printf("consumer ok: tvmffi %u.%u.%u\n", v.major, v.minor, v.patch);
  return 0;
}
