/*
 * A C++ host written the way apache/tvm-ffi's headers make one
 * (upstream_shapes.h). It links against link_stub.cc's libtvm_ffi.so, a
 * stand-in for upstream's library, and runs on our runtime: its
 * DT_NEEDED libtvm_ffi.so resolves to libtvmffi, whose DT_NEEDED
 * libtvmffi_upstream_cxx.so provides the C++ symbols (-z now: a missing one
 * fails at start-up; the stub's bodies abort).
 */
#include "upstream_shapes.h"

#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/memory.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <dlfcn.h>

#include <string>

namespace ffi = tvm::ffi;
using Catch::Matchers::ContainsSubstring;

namespace {

// A module defined by the host: subclasses ModuleObj, so it is built on the
// exported vtable and typeinfo of ModuleObj.
class HostModule final : public ffi::ModuleObj {
 public:
  const char* kind() const final { return "host"; }
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final {
    if (name == "host_twice") {
      return ffi::Function::FromTyped([](int64_t x) { return 2 * x; });
    }
    return std::nullopt;
  }
  // What TVM's codegen modules override (TileLang asks for the source).
  ffi::String InspectSource(const ffi::String& format) const final {
    return ffi::String("// host source, format=" + std::string(format));
  }
  ffi::Array<ffi::String> GetWriteFormats() const final { return {"cc"}; }
  void WriteToFile(const ffi::String& file_name, const ffi::String& format) const final {
    last_written = std::string(file_name) + ":" + std::string(format);
  }
  static inline std::string last_written;
};

ffi::Module NewHostModule() {
  return ffi::Module(ffi::make_object<HostModule>());
}

std::string ErrorKindOf(void (*fn)()) {
  try {
    fn();
  } catch (const ffi::Error& e) {
    return e.kind() + ": " + e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("upstream ABI: the entry points come from libtvmffi_upstream_cxx") {
  Dl_info info;
  void* addr = reinterpret_cast<void*>(&ffi::Module::LoadFromFile);
  REQUIRE(dladdr(addr, &info) != 0);
  CHECK_THAT(std::string(info.dli_fname), ContainsSubstring("libtvmffi_upstream_cxx.so"));
}

TEST_CASE("upstream ABI: LoadFromFile, then the virtual GetFunction and friends") {
  ffi::Module mod = ffi::Module::LoadFromFile(TVMFFI_TEST_CPU_KERNELS);
  CHECK(std::string(mod->kind()) == "library");
  CHECK(mod->GetPropertyMask() == 0b010);

  ffi::Optional<ffi::Function> add_int = mod->GetFunction("add_int");
  REQUIRE(add_int.has_value());
  CHECK((*add_int)(40, 2).cast<int64_t>() == 42);
  ffi::Optional<ffi::Function> greet = mod->GetFunction(ffi::String("greet"), false);
  REQUIRE(greet.has_value());
  CHECK_THAT((*greet)("upstream").cast<std::string>(), ContainsSubstring("upstream"));

  CHECK_FALSE(mod->GetFunction("no_such_function").has_value());
  CHECK_FALSE(mod->GetFunction("no_such_function", true).has_value());
  CHECK(mod->ImplementsFunction("add_one"));
  CHECK(mod->ImplementsFunction("add_one", true));
  CHECK_FALSE(mod->ImplementsFunction("no_such_function"));

  ffi::Optional<ffi::String> doc = mod->GetFunctionDoc("add_one");
  REQUIRE(doc.has_value());
  CHECK_THAT(std::string(*doc), ContainsSubstring("x + 1"));
  CHECK_FALSE(mod->GetFunctionDoc("no_such_function", true).has_value());
  ffi::Optional<ffi::String> meta = mod->GetFunctionMetadata("add_int", false);
  REQUIRE(meta.has_value());
  CHECK_THAT(std::string(*meta), ContainsSubstring("int"));

  CHECK(mod->GetWriteFormats().size() == 0);
  CHECK(mod->InspectSource("asm").size() == 0);
  CHECK(mod->imports().size() == 0);
  CHECK_THROWS_WITH(mod->WriteToFile("out.so", "so"),
                    ContainsSubstring("Module[library] does not support WriteToFile"));
  CHECK_THROWS_WITH(mod->SaveToBytes(), ContainsSubstring("does not support SaveToBytes"));
}

TEST_CASE("upstream ABI: a kernel's error reaches the host as tvm::ffi::Error") {
  ffi::Module mod = ffi::Module::LoadFromFile(TVMFFI_TEST_CPU_KERNELS);
  ffi::Function add_one = mod->GetFunction("add_one").value();
  try {
    add_one(1, 2);
    FAIL("add_one(1, 2) did not raise");
  } catch (const ffi::Error& e) {
    CHECK(e.kind() == "TypeError");
  }
}

TEST_CASE("upstream ABI: LoadFromFile of a missing file raises RuntimeError naming it") {
  std::string what = ErrorKindOf([] { ffi::Module::LoadFromFile("/nonexistent/libnothing.so"); });
  CHECK_THAT(what, ContainsSubstring("RuntimeError: "));
  CHECK_THAT(what, ContainsSubstring("/nonexistent/libnothing.so"));
}

TEST_CASE("upstream ABI: imports between loaded libraries reach the library's own lookups") {
  ffi::Module a = ffi::Module::LoadFromFile(TVMFFI_TEST_LIB_A);
  ffi::Module b = ffi::Module::LoadFromFile(TVMFFI_TEST_LIB_B);
  b->ImportModule(a);
  REQUIRE(b->imports().size() == 1);
  // lib_b resolves `add_int` through TVMFFIEnvModLookupFromImports: the
  // import must have been made in the runtime, not only in the wrapper.
  ffi::Function from_imports = b->GetFunction("add_int_from_imports").value();
  CHECK(from_imports(20, 22).cast<int64_t>() == 42);
  CHECK(b->GetFunction("iota", true).has_value());  // lib_a only
  CHECK_FALSE(b->GetFunction("iota", false).has_value());
  CHECK_THROWS_WITH(a->ImportModule(b), ContainsSubstring("cycle"));
}

TEST_CASE("upstream ABI: a host-defined ModuleObj subclass") {
  ffi::Module host = NewHostModule();
  CHECK(host->type_index() == ffi::TypeIndex::kTVMFFIModule);
  CHECK(host->GetPropertyMask() == 0);
  CHECK(host->GetFunction("host_twice").value()(21).cast<int64_t>() == 42);
  CHECK(host->ImplementsFunction("host_twice", false));  // inline default over the virtual

  ffi::Module kernels = ffi::Module::LoadFromFile(TVMFFI_TEST_CPU_KERNELS);
  host->ImportModule(kernels);
  CHECK_FALSE(host->GetFunction("add_int", false).has_value());
  ffi::Optional<ffi::Function> add_int = host->GetFunction("add_int", true);
  REQUIRE(add_int.has_value());
  CHECK((*add_int)(1, 2).cast<int64_t>() == 3);
  CHECK(host->ImplementsFunction("add_int", true));
  CHECK(host->GetFunctionDoc("add_one", true).has_value());
  CHECK(host->GetFunctionMetadata("add_int", true).has_value());
  CHECK_THROWS_WITH(host->ImportModule(host), ContainsSubstring("import cycle"));

  host->ClearImports();
  CHECK(host->imports().size() == 0);
  CHECK_FALSE(host->GetFunction("add_int", true).has_value());
}

TEST_CASE("upstream ABI: VisitContextSymbols sees the registered context symbols") {
  static int marker = 0;
  REQUIRE(TVMFFIEnvModRegisterContextSymbol("__upstream_cxx_test_ctx", &marker) == 0);
  int visited = 0;
  void* seen = nullptr;
  ffi::Module::VisitContextSymbols(
      ffi::TypedFunction<void(ffi::String, void*)>([&](ffi::String name, void* value) {
        ++visited;
        if (name == "__upstream_cxx_test_ctx") seen = value;
      }));
  CHECK(visited >= 1);
  CHECK(seen == &marker);
}

TEST_CASE("upstream ABI: the runtime's module globals take a host's ModuleObj subclass") {
  // The host's module has upstream's layout (vtable before the header): the
  // runtime's ffi.Module* globals call its virtual methods.
  auto global = [](const char* name) { return ffi::Function::GetGlobalRequired(name); };
  ffi::Module host = NewHostModule();
  ffi::Any as_any = host;
  CHECK(global("ffi.ModuleGetKind")(as_any).cast<std::string>() == "host");
  CHECK(global("ffi.ModuleGetPropertyMask")(as_any).cast<int64_t>() == 0);
  ffi::Function twice =
      global("ffi.ModuleGetFunctionRequired")(as_any, "host_twice", false).cast<ffi::Function>();
  CHECK(twice(21).cast<int64_t>() == 42);
  CHECK(global("ffi.ModuleGetFunction")(as_any, "nothing", true) == nullptr);
  CHECK_THROWS_WITH(global("ffi.ModuleGetFunctionRequired")(as_any, "nothing", false),
                    ContainsSubstring("Module[host] has no function `nothing`"));
  CHECK(global("ffi.ModuleImplementsFunction")(as_any, "host_twice", false).cast<bool>());
  CHECK(global("ffi.ModuleInspectSource")(as_any, "cuda").cast<std::string>() ==
        "// host source, format=cuda");
  CHECK(global("ffi.ModuleGetWriteFormats")(as_any).cast<ffi::Array<ffi::String>>().size() == 1);
  global("ffi.ModuleWriteToFile")(as_any, "out.cc", "cc");
  CHECK(HostModule::last_written == "out.cc:cc");
  CHECK(global("ffi.ModuleListFunctions")(as_any).cast<ffi::Array<ffi::String>>().size() == 0);

  // A loaded library imports the host's module through the runtime; the
  // lookup reaches the host's virtual GetFunction, and the list is the one
  // the host reads inline.
  ffi::Module kernels = ffi::Module::LoadFromFile(TVMFFI_TEST_CPU_KERNELS);
  global("ffi.ModuleImportModule")(kernels, host);
  REQUIRE(kernels->imports().size() == 1);
  CHECK(kernels->imports()[0].cast<ffi::Module>().same_as(host));
  ffi::Function via_import =
      global("ffi.ModuleGetFunctionRequired")(kernels, "host_twice", true).cast<ffi::Function>();
  CHECK(via_import(5).cast<int64_t>() == 10);
  CHECK(kernels->GetFunction("host_twice", true).has_value());
  CHECK_THROWS_WITH(global("ffi.ModuleImportModule")(host, kernels), ContainsSubstring("cycle"));
  global("ffi.ModuleClearImports")(kernels);
  CHECK(kernels->imports().size() == 0);
  CHECK_FALSE(kernels->GetFunction("host_twice", true).has_value());
}

TEST_CASE("upstream ABI: structural equality, hashing, DeepCopy, ReprPrint, Recursive*") {
  Dl_info info;
  void* addr = reinterpret_cast<void*>(&ffi::StructuralEqual::Equal);
  REQUIRE(dladdr(addr, &info) != 0);
  CHECK_THAT(std::string(info.dli_fname), ContainsSubstring("libtvmffi_upstream_cxx.so"));

  ffi::Array<int64_t> a{1, 2, 3};
  ffi::Array<int64_t> b{1, 2, 4};
  CHECK(ffi::StructuralEqual::Equal(a, ffi::Array<int64_t>{1, 2, 3}));
  CHECK_FALSE(ffi::StructuralEqual::Equal(a, b));
  CHECK_FALSE(ffi::StructuralEqual::GetFirstMismatch(a, a).has_value());
  ffi::Optional<ffi::reflection::AccessPathPair> m = ffi::StructuralEqual::GetFirstMismatch(a, b);
  REQUIRE(m.has_value());
  CHECK(m.value().get<0>()->PathEqual(ffi::reflection::AccessPath::Root()->ArrayItem(2)));
  CHECK(ffi::StructuralHash::Hash(a) == ffi::StructuralHash::Hash(ffi::Array<int64_t>{1, 2, 3}));
  CHECK(ffi::StructuralHash::Hash(a) != ffi::StructuralHash::Hash(b));
  ffi::Any copy = ffi::DeepCopy(a);
  CHECK_FALSE(copy.same_as(a));
  CHECK(std::string(ffi::ReprPrint(copy)) == "(1, 2, 3)");
  CHECK(ffi::RecursiveEq(a, copy));
  CHECK_FALSE(ffi::RecursiveEq(a, b));
  CHECK(ffi::RecursiveHash(a) == ffi::RecursiveHash(copy));
  CHECK(ffi::RecursiveLt(a, b));
  CHECK(ffi::RecursiveLe(a, copy));
  CHECK(ffi::RecursiveGt(b, a));
  CHECK(ffi::RecursiveGe(a, copy));
  REQUIRE(dladdr(reinterpret_cast<void*>(&ffi::RecursiveEq), &info) != 0);
  CHECK_THAT(std::string(info.dli_fname), ContainsSubstring("libtvmffi_upstream_cxx.so"));
}

TEST_CASE("upstream ABI: VisitErrorContext::FindAccessPaths") {
  Dl_info info;
  REQUIRE(dladdr(reinterpret_cast<void*>(&ffi::VisitErrorContext::FindAccessPaths), &info) != 0);
  CHECK_THAT(std::string(info.dli_fname), ContainsSubstring("libtvmffi_upstream_cxx.so"));

  // The host makes the context in upstream's layout; the runtime reads it.
  ffi::Array<ffi::ObjectRef> inner{ffi::Array<ffi::ObjectRef>{}};
  ffi::Array<ffi::ObjectRef> root{ffi::Array<ffi::ObjectRef>{}, inner};
  ffi::ObjectPtr<ffi::VisitErrorContextObj> ctx = ffi::make_object<ffi::VisitErrorContextObj>();
  ctx->reverse_visit_pattern.push_back(inner[0]);
  ctx->reverse_visit_pattern.push_back(inner);
  ffi::Array<ffi::reflection::AccessPath> paths =
      ffi::VisitErrorContext::FindAccessPaths(root, ffi::VisitErrorContext(ctx));
  REQUIRE(paths.size() == 1);
  CHECK(paths[0]->PathEqual(ffi::reflection::AccessPath::Root()->ArrayItem(1)->ArrayItem(0)));
}

TEST_CASE("upstream ABI: json::Parse and json::Stringify from libtvmffi_upstream_cxx") {
  Dl_info info;
  REQUIRE(dladdr(reinterpret_cast<void*>(&ffi::json::Parse), &info) != 0);
  CHECK_THAT(std::string(info.dli_fname), ContainsSubstring("libtvmffi_upstream_cxx.so"));

  ffi::Any v = ffi::json::Parse("{\"b\": [1, 2.5, null], \"a\": \"x\"}");
  ffi::UpstreamOptionalInt none{};
  none.cell.type_index = ffi::TypeIndex::kTVMFFINone;
  CHECK(ffi::json::Stringify(v, none.as_arg()) == "{\"b\":[1,2.5,null],\"a\":\"x\"}");
  ffi::UpstreamOptionalInt two{};
  two.cell.type_index = ffi::TypeIndex::kTVMFFIInt;
  two.cell.v_int64 = 2;
  CHECK(ffi::json::Stringify(ffi::Any(ffi::Array<ffi::Any>{1}), two.as_arg()) == "[\n  1\n]");

  ffi::String msg("unset");
  CHECK(ffi::json::Parse("[1,", &msg) == nullptr);
  CHECK(msg == "Expecting value: line 1 column 4 (char 3)");
  CHECK(ErrorKindOf([] { ffi::json::Parse("tru"); }) ==
        "ValueError: Expecting value: line 1 column 1 (char 0)");
}

TEST_CASE("upstream ABI: ToJSONGraph and FromJSONGraph from libtvmffi_upstream_cxx") {
  Dl_info info;
  REQUIRE(dladdr(reinterpret_cast<void*>(&ffi::FromJSONGraph), &info) != 0);
  CHECK_THAT(std::string(info.dli_fname), ContainsSubstring("libtvmffi_upstream_cxx.so"));
  ffi::Array<ffi::Any> shared{1};
  ffi::Any graph = ffi::ToJSONGraph(ffi::Array<ffi::Any>{shared, shared});
  ffi::Array<ffi::Any> back = ffi::FromJSONGraph(graph).cast<ffi::Array<ffi::Any>>();
  CHECK(back.size() == 2);
  CHECK(back[0].same_as(back[1]));
  CHECK(back[0].cast<ffi::Array<ffi::Any>>()[0].cast<int64_t>() == 1);
}
