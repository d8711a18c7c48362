/*
 * A C++ host for the interop matrix of .ci/upstream.sh: built against one
 * side's headers and linked to that side's libtvm_ffi.so (ours, or upstream's
 * wheel), it loads xlib.cc built against either side and checks every object
 * type both ways, then that one runtime is mapped in the process.
 * Usage: xhost LIB; prints PASS/FAIL lines and "interop: N passed, N failed".
 */
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>

namespace ffi = tvm::ffi;

namespace {

int passed = 0, failed = 0;

void Check(const char* name, const std::function<bool()>& fn) {
  bool ok = false;
  std::string why = "returned false";
  try {
    ok = fn();
  } catch (const std::exception& e) {
    why = e.what();
  }
  std::printf("%s: %s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : (" (" + why + ")").c_str());
  ++(ok ? passed : failed);
}

struct HostAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(t->shape[0] * sizeof(float)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

std::set<std::string> MappedRuntimes() {
  std::set<std::string> out;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.find("/libtvm_ffi.so") == std::string::npos) continue;
    char* real = realpath(path.c_str(), nullptr);
    out.insert(real != nullptr ? real : path);
    std::free(real);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: xhost LIB\n");
    return 2;
  }
  ffi::Module mod = ffi::Module::LoadFromFile(argv[1]);
  auto fn = [&](const char* name) { return mod->GetFunction(name).value(); };
  Check("call: add_int", [&] { return fn("add_int")(40, 2).cast<int64_t>() == 42; });
  Check("Array host->lib", [&] {
    return fn("array_sum")(ffi::Array<int64_t>{1, 2, 3}).cast<int64_t>() == 6;
  });
  Check("Array lib->host", [&] {
    auto a = fn("make_array")(4).cast<ffi::Array<int64_t>>();
    return a.size() == 4 && a[3] == 9;
  });
  Check("Map host->lib", [&] {
    ffi::Map<ffi::String, int64_t> m{{"a", 1}, {"b", 2}};
    return fn("map_get")(m, ffi::String("b")).cast<int64_t>() == 2;
  });
  Check("Map lib->host", [&] {
    auto m = fn("make_map")(3).cast<ffi::Map<ffi::String, int64_t>>();
    return m.size() == 3 && m.at("k2") == 2;
  });
  Check("String host->lib", [&] {
    return fn("str_len")(ffi::String("a string of 24 bytes....")).cast<int64_t>() == 24;
  });
  Check("String lib->host",
        [&] { return fn("make_str")(20).cast<ffi::String>() == std::string(20, 'x'); });
  Check("Function host->lib", [&] {
    auto twice = ffi::Function::FromTyped([](int64_t v) { return v * 2; });
    return fn("call_fn")(twice, 5).cast<int64_t>() == 11;
  });
  Check("Function lib->host",
        [&] { return fn("make_fn")(3).cast<ffi::Function>()(4).cast<int64_t>() == 12; });
  DLDataType f32{kDLFloat, 32, 1};
  ffi::Tensor x = ffi::Tensor::FromNDAlloc(HostAlloc(), {4}, f32, DLDevice{kDLCPU, 0});
  ffi::Tensor y = ffi::Tensor::FromNDAlloc(HostAlloc(), {4}, f32, DLDevice{kDLCPU, 0});
  for (int i = 0; i < 4; ++i) static_cast<float*>(x.data_ptr())[i] = static_cast<float>(i);
  Check("Tensor host->lib", [&] { return fn("tensor_sum")(x).cast<double>() == 6.0; });
  Check("Tensor written by lib", [&] {
    fn("add_one")(x, y);
    return static_cast<float*>(y.data_ptr())[3] == 4.0f;
  });
  Check("error lib->host", [&] {
    try {
      fn("raise_value_error")(ffi::String("boom"));
    } catch (const ffi::Error& e) {
      return e.kind() == "ValueError";
    }
    return false;
  });
  Check("error host->lib", [&] {
    auto bad = ffi::Function::FromTyped([]() { TVM_FFI_THROW(ValueError) << "from the host"; });
    return fn("catch_kind")(bad).cast<ffi::String>() == "ValueError";
  });
  Check("BigInt host->lib->host", [&] {
    ffi::BigInt big = (ffi::BigInt(1) << 100) + 7;
    ffi::Any product = fn("bigint_mul")(big, -big);
    return product.type_index() == ffi::TypeIndex::kTVMFFIBigInt &&
           product.cast<ffi::BigInt>() == -(big * big);
  });
  // Modules both ways: the library's own ModuleObj subclass through this
  // host's calls, and this runtime's module through the library's vtable.
  ffi::Module xmod = fn("make_module")().cast<ffi::Module>();
  Check("Module lib->host: kind, virtual GetFunction", [&] {
    return std::string(xmod->kind()) == "xmod" &&
           xmod->GetFunction(ffi::String("twice")).value()(21).cast<int64_t>() == 42;
  });
  Check("Module lib->host: InspectSource, GetWriteFormats, GetPropertyMask", [&] {
    return xmod->InspectSource("cuda") == "// xmod source, format=cuda" &&
           xmod->GetWriteFormats().size() == 1 && xmod->GetPropertyMask() == 0b100;
  });
  Check("Module lib->host: imported into the loaded library", [&] {
    mod->ImportModule(xmod);
    bool found = mod->GetFunction(ffi::String("twice"), true).value()(4).cast<int64_t>() == 8;
    bool doc = mod->GetFunctionDoc(ffi::String("twice"), true).value() == "Twice its argument.";
    bool listed = mod->imports().size() == 1;
    mod->ClearImports();
    return found && doc && listed && mod->imports().size() == 0;
  });
  Check("Module host->lib: the library calls the runtime's module",
        [&] { return fn("probe_module")(mod).cast<ffi::String>() == "library|yes|42|0|none"; });
  std::set<std::string> runtimes = MappedRuntimes();
  Check("one runtime in the process", [&] { return runtimes.size() == 1; });
  for (const std::string& r : runtimes) std::printf("runtime: %s\n", r.c_str());
  std::printf("interop: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
