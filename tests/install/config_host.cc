// Built by hand the way upstream's recipes do:
//   g++ $(tvm-ffi-config --cxxflags) config_host.cc $(tvm-ffi-config --ldflags --libs)
// It includes only the umbrella header and uses std::cout, as upstream's
// quickstart host does.
#include <tvm/ffi/tvm_ffi.h>

int main() {
  namespace ffi = tvm::ffi;
  ffi::Function twice = ffi::Function::FromTyped([](int64_t x) { return 2 * x; }, "twice");
  ffi::String name("tvm-ffi-config");
  std::cout << "config host ok: " << name << " " << twice(21).cast<int64_t>() << std::endl;
  return twice(21).cast<int64_t>() == 42 ? 0 : 1;
}
