/*
 * test_interop: a host that links no TVM-FFI runtime. It loads runtimes with
 * dlopen and talks to each through its own C functions (dlsym), as a
 * language binding does. Modes:
 *
 *   standin <foreign runtime> <kernel library> <our runtime>
 *     The foreign runtime (a copy of ours named libtvm_ffi.so, in its own
 *     folder) is loaded RTLD_GLOBAL, then the kernel library (DT_NEEDED
 *     libtvm_ffi.so). The kernel binds to the foreign runtime: our runtime
 *     file is never loaded, the kernel sees the stream set through the
 *     foreign runtime, its errors and objects are the foreign runtime's.
 *   two_runtimes <runtime A> <runtime B>
 *     Two distinct runtimes, both RTLD_LOCAL: each loads cleanly and keeps its
 *     own state (streams, raised errors, global registry).
 *   load_failures <runtime with a duplicate built-in> <runtime> <library>
 *     A duplicate built-in registration, and a library whose static
 *     initialiser registers an existing global: both reported, neither fatal.
 */
#include <dlfcn.h>
#include <link.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_checks = 0;
int g_failures = 0;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    ++g_checks;                                                                     \
    if (!(cond)) {                                                                  \
      ++g_failures;                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                               \
  } while (0)

[[noreturn]] void Fatal(const std::string& what) {
  std::fprintf(stderr, "test_interop: %s\n", what.c_str());
  std::exit(2);
}

void* Open(const char* path, int mode) {
  void* h = dlopen(path, RTLD_NOW | mode);
  if (h == nullptr) Fatal(std::string("dlopen failed: ") + dlerror());
  return h;
}

template <typename F>
F Sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (p == nullptr) Fatal(std::string("missing symbol ") + name);
  return reinterpret_cast<F>(p);
}

// The C functions of one runtime, resolved from its own handle.
struct Runtime {
  void* lib = nullptr;
  decltype(&TVMFFIEnvSetStream) EnvSetStream;
  decltype(&TVMFFIEnvGetStream) EnvGetStream;
  decltype(&TVMFFIErrorMoveFromRaised) ErrorMoveFromRaised;
  decltype(&TVMFFIErrorSetRaisedFromCStr) ErrorSetRaisedFromCStr;
  decltype(&TVMFFIObjectDecRef) ObjectDecRef;
  decltype(&TVMFFIFunctionGetGlobal) FunctionGetGlobal;
  decltype(&TVMFFIFunctionSetGlobal) FunctionSetGlobal;
  decltype(&TVMFFIFunctionCreate) FunctionCreate;
  decltype(&TVMFFIFunctionCall) FunctionCall;

  explicit Runtime(void* handle) : lib(handle) {
    EnvSetStream = Sym<decltype(EnvSetStream)>(lib, "TVMFFIEnvSetStream");
    EnvGetStream = Sym<decltype(EnvGetStream)>(lib, "TVMFFIEnvGetStream");
    ErrorMoveFromRaised = Sym<decltype(ErrorMoveFromRaised)>(lib, "TVMFFIErrorMoveFromRaised");
    ErrorSetRaisedFromCStr =
        Sym<decltype(ErrorSetRaisedFromCStr)>(lib, "TVMFFIErrorSetRaisedFromCStr");
    ObjectDecRef = Sym<decltype(ObjectDecRef)>(lib, "TVMFFIObjectDecRef");
    FunctionGetGlobal = Sym<decltype(FunctionGetGlobal)>(lib, "TVMFFIFunctionGetGlobal");
    FunctionSetGlobal = Sym<decltype(FunctionSetGlobal)>(lib, "TVMFFIFunctionSetGlobal");
    FunctionCreate = Sym<decltype(FunctionCreate)>(lib, "TVMFFIFunctionCreate");
    FunctionCall = Sym<decltype(FunctionCall)>(lib, "TVMFFIFunctionCall");
  }

  TVMFFIObjectHandle Global(const char* name) const {
    TVMFFIByteArray n{name, std::strlen(name)};
    TVMFFIObjectHandle f = nullptr;
    if (FunctionGetGlobal(&n, &f) != 0) Fatal(std::string("GetGlobal failed for ") + name);
    return f;
  }

  // The kind and message of the raised error ("" when none), which is taken.
  std::string TakeRaised() const {
    TVMFFIObjectHandle err = nullptr;
    ErrorMoveFromRaised(&err);
    if (err == nullptr) return "";
    TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    std::string text = std::string(cell->kind.data, cell->kind.size) + ": " +
                       std::string(cell->message.data, cell->message.size);
    ObjectDecRef(err);
    return text;
  }

  // Call a global with the given arguments; the result is owned by the caller.
  TVMFFIAny CallGlobal(const char* name, std::vector<TVMFFIAny> args) const {
    TVMFFIObjectHandle f = Global(name);
    if (f == nullptr) Fatal(std::string("no global ") + name);
    TVMFFIAny result{};
    int rc = FunctionCall(f, args.data(), static_cast<int32_t>(args.size()), &result);
    ObjectDecRef(f);
    if (rc != 0) Fatal(std::string(name) + " raised " + TakeRaised());
    return result;
  }

  // The text of a string-valued result (small or object), released.
  std::string TakeString(TVMFFIAny v) const {
    std::string out;
    if (v.type_index == kTVMFFISmallStr) {
      out.assign(v.v_bytes, v.small_str_len);
    } else if (v.type_index == kTVMFFIStr) {
      TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(v.v_obj);
      out.assign(b->data, b->size);
      ObjectDecRef(v.v_obj);
    } else {
      Fatal("not a string: type index " + std::to_string(v.type_index));
    }
    return out;
  }

  std::string LoadFailures() const { return TakeString(CallGlobal("ffi.LoadFailures", {})); }
};

TVMFFIAny Int(int64_t v) {
  TVMFFIAny a{};
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

TVMFFIAny Str(const char* s) {
  TVMFFIAny a{};
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

// Whether a loaded object's file is `path` (compared by real path).
bool IsLoaded(const char* path) {
  struct Ctx {
    std::string want;
    bool found = false;
  } ctx;
  char buf[PATH_MAX];
  if (realpath(path, buf) == nullptr) Fatal(std::string("no such file: ") + path);
  ctx.want = buf;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* c = static_cast<Ctx*>(data);
        char real[PATH_MAX];
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' &&
            realpath(info->dlpi_name, real) != nullptr && c->want == real) {
          c->found = true;
        }
        return 0;
      },
      &ctx);
  return ctx.found;
}

// The real path of the object that defines the code at `addr`.
std::string ObjectOf(const void* addr) {
  Dl_info info;
  char real[PATH_MAX];
  if (dladdr(addr, &info) == 0 || realpath(info.dli_fname, real) == nullptr) return "?";
  return real;
}

std::string RealPath(const char* path) {
  char real[PATH_MAX];
  return realpath(path, real) != nullptr ? std::string(real) : std::string("?");
}

// Call an exported __tvm_ffi_<name> of a kernel library.
int CallKernel(void* kernel, const char* name, std::vector<TVMFFIAny> args, TVMFFIAny* result) {
  auto fn = Sym<TVMFFISafeCallType>(kernel, (std::string("__tvm_ffi_") + name).c_str());
  *result = TVMFFIAny{};
  return fn(nullptr, args.data(), static_cast<int32_t>(args.size()), result);
}

void Standin(const char* foreign_path, const char* kernel_path, const char* ours_path) {
  Runtime rt(Open(foreign_path, RTLD_GLOBAL));
  void* stream = reinterpret_cast<void*>(uintptr_t{0x5eed});
  CHECK(rt.EnvSetStream(kDLCUDA, 1, stream, nullptr) == 0);

  void* kernel = Open(kernel_path, RTLD_LOCAL);
  // Our runtime's file was never loaded: the kernel's DT_NEEDED libtvm_ffi.so
  // is the stand-in, and so are the TVMFFI* functions it calls.
  CHECK(!IsLoaded(ours_path));
  CHECK(IsLoaded(foreign_path));
  CHECK(ObjectOf(dlsym(kernel, "TVMFFIEnvGetStream")) == RealPath(foreign_path));
  CHECK(rt.LoadFailures().empty());

  // The stream the host set through the stand-in.
  TVMFFIAny r;
  CHECK(CallKernel(kernel, "get_stream", {Int(kDLCUDA), Int(1)}, &r) == 0);
  CHECK(r.type_index == kTVMFFIOpaquePtr && r.v_ptr == stream);
  CHECK(CallKernel(kernel, "get_stream", {Int(kDLCUDA), Int(0)}, &r) == 0);
  CHECK(r.type_index == kTVMFFINone || (r.type_index == kTVMFFIOpaquePtr && r.v_ptr == nullptr));

  // An error raised in the kernel is in the stand-in's slot.
  CHECK(CallKernel(kernel, "raise_value_error", {Str("no way")}, &r) == -1);
  CHECK(rt.TakeRaised() == "ValueError: kernel says: no way");
  CHECK(rt.TakeRaised().empty());

  // Objects the kernel returns, used through the stand-in.
  CHECK(CallKernel(kernel, "make_string", {Int(40)}, &r) == 0);
  CHECK(r.type_index == kTVMFFIStr);
  CHECK(rt.TakeString(r) == std::string(40, 'x'));

  CHECK(CallKernel(kernel, "make_array", {Int(5)}, &r) == 0);
  CHECK(r.type_index == kTVMFFIArray);
  if (r.type_index == kTVMFFIArray) {
    TVMFFIAny arr{};
    arr.type_index = kTVMFFIArray;
    arr.v_obj = r.v_obj;
    TVMFFIAny size = rt.CallGlobal("ffi.ArraySize", {arr});
    CHECK(size.type_index == kTVMFFIInt && size.v_int64 == 5);
    TVMFFIAny item = rt.CallGlobal("ffi.ArrayGetItem", {arr, Int(3)});
    CHECK(item.type_index == kTVMFFIInt && item.v_int64 == 9);
    rt.ObjectDecRef(r.v_obj);
  }

  CHECK(CallKernel(kernel, "make_tensor", {Int(4)}, &r) == 0);
  CHECK(r.type_index == kTVMFFITensor);
  if (r.type_index == kTVMFFITensor) {
    DLTensor* t = TVMFFITensorGetDLTensorPtr(r.v_obj);
    CHECK(t->ndim == 1 && t->shape[0] == 4 && t->dtype.code == kDLFloat && t->dtype.bits == 32);
    const float* p = static_cast<const float*>(t->data);
    CHECK(p[0] == 0.0f && p[3] == 3.0f);
    // The tensor as an argument of the stand-in's own global: its type is
    // known there, and the TypeError comes back through the stand-in's slot.
    TVMFFIObjectHandle f = rt.Global("ffi.String");
    TVMFFIAny out{};
    CHECK(rt.FunctionCall(f, &r, 1, &out) == -1);
    CHECK(rt.TakeRaised().rfind("TypeError: ffi.String: cannot convert `ffi.Tensor`", 0) == 0);
    rt.ObjectDecRef(f);
    rt.ObjectDecRef(r.v_obj);
  }
  CHECK(!IsLoaded(ours_path));
}

int ReturnsSeven(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  *result = Int(7);
  return 0;
}

void TwoRuntimes(const char* path_a, const char* path_b) {
  Runtime a(Open(path_a, RTLD_LOCAL));
  Runtime b(Open(path_b, RTLD_LOCAL));
  CHECK(a.lib != b.lib);
  CHECK(reinterpret_cast<void*>(a.EnvGetStream) != reinterpret_cast<void*>(b.EnvGetStream));

  // Streams: each runtime has its own table.
  void* sa = reinterpret_cast<void*>(uintptr_t{0xa});
  void* sb = reinterpret_cast<void*>(uintptr_t{0xb});
  CHECK(a.EnvSetStream(kDLCUDA, 0, sa, nullptr) == 0);
  CHECK(b.EnvGetStream(kDLCUDA, 0) == nullptr);
  CHECK(b.EnvSetStream(kDLCUDA, 0, sb, nullptr) == 0);
  CHECK(a.EnvGetStream(kDLCUDA, 0) == sa);
  CHECK(b.EnvGetStream(kDLCUDA, 0) == sb);

  // Raised errors: each runtime has its own slot.
  a.ErrorSetRaisedFromCStr("ValueError", "raised in a");
  CHECK(b.TakeRaised().empty());
  CHECK(a.TakeRaised() == "ValueError: raised in a");

  // Registries: each has the built-ins, as its own objects, and no failures.
  for (const char* name : {"ffi.String", "ffi.Shape", "ffi.Array", "ffi.Map",
                           "ffi.ModuleLoadFromFile", "ffi.FunctionListGlobalNamesFunctor"}) {
    TVMFFIObjectHandle fa = a.Global(name);
    TVMFFIObjectHandle fb = b.Global(name);
    CHECK(fa != nullptr && fb != nullptr && fa != fb);
    if (fa != nullptr) a.ObjectDecRef(fa);
    if (fb != nullptr) b.ObjectDecRef(fb);
  }
  CHECK(a.LoadFailures().empty());
  CHECK(b.LoadFailures().empty());
  CHECK(a.TakeString(a.CallGlobal("ffi.String", {Str("from a")})) == "from a");

  // A global registered in one is not in the other.
  TVMFFIObjectHandle f = nullptr;
  CHECK(a.FunctionCreate(nullptr, ReturnsSeven, nullptr, &f) == 0);
  TVMFFIByteArray name{"interop.only_in_a", 17};
  CHECK(a.FunctionSetGlobal(&name, f, 0) == 0);
  a.ObjectDecRef(f);
  TVMFFIAny seven = a.CallGlobal("interop.only_in_a", {});
  CHECK(seven.type_index == kTVMFFIInt && seven.v_int64 == 7);
  TVMFFIObjectHandle missing = b.Global("interop.only_in_a");
  CHECK(missing == nullptr);
}

void LoadFailures(const char* dup_runtime, const char* runtime, const char* library) {
  // A duplicate built-in: recorded, and the first registration stays.
  Runtime dup(Open(dup_runtime, RTLD_LOCAL));
  std::string failures = dup.LoadFailures();
  std::printf("dup runtime ffi.LoadFailures:\n%s", failures.c_str());
  CHECK(failures.find("cannot register built-in global `interop.dup`") != std::string::npos);
  CHECK(failures.find("already registered") != std::string::npos);
  TVMFFIAny first = dup.CallGlobal("interop.dup", {});
  CHECK(first.type_index == kTVMFFIInt && first.v_int64 == 1);
  CHECK(dup.TakeString(dup.CallGlobal("ffi.String", {Str("ok")})) == "ok");

  // A library's static initialiser that registers an existing global.
  Runtime rt(Open(runtime, RTLD_GLOBAL));
  CHECK(rt.LoadFailures().empty());
  Open(library, RTLD_LOCAL);
  failures = rt.LoadFailures();
  std::printf("runtime ffi.LoadFailures after the library:\n%s", failures.c_str());
  CHECK(failures.find("static initialisation at") != std::string::npos);
  CHECK(failures.find("ffi.String") != std::string::npos);
  // The built-in is untouched and the library's other initialiser ran.
  CHECK(rt.TakeString(rt.CallGlobal("ffi.String", {Str("plain")})) == "plain");
  TVMFFIAny seven = rt.CallGlobal("interop.after_failure", {});
  CHECK(seven.type_index == kTVMFFIInt && seven.v_int64 == 7);
  CHECK(rt.TakeRaised().empty());
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "standin" && argc == 5) {
    Standin(argv[2], argv[3], argv[4]);
  } else if (mode == "two_runtimes" && argc == 4) {
    TwoRuntimes(argv[2], argv[3]);
  } else if (mode == "load_failures" && argc == 5) {
    LoadFailures(argv[2], argv[3], argv[4]);
  } else {
    std::fprintf(stderr,
                 "usage: test_interop standin <foreign runtime> <kernel> <our runtime>\n"
                 "       test_interop two_runtimes <runtime A> <runtime B>\n"
                 "       test_interop load_failures <dup runtime> <runtime> <library>\n");
    return 2;
  }
  std::printf("test_interop %s: %d checks, %d failed\n", mode.c_str(), g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
