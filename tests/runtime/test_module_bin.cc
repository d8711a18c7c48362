// Libraries with an embedded `__tvm_ffi__library_bin` (tests/module/lib_bin.c):
// the loader rebuilds the serialised modules with their kind's
// `ffi.Module.load_from_bytes.<kind>` and imports them as the tree says, so
// the library's generated code finds their functions (TVM's CUDA module in a
// library TileLang or TVM exported).
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

namespace ffi = tvm::ffi;
using Catch::Matchers::ContainsSubstring;

namespace {

// The module a `tvmffi_test_bin` entry becomes: kept bytes, one function.
class BinModule final : public ffi::ModuleObj {
 public:
  explicit BinModule(std::string payload) : payload_(std::move(payload)) {}
  const char* kind() const final { return "test_bin"; }
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final {
    if (name != "bin_twice") return std::nullopt;
    return ffi::Function::FromTyped([](int64_t x) { return 2 * x; });
  }
  ffi::String InspectSource(const ffi::String&) const final { return payload_; }

 private:
  std::string payload_;
};

int loads = 0;

void RegisterLoader() {
  static const bool done = [] {
    ffi::Function loader = ffi::Function::FromTyped([](const ffi::Bytes& bytes) {
      ++loads;
      return ffi::Module(ffi::make_object<BinModule>(std::string(bytes.data(), bytes.size())));
    });
    ffi::Function::SetGlobal("ffi.Module.load_from_bytes.tvmffi_test_bin", loader);
    return true;
  }();
  (void)done;
}

std::string LoadError(const char* path) {
  try {
    ffi::Module::LoadFromFile(path);
  } catch (const ffi::Error& e) {
    return e.kind() + ": " + e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("library_bin: the serialised module is rebuilt and imported") {
  RegisterLoader();
  ffi::Module mod = ffi::Module::LoadFromFile(TVMFFI_TEST_LIB_BIN1);
  REQUIRE(loads == 1);
  REQUIRE(mod->imports().size() == 1);
  ffi::Module bin = mod->imports()[0].cast<ffi::Module>();
  CHECK(std::string(bin->kind()) == "test_bin");
  CHECK(bin->InspectSource("") == "payload");
  // The library's own code reaches it through TVMFFIEnvModLookupFromImports.
  CHECK(mod->GetFunctionRequired("bin_call")(21).cast<int64_t>() == 42);
  CHECK(mod->GetFunction("bin_twice", true).has_value());
  CHECK_FALSE(mod->GetFunction("bin_twice", false).has_value());
  // One module per library: a second load rebuilds nothing.
  ffi::Module again = ffi::Module::LoadFromFile(TVMFFI_TEST_LIB_BIN1);
  CHECK(again.same_as(mod));
  CHECK(loads == 1);
}

TEST_CASE("library_bin: a kind without a loader is refused, naming the loader") {
  std::string what = LoadError(TVMFFI_TEST_LIB_BIN2);
  CHECK_THAT(what, ContainsSubstring("RuntimeError: "));
  CHECK_THAT(what, ContainsSubstring("ffi.Module.load_from_bytes.tvmffi_test_no_loader"));
  CHECK_THAT(what, ContainsSubstring(TVMFFI_TEST_LIB_BIN2));
  // Nothing was published: the next load is refused the same way.
  CHECK(LoadError(TVMFFI_TEST_LIB_BIN2) == what);
}

TEST_CASE("library_bin: a blob longer than its symbol is refused before reading it") {
  RegisterLoader();
  int before = loads;
  std::string what = LoadError(TVMFFI_TEST_LIB_BIN3);
  CHECK_THAT(what, ContainsSubstring("RuntimeError: "));
  CHECK_THAT(what, ContainsSubstring("malformed `__tvm_ffi__library_bin`"));
  CHECK(loads == before);
}
