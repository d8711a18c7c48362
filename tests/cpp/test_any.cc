// Tests of tvm/ffi/any.h: the conversion matrix of Any/AnyView, ownership,
// as/cast/try_cast, hashing and equality.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>

#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using namespace tvm::ffi;

class ThingObj : public Object {
 public:
  int value = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.any.Thing", ThingObj, Object);
};
class Thing : public ObjectRef {
 public:
  explicit Thing(int v) : Thing(make_object<ThingObj>()) { get_mutable_obj()->value = v; }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Thing, ObjectRef, ThingObj);

 private:
  ThingObj* get_mutable_obj() { return static_cast<ThingObj*>(get_mutable()); }
};

// Outcome of one conversion: 'Y' as<T> and cast<T> work, 'C' only cast<T>
// (a conversion), 'N' cast<T> throws TypeError.
struct Outcome {
  char code;
  std::string message;
};

template <typename T, typename V>
Outcome Probe(const V& value) {
  bool strict = value.template as<T>().has_value();
  bool converts = value.template try_cast<T>().has_value();
  try {
    (void)value.template cast<T>();
  } catch (const Error& err) {
    REQUIRE(err.kind() == "TypeError");
    REQUIRE_FALSE(strict);
    REQUIRE_FALSE(converts);
    return Outcome{'N', err.message()};
  }
  REQUIRE(converts);
  return Outcome{strict ? 'Y' : 'C', ""};
}

struct Target {
  const char* name;  // as in error messages
  std::function<Outcome(const Any&)> probe_any;
  std::function<Outcome(const AnyView&)> probe_view;
};

template <typename T>
Target MakeTarget(const char* name) {
  return Target{name, [](const Any& v) { return Probe<T>(v); },
                [](const AnyView& v) { return Probe<T>(v); }};
}

std::vector<Target> Targets() {
  return {MakeTarget<std::nullptr_t>("None"),
          MakeTarget<bool>("bool"),
          MakeTarget<int64_t>("int"),
          MakeTarget<double>("float"),
          MakeTarget<void*>("void*"),
          MakeTarget<DLDataType>("DataType"),
          MakeTarget<DLDevice>("Device"),
          MakeTarget<String>("str"),
          MakeTarget<Bytes>("bytes"),
          MakeTarget<Function>("ffi.Function"),
          MakeTarget<ObjectRef>("ffi.Object"),
          MakeTarget<Optional<int64_t>>("Optional<int>"),
          MakeTarget<Optional<String>>("Optional<str>"),
          MakeTarget<Error>("ffi.Error")};
}

std::vector<std::string> SplitCells(const std::string& row) {
  std::vector<std::string> cells;
  std::istringstream is(row);
  std::string cell;
  while (is >> cell) cells.push_back(cell);
  return cells;
}

template <typename V>
void CheckRow(const char* source_type, const V& value, const std::string& expected_row) {
  std::vector<Target> targets = Targets();
  std::vector<std::string> expected = SplitCells(expected_row);
  REQUIRE(expected.size() == targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    Outcome got;
    if constexpr (std::is_same_v<V, Any>) {
      got = targets[i].probe_any(value);
    } else {
      got = targets[i].probe_view(value);
    }
    INFO("from `" << source_type << "` to `" << targets[i].name << "`");
    CHECK(std::string(1, got.code) == expected[i]);
    if (got.code == 'N') {
      CHECK(got.message == std::string("Cannot convert from type `") + source_type + "` to `" +
                               targets[i].name + "`");
    }
  }
}

}  // namespace

TEST_CASE("Conversion matrix of owned values (Any and its view)", "[any]") {
  Function func = Function::FromTyped([](int x) { return x; });
  struct Row {
    const char* source_type;
    Any value;
    const char* expected;
  };
  // clang-format off
  std::vector<Row> rows = {
    //                                                      None bool int float ptr dtype dev str bytes func obj opt_int opt_str error
    {"None",         Any(),                                  "Y    N    N   N     C   N     N   N   N     Y    Y   Y       Y       N"},
    {"bool",         Any(true),                              "N    Y    C   C     N   N     N   N   N     N    N   C       N       N"},
    {"int",          Any(42),                                "N    C    Y   C     N   N     N   N   N     N    N   Y       N       N"},
    {"float",        Any(2.5),                               "N    N    N   Y     N   N     N   N   N     N    N   N       N       N"},
    {"void*",        Any(reinterpret_cast<void*>(0x1234)),   "N    N    N   N     Y   N     N   N   N     N    N   N       N       N"},
    {"DataType",     Any(dl_float32),                        "N    N    N   N     N   Y     N   N   N     N    N   N       N       N"},
    {"Device",       Any(DLDevice{kDLCUDA, 1}),              "N    N    N   N     N   N     Y   N   N     N    N   N       N       N"},
    {"str",          Any(String("hi")),                      "N    N    N   N     N   N     N   Y   N     N    N   N       Y       N"},
    // A long string is a String object, so it is also an ObjectRef.
    {"str",          Any(String("a string longer than 7")),  "N    N    N   N     N   N     N   Y   N     N    Y   N       Y       N"},
    // A string that names a data type converts to DataType.
    {"str",          Any(String("float16")),                 "N    N    N   N     N   C     N   Y   N     N    N   N       Y       N"},
    {"bytes",        Any(Bytes("a\0b", 3)),                  "N    N    N   N     N   N     N   N   Y     N    N   N       N       N"},
    {"ffi.Function", Any(func),                              "N    N    N   N     N   N     N   N   N     Y    Y   N       N       N"},
    {"test.any.Thing", Any(Thing(3)),                        "N    N    N   N     N   N     N   N   N     N    Y   N       N       N"},
    {"ffi.Error",    Any(Error("ValueError", "boom")),       "N    N    N   N     N   N     N   N   N     N    Y   N       N       Y"},
  };
  // clang-format on
  for (const Row& row : rows) {
    CheckRow(row.source_type, row.value, row.expected);
    CheckRow(row.source_type, AnyView(row.value), row.expected);
  }
}

TEST_CASE("Conversion matrix of borrowed-only views", "[any]") {
  char text[] = "float32";
  TVMFFIByteArray bytes{"xyz", 3};
  DLTensor tensor{};
  // clang-format off
  //                                                            None bool int float ptr dtype dev str bytes func obj opt_int opt_str error
  CheckRow("str",       AnyView(static_cast<const char*>("hi")), "N    N    N   N     N   N     N   C   N     N    N   N       C       N");
  CheckRow("str",       AnyView(static_cast<const char*>(text)), "N    N    N   N     N   C     N   C   N     N    N   N       C       N");
  CheckRow("bytes",     AnyView(&bytes),                         "N    N    N   N     N   N     N   N   C     N    N   N       N       N");
  CheckRow("DLTensor*", AnyView(&tensor),                        "N    N    N   N     N   N     N   N   N     N    N   N       N       N");
  // clang-format on
}

TEST_CASE("Converted values are right", "[any]") {
  REQUIRE(Any(true).cast<int>() == 1);
  REQUIRE(Any(0).cast<bool>() == false);
  REQUIRE(Any(-7).cast<bool>() == true);
  REQUIRE(Any(3).cast<double>() == 3.0);
  REQUIRE(Any(2.75).cast<float>() == 2.75f);
  REQUIRE(Any(int64_t{1} << 40).cast<int64_t>() == (int64_t{1} << 40));
  REQUIRE(Any(uint8_t{200}).cast<int>() == 200);
  REQUIRE(Any().cast<void*>() == nullptr);
  DLDataType dt = Any(String("int8x4")).cast<DLDataType>();
  REQUIRE(dt == DLDataType{kDLInt, 8, 4});
  DLDevice dev = Any(DLDevice{kDLCUDA, 3}).cast<DLDevice>();
  REQUIRE(dev.device_type == kDLCUDA);
  REQUIRE(dev.device_id == 3);
  REQUIRE(Any(String("hello")).cast<std::string>() == "hello");
  REQUIRE(AnyView("raw").cast<String>() == "raw");
  REQUIRE(Any().cast<Optional<int>>() == std::nullopt);
  REQUIRE(Any(5).cast<Optional<int>>().value() == 5);
  REQUIRE(Any(5).cast<std::optional<double>>() == 5.0);
  enum class Color : int { kRed = 1, kBlue = 2 };
  REQUIRE(Any(Color::kBlue).cast<int>() == 2);
  REQUIRE(Any(2).cast<Color>() == Color::kBlue);
}

TEST_CASE("as<T> is exact; as<ObjT> gives a pointer", "[any]") {
  Any i = 42;
  REQUIRE(i.as<int>() == 42);
  REQUIRE_FALSE(i.as<double>().has_value());
  REQUIRE_FALSE(i.as<bool>().has_value());
  Thing thing(5);
  Any t = thing;
  const ThingObj* ptr = t.as<ThingObj>();
  REQUIRE(ptr == thing.get());
  REQUIRE(ptr->value == 5);
  REQUIRE(t.as<FunctionObj>() == nullptr);
  REQUIRE(i.as<ThingObj>() == nullptr);
  REQUIRE(AnyView(t).as<ThingObj>() == thing.get());
  REQUIRE(std::move(t).as<Thing>()->same_as(thing));
  REQUIRE(t == nullptr);  // moved out
}

TEST_CASE("Type index and type key", "[any]") {
  REQUIRE(Any().type_index() == kTVMFFINone);
  REQUIRE(Any(1).type_index() == kTVMFFIInt);
  REQUIRE(Any(true).type_index() == kTVMFFIBool);
  REQUIRE(Any(1.5).type_index() == kTVMFFIFloat);
  REQUIRE(Any(String("short")).type_index() == kTVMFFISmallStr);
  REQUIRE(Any(String("longer than seven")).type_index() == kTVMFFIStr);
  REQUIRE(Any(Bytes("b", 1)).type_index() == kTVMFFISmallBytes);
  REQUIRE(AnyView("raw").type_index() == kTVMFFIRawStr);
  REQUIRE(Any(1).GetTypeKey() == "int");
  REQUIRE(Any(String("longer than seven")).GetTypeKey() == "str");
  REQUIRE(Any(Thing(1)).GetTypeKey() == "test.any.Thing");
  REQUIRE(Any(Function::FromTyped([]() {})).GetTypeKey() == "ffi.Function");
}

TEST_CASE("Any owns objects; AnyView borrows", "[any]") {
  Thing thing(1);
  REQUIRE(thing.use_count() == 1);
  {
    AnyView view = thing;
    REQUIRE(thing.use_count() == 1);
    Any owned = view;
    REQUIRE(thing.use_count() == 2);
    Any copy = owned;
    REQUIRE(thing.use_count() == 3);
    Any moved = std::move(copy);
    REQUIRE(thing.use_count() == 3);
    REQUIRE(copy == nullptr);
    moved = 5;  // releases the object
    REQUIRE(thing.use_count() == 2);
    owned.reset();
    REQUIRE(thing.use_count() == 1);
    REQUIRE(owned.type_index() == kTVMFFINone);
  }
  REQUIRE(thing.use_count() == 1);
  Thing back = Any(thing).cast<Thing>();  // cast from an rvalue moves the reference out
  REQUIRE(thing.use_count() == 2);
}

TEST_CASE("Any from AnyView copies borrowed strings and bytes", "[any]") {
  Any small, large, bytes;
  {
    std::string buffer = "tiny";
    std::string long_buffer = "a borrowed string of some length";
    std::string raw_bytes("x\0y", 3);
    TVMFFIByteArray arr{raw_bytes.data(), raw_bytes.size()};
    small = AnyView(buffer.c_str());
    large = AnyView(long_buffer.c_str());
    bytes = AnyView(&arr);
    buffer.assign("XXXX");  // the copies do not alias the buffers
    long_buffer.assign(long_buffer.size(), 'X');
  }
  REQUIRE(small.type_index() == kTVMFFISmallStr);
  REQUIRE(small.cast<String>() == "tiny");
  REQUIRE(large.type_index() == kTVMFFIStr);
  REQUIRE(large.cast<String>() == "a borrowed string of some length");
  REQUIRE(bytes.type_index() == kTVMFFISmallBytes);
  Bytes b = bytes.cast<Bytes>();
  REQUIRE(b.size() == 3);
  REQUIRE(std::memcmp(b.data(), "x\0y", 3) == 0);
  // An Any made from a char pointer owns a String too.
  Any from_ptr = static_cast<const char*>("owned now");
  REQUIRE(from_ptr.type_index() == kTVMFFIStr);
}

TEST_CASE("A DLTensor* view cannot become an owned Any", "[any]") {
  DLTensor tensor{};
  AnyView view = &tensor;
  REQUIRE(view.cast<DLTensor*>() == &tensor);
  try {
    Any owned = view;
    FAIL("expected TypeError");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "TypeError");
  }
  // A typed function may return one (it compiles, as upstream, so its metadata
  // can be read), but its result cannot be held: the call raises RuntimeError.
  Function identity = Function::FromTyped([](DLTensor* t) { return t; });
  try {
    identity(&tensor);
    FAIL("expected RuntimeError");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "RuntimeError");
    REQUIRE(err.message().find("DLTensor*") != std::string::npos);
  }
}

TEST_CASE("An rvalue-reference view moves the object into the Any", "[any]") {
  Thing thing(8);
  TVMFFIObject* raw = detail::ObjectUnsafe::MoveObjectRefToTVMFFIObjectPtr(std::move(thing));
  TVMFFIAny view;
  view.type_index = kTVMFFIObjectRValueRef;
  view.zero_padding = 0;
  view.v_ptr = &raw;
  Any owned = AnyView::CopyFromTVMFFIAny(view);
  REQUIRE(raw == nullptr);  // taken over
  Thing back = owned.cast<Thing>();
  REQUIRE(back->value == 8);
  REQUIRE(back.use_count() == 2);
}

TEST_CASE("AnyHash and AnyEqual compare strings by content", "[any]") {
  AnyEqual eq;
  AnyHash hash;
  Any small1 = String("abc"), small2 = String("abc");
  Any heap1 = String("abcdefghijk"), heap2 = String(std::string("abcdefghij") + "k");
  REQUIRE(eq(small1, small2));
  REQUIRE(eq(heap1, heap2));
  REQUIRE(hash(heap1) == hash(heap2));
  REQUIRE_FALSE(eq(heap1, small1));
  REQUIRE_FALSE(eq(Any(String("ab")), Any(Bytes("ab", 2))));
  REQUIRE(eq(Any(1), Any(1)));
  REQUIRE_FALSE(eq(Any(1), Any(true)));
  Thing thing(1);
  REQUIRE(eq(Any(thing), Any(thing)));
  REQUIRE_FALSE(eq(Any(thing), Any(Thing(1))));
  std::unordered_map<Any, int, AnyHash, AnyEqual> map;
  map[String("key that is long")] = 1;
  map[String("k")] = 2;
  map[3] = 3;
  REQUIRE(map.at(String(std::string("key that") + " is long")) == 1);
  REQUIRE(map.at(String("k")) == 2);
  REQUIRE(map.at(3) == 3);
}

TEST_CASE("AnyHash is the standard stable hash (values of apache/tvm-ffi's AnyHash)", "[any]") {
  // A Map made here is searched by other binaries' inline code, which places
  // keys by this hash. The values were computed by upstream's headers.
  AnyHash hash;
  CHECK(hash(Any(String(""))) == 2654440008ULL);
  CHECK(hash(Any(String("abc"))) == 2660953131ULL);
  CHECK(hash(Any(String("abcdefg"))) == 4352227701ULL);
  CHECK(hash(Any(String("abcdefgh"))) == 3546921335ULL);
  CHECK(hash(Any(String("a longer key 1"))) == 2664718039ULL);
  CHECK(hash(Any(int64_t{0})) == 2654435832ULL);
  CHECK(hash(Any(int64_t{42})) == 2654435874ULL);
  CHECK(hash(Any(int64_t{-1})) == 2654435833ULL);
  // Every form of a string hashes alike: small, heap, and borrowed views.
  ObjectPtr<detail::StringObj> heap = make_object<detail::StringObj>();
  heap->data = "abc";
  heap->size = 3;
  CHECK(hash(Any(ObjectRef(ObjectPtr<Object>(std::move(heap))))) == 2660953131ULL);
  TVMFFIAny raw;
  raw.type_index = TypeIndex::kTVMFFIRawStr;
  raw.zero_padding = 0;
  raw.v_c_str = "abc";
  CHECK(detail::AnyCellHash(&raw) == 2660953131ULL);
}

// Two key types that compare by value through the `__any_hash__` /
// `__any_equal__` type attributes: one registers native hooks, the other
// Functions.
class PtrKeyObj : public Object {
 public:
  int64_t value = 0;
  explicit PtrKeyObj(int64_t v) : value(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.any.PtrKey", PtrKeyObj, Object);
};
class FuncKeyObj : public Object {
 public:
  int64_t value = 0;
  explicit FuncKeyObj(int64_t v) : value(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.any.FuncKey", FuncKeyObj, Object);
};

int64_t PtrKeyHash(const Any& key) {
  return key.as<PtrKeyObj>()->value * 7;
}
bool PtrKeyEqual(const Any& a, const Any& b) {
  return a.as<PtrKeyObj>()->value == b.as<PtrKeyObj>()->value;
}

void RegisterKeyHooks() {
  static const bool once = [] {
    namespace refl = tvm::ffi::reflection;
    refl::TypeAttrDef<PtrKeyObj>()
        .native_fn_attr<&PtrKeyHash>(tvm::ffi::type_attr::kAnyHash)
        .native_fn_attr<&PtrKeyEqual>(tvm::ffi::type_attr::kAnyEqual);
    refl::TypeAttrDef<FuncKeyObj>()
        .def(refl::type_attr::kAnyHash,
             [](const Any& key) -> int64_t { return key.as<FuncKeyObj>()->value + 100; })
        .def(refl::type_attr::kAnyEqual, [](const Any& a, const Any& b) -> bool {
          return a.as<FuncKeyObj>()->value == b.as<FuncKeyObj>()->value;
        });
    return true;
  }();
  (void)once;
}

TEST_CASE("AnyHash and AnyEqual call a type's __any_hash__ / __any_equal__", "[any]") {
  RegisterKeyHooks();
  AnyHash hash;
  AnyEqual eq;
  Any p1 = ObjectRef(make_object<PtrKeyObj>(3)), p2 = ObjectRef(make_object<PtrKeyObj>(3));
  Any p3 = ObjectRef(make_object<PtrKeyObj>(4));
  CHECK(hash(p1) == detail::StableHashCombine(p1.type_index(), uint64_t{21}));
  CHECK(hash(p1) == hash(p2));
  CHECK(eq(p1, p2));
  CHECK_FALSE(eq(p1, p3));
  Any f1 = ObjectRef(make_object<FuncKeyObj>(5)), f2 = ObjectRef(make_object<FuncKeyObj>(5));
  Any f3 = ObjectRef(make_object<FuncKeyObj>(6));
  CHECK(hash(f1) == detail::StableHashCombine(f1.type_index(), uint64_t{105}));
  CHECK(eq(f1, f2));
  CHECK_FALSE(eq(f1, f3));
  // Objects of other types still compare by identity.
  CHECK_FALSE(eq(Any(Thing(1)), Any(Thing(1))));
  // A Map places and finds keys by the hooks: an equal key is the same entry.
  Map<Any, int64_t> map;
  map.Set(p1, 1);
  map.Set(p2, 2);
  map.Set(f1, 3);
  CHECK(map.size() == 2);
  CHECK(map.at(p3.same_as(p1) ? p1 : p2) == 2);
  CHECK(map.at(f2) == 3);
  CHECK(map.count(f3) == 0);
}

class BadHookKeyObj : public Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.any.BadHookKey", BadHookKeyObj, Object);
};

TEST_CASE("A hash or equal hook that returns neither int nor bool is a TypeError", "[any]") {
  static const bool once = [] {
    tvm::ffi::reflection::TypeAttrDef<BadHookKeyObj>()
        .def(tvm::ffi::reflection::type_attr::kAnyHash, [](const Any&) { return String("h"); })
        .def(tvm::ffi::reflection::type_attr::kAnyEqual,
             [](const Any&, const Any&) { return 1.5; });
    return true;
  }();
  (void)once;
  Any k1 = ObjectRef(make_object<BadHookKeyObj>()), k2 = ObjectRef(make_object<BadHookKeyObj>());
  try {
    AnyHash()(k1);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
    CHECK(std::string(e.message()) == "The __any_hash__ hook must return int, but returned `" +
                                          Any(String("h")).GetTypeKey() + "`");
  }
  try {
    AnyEqual()(k1, k2);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
    CHECK(std::string(e.message()) ==
          "The __any_equal__ hook must return bool, but returned `float`");
  }
}

TEST_CASE("same_as compares identity and bits", "[any]") {
  Thing a(1);
  Any x = a, y = a;
  REQUIRE(x.same_as(y));
  REQUIRE(x.same_as(a));
  REQUIRE_FALSE(x.same_as(Thing(1)));
  REQUIRE(Any(3).same_as(Any(3)));
  REQUIRE_FALSE(Any(3).same_as(Any(3.0)));
  REQUIRE(Any().same_as(ObjectRef()));
}
