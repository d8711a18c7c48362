// Tests of tvm/ffi/function.h, function_detail.h and reflection/registry.h:
// typed and packed functions, argument conversion and errors, C interop,
// the global registry, static registration.
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;

class BoxObj : public Object {
 public:
  explicit BoxObj(int v) : value(v) {}
  int value;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.function.Box", BoxObj, Object);
};
class Box : public ObjectRef {
 public:
  explicit Box(int v) : Box(make_object<BoxObj>(v)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Box, ObjectRef, BoxObj);
};

class TrackedObj : public Object {
 public:
  ~TrackedObj() { ++destroyed; }
  static inline int destroyed = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.function.Tracked", TrackedObj, Object);
};

template <typename F>
Error ExpectError(F&& f) {
  try {
    f();
  } catch (const Error& err) {
    return err;
  }
  FAIL("no tvm::ffi::Error was thrown");
  throw std::logic_error("unreachable");
}

int Add(int a, int b) {
  return a + b;
}

TVMFFIAny IntArg(int64_t v) {
  TVMFFIAny a;
  a.type_index = kTVMFFIInt;
  a.zero_padding = 0;
  a.v_int64 = v;
  return a;
}
TVMFFIAny StrArg(const char* s) {
  TVMFFIAny a;
  a.type_index = kTVMFFIRawStr;
  a.zero_padding = 0;
  a.v_c_str = s;
  return a;
}
}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef()
      .def(
          "testing.core.static_mul", [](int64_t a, int64_t b) { return a * b; },
          "Multiply two integers.")
      .def_packed("testing.core.static_count",
                  [](tvm::ffi::PackedArgs args, tvm::ffi::Any* rv) { *rv = args.size(); });
}

TEST_CASE("Typed function: call from C++", "[function]") {
  Function f = Function::FromTyped(Add);
  REQUIRE(f(1, 2).cast<int>() == 3);
  Function g = Function::FromTyped([](int64_t a, double b) { return a * b; });
  REQUIRE(g(3, 0.5).cast<double>() == 1.5);
  REQUIRE(g(3, 2).cast<double>() == 6.0);  // int converts to a float parameter
  Function h = Function::FromTyped([]() {});
  Any none = h();
  REQUIRE(none == nullptr);
  REQUIRE(f.defined());
  REQUIRE(f != nullptr);
}

TEST_CASE("Typed function: argument errors name the function, argument and types", "[function]") {
  Function add = Function::FromTyped(Add, "add");
  REQUIRE(ExpectError([&] { add(1, "two"); }).message() ==
          "Mismatched type on argument #1 when calling: `add(0: int, 1: int) -> int`. "
          "Expected `int` but got `str`");
  Error count = ExpectError([&] { add(1, 2, 3); });
  REQUIRE(count.kind() == "TypeError");
  REQUIRE(count.message() ==
          "Mismatched number of arguments when calling: `add(0: int, 1: int) -> int`. "
          "Expected 2 but got 3 arguments");
  // The first bad argument is reported.
  REQUIRE(ExpectError([&] { add(1.5, "x"); }).message() ==
          "Mismatched type on argument #0 when calling: `add(0: int, 1: int) -> int`. "
          "Expected `int` but got `float`");
  Function unnamed = Function::FromTyped(Add);
  REQUIRE(ExpectError([&] { unnamed(nullptr, 1); }).message() ==
          "Mismatched type on argument #0 when calling: `(0: int, 1: int) -> int`. "
          "Expected `int` but got `None`");
  Function takes_box = Function::FromTyped([](Box b) { return b->value; }, "unbox");
  REQUIRE(ExpectError([&] { takes_box(Function::FromTyped(Add)); }).message() ==
          "Mismatched type on argument #0 when calling: `unbox(0: test.function.Box) -> int`. "
          "Expected `test.function.Box` but got `ffi.Function`");
}

TEST_CASE("Typed function: signature names of every parameter type", "[function]") {
  Function f = Function::FromTyped(
      [](const String&, Optional<int>, Function, double, bool, DLDevice, DLDataType, void*, Any,
         AnyView, ObjectRef, Bytes, std::optional<String>, const char*) {},
      "sig");
  REQUIRE(ExpectError([&] { f(); }).message() ==
          "Mismatched number of arguments when calling: `sig(0: str, 1: Optional<int>, "
          "2: ffi.Function, 3: float, 4: bool, 5: Device, 6: DataType, 7: void*, 8: Any, "
          "9: AnyView, 10: ffi.Object, 11: bytes, 12: Optional<str>, 13: str) -> None`. "
          "Expected 14 but got 0 arguments");
}

TEST_CASE("Typed function: parameters by value, const& and &&", "[function]") {
  Box box(41);
  Function f = Function::FromTyped([](int a, const String& b, Box&& c) {
    Box taken = std::move(c);
    return String(std::string(b) + std::to_string(a + taken->value));
  });
  REQUIRE(f(1, "v=", box).cast<String>() == "v=42");
  REQUIRE(box.use_count() == 1);  // the argument's copy was released
  // Conversions: a raw string to String, bool to int, int to bool.
  Function g = Function::FromTyped([](bool flag, int n, String s, std::string t, std::string_view u,
                                      const char* v) {
    return String((flag ? "T" : "F") + std::to_string(n) + std::string(s) + t + std::string(u) + v);
  });
  REQUIRE(g(1, true, "s", String("t"), "u", String("a longer v string")).cast<String>() ==
          "T1stua longer v string");
}

TEST_CASE("Typed function: optional parameters and return values", "[function]") {
  Function f = Function::FromTyped([](Optional<int> a, std::optional<String> b) -> Optional<int> {
    if (!a.has_value()) return std::nullopt;
    return *a + static_cast<int>(b.has_value() ? b->size() : 100);
  });
  REQUIRE(f(nullptr, nullptr) == nullptr);
  REQUIRE(f(1, nullptr).cast<int>() == 101);
  REQUIRE(f(1, "four").cast<int>() == 5);
  REQUIRE(ExpectError([&] { f("x", nullptr); }).message() ==
          "Mismatched type on argument #0 when calling: "
          "`(0: Optional<int>, 1: Optional<str>) -> Optional<int>`. "
          "Expected `Optional<int>` but got `str`");
  Function dtype = Function::FromTyped([](DLDataType t) { return t.bits; });
  REQUIRE(dtype("float16").cast<int>() == 16);  // str names a data type
  REQUIRE(dtype(dl_int8).cast<int>() == 8);
}

TEST_CASE("Typed function: objects and Any in and out", "[function]") {
  Function make = Function::FromTyped([](int v) { return Box(v); });
  Function unbox = Function::FromTyped([](const Box& b) { return b->value; });
  Function identity = Function::FromTyped([](Any x) { return x; });
  Function view_type = Function::FromTyped([](AnyView x) { return x.type_index(); });
  Box b = make(5).cast<Box>();
  REQUIRE(b.use_count() == 1);
  REQUIRE(unbox(b).cast<int>() == 5);
  Any same = identity(b);
  REQUIRE(same.cast<Box>().same_as(b));
  REQUIRE(identity("raw").cast<String>() == "raw");  // Any parameter owns a copy
  REQUIRE(view_type("raw").cast<int>() == kTVMFFIRawStr);
  REQUIRE(view_type(1.0).cast<int>() == kTVMFFIFloat);
}

TEST_CASE("Packed functions and PackedArgs", "[function]") {
  Function sum = Function::FromPacked([](PackedArgs args, Any* rv) {
    int64_t total = 0;
    for (int i = 0; i < args.size(); ++i) total += args[i].cast<int64_t>();
    *rv = total;
  });
  REQUIRE(sum().cast<int>() == 0);
  REQUIRE(sum(1, 2, 3, 4).cast<int>() == 10);
  Function raw = Function::FromPacked([](const AnyView* args, int32_t n, Any* rv) {
    PackedArgs all(args, n);
    *rv = all.Slice(1).size() * 100 + all.Slice(1, 2).size();
  });
  REQUIRE(raw(1, 2, 3).cast<int>() == 201);
  AnyView packed[3];
  PackedArgs::Fill(packed, 7, "x", dl_float32);
  Any result;
  sum.CallPacked(PackedArgs(packed, 1), &result);
  REQUIRE(result.cast<int>() == 7);
  REQUIRE(packed[1].cast<String>() == "x");
}

// What TVMFFIFunctionCall, or the cell's safe_call called directly, reports
// for a call of `f` (0, or -1 and the raised error's kind and message).
struct CallOutcome {
  int rc;
  std::string kind;
  std::string message;
};
CallOutcome CallFromC(const Function& f, bool direct, const TVMFFIAny* args, int32_t num_args,
                      TVMFFIAny* result) {
  TVMFFIObject* handle =
      static_cast<TVMFFIObject*>(detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(f));
  int rc = direct ? TVMFFIFunctionGetCellPtr(handle)->safe_call(handle, args, num_args, result)
                  : TVMFFIFunctionCall(handle, const_cast<TVMFFIAny*>(args), num_args, result);
  if (rc == 0) return {0, "", ""};
  Error err = detail::MoveFromSafeCallRaised();
  return {rc, err.kind(), err.message()};
}

TEST_CASE("Typed functions check every C call themselves, through TVMFFIFunctionCall or the cell",
          "[function][regression]") {
  Function add = Function::FromTyped(Add, "add");
  Function none = Function::FromTyped([]() {});
  TVMFFIAny args[2] = {IntArg(40), IntArg(2)};
  for (bool direct : {false, true}) {
    CAPTURE(direct);
    TVMFFIAny result = IntArg(7);  // a non-object value: allowed on entry
    REQUIRE(CallFromC(add, direct, args, 2, &result).rc == 0);
    REQUIRE(result.type_index == kTVMFFIInt);
    REQUIRE(result.v_int64 == 42);
    // A function without a result leaves None, whatever non-object value was there.
    result = IntArg(7);
    REQUIRE(CallFromC(none, direct, nullptr, 0, &result).rc == 0);
    REQUIRE(result.type_index == kTVMFFINone);

    CallOutcome o = CallFromC(add, direct, args, 2, nullptr);
    REQUIRE(o.rc == -1);
    REQUIRE(o.kind == "ValueError");
    REQUIRE_THAT(o.message, ContainsSubstring("`result` is NULL"));
    o = CallFromC(add, direct, nullptr, 2, &result);
    REQUIRE(o.rc == -1);
    REQUIRE(o.kind == "ValueError");
    REQUIRE_THAT(o.message, ContainsSubstring("`args` is NULL"));
    o = CallFromC(add, direct, args, -1, &result);
    REQUIRE(o.rc == -1);
    REQUIRE(o.kind == "ValueError");
    REQUIRE_THAT(o.message, ContainsSubstring("`num_args` is negative"));
    // A well-formed call with the wrong count: the signature's own error.
    result = IntArg(7);
    o = CallFromC(add, direct, args, 1, &result);
    REQUIRE(o.rc == -1);
    REQUIRE(o.kind == "TypeError");
    REQUIRE_THAT(o.message,
                 ContainsSubstring("`add(0: int, 1: int) -> int`. Expected 2 but got 1"));
    REQUIRE(result.type_index == kTVMFFIInt);  // untouched by a failed call
    o = CallFromC(none, direct, args, 1, &result);
    REQUIRE(o.rc == -1);
    REQUIRE(o.kind == "TypeError");
    // Arguments that need converting (int -> double) take the checked entry and succeed.
    Function half = Function::FromTyped([](double x) { return x / 2; });
    result = IntArg(7);
    REQUIRE(CallFromC(half, direct, args, 1, &result).rc == 0);
    REQUIRE(result.type_index == kTVMFFIFloat);
    REQUIRE(result.v_float64 == 20.0);
  }
}

TEST_CASE("A packed function that sets its result and then throws leaks nothing",
          "[function][regression]") {
  Function f = Function::FromPacked([](PackedArgs, Any* rv) {
    *rv = ObjectRef(make_object<TrackedObj>());
    TVM_FFI_THROW(RuntimeError) << "after the result";
  });
  TrackedObj::destroyed = 0;
  REQUIRE_THROWS_AS(f(), Error);
  REQUIRE(TrackedObj::destroyed == 1);
  Any kept = 5;
  REQUIRE_THROWS_AS(f.CallPacked(nullptr, 0, &kept), Error);
  REQUIRE(TrackedObj::destroyed == 2);
  REQUIRE(kept == nullptr);
  // Functions made here are known to this library by their header's deleter.
  REQUIRE(detail::ObjectUnsafe::GetHeader(f.get())->deleter == &detail::CppFunctionDeleter);
}

TEST_CASE("C++ functions called from C through TVMFFIFunctionCall", "[function]") {
  Function add = Function::FromTyped(Add, "add");
  TVMFFIObjectHandle handle = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(add);
  TVMFFIAny args[3] = {IntArg(20), IntArg(22), IntArg(0)};
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  REQUIRE(TVMFFIFunctionCall(handle, args, 2, &result) == 0);
  REQUIRE(result.type_index == kTVMFFIInt);
  REQUIRE(result.v_int64 == 42);

  args[1] = StrArg("oops");
  result.type_index = kTVMFFINone;
  REQUIRE(TVMFFIFunctionCall(handle, args, 2, &result) == -1);
  TVMFFIObjectHandle err_handle = nullptr;
  TVMFFIErrorMoveFromRaised(&err_handle);
  REQUIRE(err_handle != nullptr);
  Error err = detail::ObjectUnsafe::ObjectRefFromObjectPtr<Error>(
      detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<TVMFFIObject*>(err_handle)));
  REQUIRE(err.kind() == "TypeError");
  REQUIRE(err.message() ==
          "Mismatched type on argument #1 when calling: `add(0: int, 1: int) -> int`. "
          "Expected `int` but got `str`");

  // Exceptions other than Error: from C they become InternalError.
  Function throws_std = Function::FromTyped([]() -> int { throw std::runtime_error("std!"); });
  result.type_index = kTVMFFINone;
  REQUIRE(TVMFFIFunctionCall(detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(throws_std), args,
                             0, &result) == -1);
  Error internal = detail::MoveFromSafeCallRaised();
  REQUIRE(internal.kind() == "InternalError");
  REQUIRE(internal.message() == "std!");
  // ...while a direct C++ call of a function made here propagates them unchanged.
  REQUIRE_THROWS_AS(throws_std(), std::runtime_error);
}

namespace {
struct CContext {
  int calls = 0;
  int* deleted;
};
int CMultiply(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  CContext* ctx = static_cast<CContext*>(self);
  ++ctx->calls;
  if (num_args != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "CMultiply wants two ints");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = args[0].v_int64 * args[1].v_int64;
  return 0;
}
void CDelete(void* self) {
  CContext* ctx = static_cast<CContext*>(self);
  ++*ctx->deleted;
  delete ctx;
}
}  // namespace

TEST_CASE("C functions called from C++", "[function]") {
  int deleted = 0;
  {
    CContext* ctx = new CContext{0, &deleted};
    Function f = Function::FromExternC(ctx, CMultiply, CDelete);
    REQUIRE(f(6, 7).cast<int>() == 42);
    Error err = ExpectError([&] { f(1); });
    REQUIRE(err.kind() == "ValueError");
    REQUIRE(err.message() == "CMultiply wants two ints");
    REQUIRE(ctx->calls == 2);
    Function copy = f;
    f = nullptr;
    REQUIRE(deleted == 0);
  }
  REQUIRE(deleted == 1);
  // Exported-symbol style: call a safe-call function pointer directly.
  CContext ctx{0, &deleted};
  REQUIRE(Function::InvokeExternC(&ctx, CMultiply, 3, 5).cast<int>() == 15);
  REQUIRE_THROWS_AS(Function::InvokeExternC(&ctx, CMultiply, "x"), Error);
}

TEST_CASE("Closures live as long as the function", "[function]") {
  auto state = std::make_shared<int>(0);
  std::weak_ptr<int> watch = state;
  {
    Function counter = Function::FromTyped([state]() { return ++*state; });
    state.reset();
    REQUIRE(counter().cast<int>() == 1);
    REQUIRE(counter().cast<int>() == 2);
    REQUIRE_FALSE(watch.expired());
  }
  REQUIRE(watch.expired());
}

TEST_CASE("Global registry: set, get, list, override, remove", "[function]") {
  const char* name = "testing.core.sub";
  Function::RemoveGlobal(name);
  REQUIRE_FALSE(Function::GetGlobal(name).has_value());
  Function::SetGlobal(name, Function::FromTyped([](int a, int b) { return a - b; }));
  Optional<Function> found = Function::GetGlobal(std::string(name));
  REQUIRE(found.has_value());
  REQUIRE((*found)(10, 4).cast<int>() == 6);

  Error dup = ExpectError(
      [&] { Function::SetGlobal(name, Function::FromTyped([](int a, int b) { return a + b; })); });
  REQUIRE_THAT(dup.message(), ContainsSubstring(name));
  Function::SetGlobal(String(name), Function::FromTyped([](int a, int b) { return a + b; }), true);
  REQUIRE(Function::GetGlobalRequired(name)(10, 4).cast<int>() == 14);

  std::vector<String> names = Function::ListGlobalNames();
  REQUIRE(std::find(names.begin(), names.end(), String(name)) != names.end());
  REQUIRE(std::is_sorted(names.begin(), names.end()));

  Function::RemoveGlobal(name);
  REQUIRE_FALSE(Function::GetGlobal(name).has_value());
  Error missing = ExpectError([] { Function::GetGlobalRequired("testing.core.missing"); });
  REQUIRE(missing.kind() == "ValueError");
  REQUIRE(missing.message() == "Function `testing.core.missing` is not registered as a global");
}

TEST_CASE("Static registration with GlobalDef", "[function]") {
  Function mul = Function::GetGlobalRequired("testing.core.static_mul");
  REQUIRE(mul(6, 7).cast<int64_t>() == 42);
  REQUIRE(ExpectError([&] { mul(1); }).message() ==
          "Mismatched number of arguments when calling: "
          "`testing.core.static_mul(0: int, 1: int) -> int`. Expected 2 but got 1 arguments");
  Function count = Function::GetGlobalRequired(std::string("testing.core.static_count"));
  REQUIRE(count(1, "a", 2.0).cast<int>() == 3);
  // A packed global's metadata has the schema of a plain Function, as upstream.
  Function metadata = Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata");
  std::string count_meta = metadata("testing.core.static_count").cast<std::string>();
  REQUIRE(count_meta.find(R"("type_schema":"{\"type\":\"ffi.Function\"}")") != std::string::npos);
  // Registering the same name again is an error.
  REQUIRE_THROWS_AS(
      tvm::ffi::reflection::GlobalDef().def("testing.core.static_mul", [](int a) { return a; }),
      Error);
}

TEST_CASE("TypedFunction", "[function]") {
  TypedFunction<int(int, int)> add = [](int a, int b) { return a + b; };
  REQUIRE(add(2, 3) == 5);
  Function packed = add;
  REQUIRE(packed(4, 5).cast<int>() == 9);
  TypedFunction<String(String)> echo(Function::FromTyped([](String s) { return s + s; }));
  REQUIRE(echo("ab") == "abab");
  // As a parameter and through Any.
  Function apply =
      Function::FromTyped([](TypedFunction<int(int, int)> f, int x) { return f(x, x); });
  REQUIRE(apply(add, 21).cast<int>() == 42);
  Any as_any = add;
  TypedFunction<int(int, int)> back = as_any.cast<TypedFunction<int(int, int)>>();
  REQUIRE(back(1, 1) == 2);
  TypedFunction<void()> empty;
  REQUIRE(empty == nullptr);
  REQUIRE(ExpectError([&] { empty(); }).message() == "cannot call a null Function");
  // Its type schema spells the signature out, as upstream 0.1.15's: named
  // groups, the return type and the parameters.
  std::string want = R"({"type":"ffi.Function","named_args":{"return":[{"type":"None"}],)"
                     R"("params":[{"type":"int"},{"type":"float"},{"type":"ffi.Function"}]}})";
  REQUIRE(TypedFunction<void(int, double, Function)>::TypeSchema() == want);
  REQUIRE(TypeTraits<TypedFunction<void(int, double, Function)>>::TypeSchema() == want);
  REQUIRE(TypedFunction<Optional<int>()>::TypeSchema() ==
          R"({"type":"ffi.Function","named_args":{"return":[{"type":"Optional","args":)"
          R"([{"type":"int"}]}],"params":[]}})");
  // A typed function taking one: its metadata nests the schema.
  std::string schema = detail::MetadataJSON<void(TypedFunction<int(int)>)>::Build("f");
  REQUIRE(schema.find(R"({\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":)"
                      R"(\"int\"}],\"params\":[{\"type\":\"int\"}]}})") != std::string::npos);
}

TEST_CASE("Callbacks and nested errors keep their kind", "[function]") {
  Function call_twice =
      Function::FromTyped([](Function f, int x) { return f(f(x).cast<int>()).cast<int>(); });
  Function inc = Function::FromTyped([](int x) { return x + 1; });
  REQUIRE(call_twice(inc, 1).cast<int>() == 3);
  Function fails = Function::FromTyped([](int) -> int { TVM_FFI_THROW(IndexError) << "deep"; });
  Error err = ExpectError([&] { call_twice(fails, 1); });
  REQUIRE(err.kind() == "IndexError");
  REQUIRE(err.message() == "deep");
}

TEST_CASE("A function may be called from many threads", "[function]") {
  Function add = Function::FromTyped(Add);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) total += add(t, i).cast<int>();
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(total == 4 * 499500 + 1000 * (0 + 1 + 2 + 3));
}
