// Tests of tvm/ffi/optional.h: the three storage forms, accessors, and None
// in Any and typed-function arguments.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>

#include <catch2/catch_test_macros.hpp>

#include <optional>
#include <stdexcept>
#include <type_traits>

namespace {
using namespace tvm::ffi;

class LeafObj : public Object {
 public:
  explicit LeafObj(int v) : value(v) {}
  int value;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.optional.Leaf", LeafObj, Object);
};
class Leaf : public ObjectRef {
 public:
  explicit Leaf(int v) : Leaf(make_object<LeafObj>(v)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Leaf, ObjectRef, LeafObj);
};
}  // namespace

TEST_CASE("Optional of an object reference is a nullable reference", "[optional]") {
  static_assert(sizeof(Optional<Leaf>) == sizeof(ObjectRef));
  static_assert(sizeof(Optional<Function>) == sizeof(ObjectRef));
  Optional<Leaf> empty;
  REQUIRE_FALSE(empty.has_value());
  REQUIRE_FALSE(empty);
  REQUIRE(empty == std::nullopt);
  REQUIRE(empty == nullptr);
  Optional<Leaf> full = Leaf(3);
  REQUIRE(full.has_value());
  REQUIRE(full.value()->value == 3);
  REQUIRE((*full)->value == 3);
  REQUIRE(full->value == 3);
  REQUIRE(full != std::nullopt);
  Leaf fallback(9);
  REQUIRE(empty.value_or(fallback).same_as(fallback));
  REQUIRE(full.value_or(fallback)->value == 3);
  full = std::nullopt;
  REQUIRE_FALSE(full.has_value());
  Optional<Leaf> from_std = std::optional<Leaf>(Leaf(4));
  REQUIRE(from_std.value()->value == 4);
  Optional<ObjectRef> base = Leaf(5);  // from a subtype
  REQUIRE(base.value().as<LeafObj>()->value == 5);
  // Converts to std::optional (code written for upstream's GetGlobal keeps compiling).
  std::optional<Leaf> as_std = Optional<Leaf>(Leaf(6));
  REQUIRE(as_std.value()->value == 6);
  std::optional<Leaf> none_std = Optional<Leaf>();
  REQUIRE_FALSE(none_std.has_value());
  std::optional<Function> missing = Function::GetGlobal("testing.optional.no_such_function");
  REQUIRE_FALSE(missing.has_value());
  std::optional<String> str_std = Optional<String>("s");
  REQUIRE(str_std.value() == "s");
  std::optional<int> int_std = Optional<int>(2);
  REQUIRE(int_std.value() == 2);
}

TEST_CASE("Optional<String> keeps the empty state in its Any cell", "[optional]") {
  static_assert(sizeof(Optional<String>) == sizeof(Any));
  static_assert(sizeof(Optional<Bytes>) == sizeof(Any));
  Optional<String> empty;
  REQUIRE_FALSE(empty.has_value());
  REQUIRE(empty == std::nullopt);
  Optional<String> small = String("");  // an empty string is a value, not None
  REQUIRE(small.has_value());
  REQUIRE(small.value().empty());
  Optional<String> large = "a string that is long enough";
  REQUIRE(large == String("a string that is long enough"));
  REQUIRE(large != small);
  REQUIRE(empty != small);
  REQUIRE(empty == Optional<String>());
  REQUIRE(empty.value_or("dflt") == "dflt");
  large = std::nullopt;
  REQUIRE_FALSE(large.has_value());
  Optional<Bytes> bytes = Bytes("\0x", 2);
  REQUIRE(bytes.value().size() == 2);
}

TEST_CASE("Optional of plain values", "[optional]") {
  Optional<int> empty;
  Optional<int> five = 5;
  REQUIRE_FALSE(empty.has_value());
  REQUIRE(*five == 5);
  REQUIRE(five == 5);
  REQUIRE(five != 6);
  REQUIRE(empty != 5);
  REQUIRE(empty.value_or(7) == 7);
  REQUIRE(five.value_or(7) == 5);
  five = std::nullopt;
  REQUIRE(five == empty);
  Optional<double> from_std = std::optional<double>(1.5);
  REQUIRE(from_std.value() == 1.5);
  // Both ways with std::optional, and from a std::optional of a type that converts.
  std::optional<double> to_std = from_std;
  REQUIRE(to_std == 1.5);
  std::optional<double> empty_std = Optional<double>();
  REQUIRE_FALSE(empty_std.has_value());
  Optional<double> widened(std::optional<int>(3));
  REQUIRE(widened.value() == 3.0);
  REQUIRE_FALSE(Optional<double>(std::optional<int>()).has_value());
}

// The layouts upstream's headers have: object references and pointers are one
// pointer, values an Any can hold one Any cell (whatever their size), and only
// views keep a std::optional.
static_assert(sizeof(Optional<int8_t>) == sizeof(Any) && alignof(Optional<int8_t>) == alignof(Any));
static_assert(sizeof(Optional<int>) == sizeof(Any));
static_assert(sizeof(Optional<bool>) == sizeof(Any));
static_assert(sizeof(Optional<DLDevice>) == sizeof(Any));
static_assert(sizeof(Optional<Optional<int>>) == sizeof(Any));
static_assert(sizeof(Optional<Optional<Leaf>>) == sizeof(Any));
static_assert(sizeof(Optional<Leaf>) == sizeof(ObjectPtr<Object>));
static_assert(TypeTraits<Optional<int>>::storage_enabled);
static_assert(TypeTraits<Optional<Optional<int>>>::storage_enabled);
static_assert(!TypeTraits<Optional<TensorView>>::storage_enabled);
static_assert(sizeof(Optional<TensorView>) == sizeof(std::optional<TensorView>));

TEST_CASE("Optional of a plain value is one Any cell", "[optional]") {
  Optional<int8_t> small = int8_t{-3};
  REQUIRE(small.value() == -3);
  // It lends its cell to an AnyView and moves it into an Any.
  AnyView view = small;
  REQUIRE(view.type_index() == TypeIndex::kTVMFFIInt);
  REQUIRE(view.cast<int>() == -3);
  Optional<String> text = String("a string longer than seven bytes");
  AnyView text_view = text;
  REQUIRE(text_view.type_index() == TypeIndex::kTVMFFIStr);
  REQUIRE(text_view.cast<std::string>() == "a string longer than seven bytes");
  Any moved = std::move(text);
  REQUIRE_FALSE(text.has_value());  // NOLINT(bugprone-use-after-move)
  REQUIRE(moved.cast<String>() == "a string longer than seven bytes");
  // value() of an rvalue moves the value out.
  Optional<String> other = String("another string, long enough");
  String out = std::move(other).value();
  REQUIRE(out == "another string, long enough");
  REQUIRE_FALSE(other.has_value());  // NOLINT(bugprone-use-after-move)
  // Nested: an engaged outer Optional holding an empty inner one is empty, as
  // the two states are both None in an Any.
  Optional<Optional<int>> nested = Optional<int>(std::nullopt);
  REQUIRE_FALSE(nested.has_value());
  nested = Optional<int>(7);
  REQUIRE(nested.value().value() == 7);
  REQUIRE(Any(nested).cast<Optional<Optional<int>>>().value().value() == 7);
  Optional<Optional<Leaf>> nested_ref = Optional<Leaf>(Leaf(4));
  REQUIRE(nested_ref.value().value()->value == 4);
  REQUIRE(nested_ref.same_as(nested_ref));
}

TEST_CASE("Accessing an empty Optional throws", "[optional]") {
  try {
    Optional<int>().value();
    FAIL("expected an error");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "RuntimeError");
    REQUIRE(err.message() == "value() called on an empty Optional");
  }
  REQUIRE_THROWS_AS(Optional<String>().value(), Error);
  REQUIRE_THROWS_AS(Optional<Leaf>().value(), Error);
}

TEST_CASE("Optional in Any: empty is None", "[optional]") {
  Any none = Optional<Leaf>();
  REQUIRE(none.type_index() == kTVMFFINone);
  Any leaf = Optional<Leaf>(Leaf(2));
  REQUIRE(leaf.cast<Leaf>()->value == 2);
  Any str = Optional<String>("x");
  REQUIRE(str.cast<String>() == "x");
  REQUIRE(Any(Optional<int>()).type_index() == kTVMFFINone);
  REQUIRE(Any(Optional<int>(3)).cast<int>() == 3);
  REQUIRE(none.cast<Optional<Leaf>>() == std::nullopt);
  REQUIRE(leaf.cast<Optional<Leaf>>().value()->value == 2);
  REQUIRE(none.cast<Optional<String>>() == std::nullopt);
  REQUIRE(Any(1).cast<Optional<double>>().value() == 1.0);
  REQUIRE_FALSE(Any(1).try_cast<Optional<Leaf>>().has_value());
  REQUIRE_FALSE(none.try_cast<Leaf>().has_value());  // a Leaf is never null
  REQUIRE(none.try_cast<std::optional<Leaf>>().value() == std::nullopt);
}

TEST_CASE("Typed functions take Optional and std::optional arguments", "[optional]") {
  Function f = Function::FromTyped([](Optional<Leaf> a, std::optional<int> b, Optional<String> c) {
    int total = a.has_value() ? a.value()->value : 0;
    total += b.value_or(0);
    total += c.has_value() ? static_cast<int>(c.value().size()) : 0;
    return total;
  });
  REQUIRE(f(nullptr, nullptr, nullptr).cast<int>() == 0);
  REQUIRE(f(Leaf(100), 20, "abc").cast<int>() == 123);
  REQUIRE(f(Optional<Leaf>(), std::optional<int>(), Optional<String>()).cast<int>() == 0);
  REQUIRE_THROWS_AS(f(1, 2, 3), Error);
}

TEST_CASE("Optional<String> / Optional<Bytes> assign from C strings and std::string",
          "[optional]") {
  Optional<String> s;
  s = "hello";  // one exact overload, not two competing conversions
  REQUIRE(s.has_value());
  REQUIRE(s.value() == "hello");
  s = std::string("a longer string than the small form holds");
  REQUIRE(s.value() == "a longer string than the small form holds");
  Optional<Bytes> b;
  b = std::string("bytes");
  REQUIRE(b.has_value());
  REQUIRE(b.value().operator std::string() == "bytes");
  b = std::nullopt;
  REQUIRE_FALSE(b.has_value());
}

namespace {
class PtrBaseObj : public Object {
 public:
  explicit PtrBaseObj(int v) : value(v) {}
  int value;
  TVM_FFI_DECLARE_OBJECT_INFO("test.optional.PtrBase", PtrBaseObj, Object);
};
class PtrDerivedObj : public PtrBaseObj {
 public:
  explicit PtrDerivedObj(int v) : PtrBaseObj(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.optional.PtrDerived", PtrDerivedObj, PtrBaseObj);
};
}  // namespace

TEST_CASE("Optional of ObjectPtr / Arc is one pointer, empty when null", "[optional]") {
  using BasePtr = ObjectPtr<PtrBaseObj>;
  using BaseArc = Arc<PtrBaseObj>;
  static_assert(sizeof(Optional<BasePtr>) == sizeof(BasePtr));
  static_assert(sizeof(Optional<BaseArc>) == sizeof(BasePtr));
  Arc<PtrDerivedObj> derived = make_arc<PtrDerivedObj>(4);

  Optional<BasePtr> ptr = BasePtr(derived);
  REQUIRE(ptr.has_value());
  REQUIRE(ptr.get() == derived.get());
  REQUIRE(ptr->value == 4);
  REQUIRE(derived.use_count() == 2);
  Optional<BasePtr> back = Any(ptr).cast<Optional<BasePtr>>();
  REQUIRE(back.get() == derived.get());
  BasePtr moved = std::move(back).value();
  REQUIRE(moved.get() == derived.get());
  REQUIRE_FALSE(back.has_value());  // NOLINT(bugprone-use-after-move): moved out, as upstream
  REQUIRE_FALSE(Optional<BasePtr>(BasePtr(nullptr)).has_value());  // a null pointer is empty

  Optional<BaseArc> arc = derived;  // a derived Arc converts
  REQUIRE(arc.value().get() == derived.get());
  Optional<BaseArc> none = Any().cast<Optional<BaseArc>>();
  REQUIRE_FALSE(none.has_value());
  REQUIRE(none == std::nullopt);
  try {
    (void)none.value();
    FAIL("expected an error");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "RuntimeError");
  }
  REQUIRE(TypeTraits<Optional<BaseArc>>::TypeSchema() ==
          R"({"type":"Optional","args":[{"type":"test.optional.PtrBase"}]})");
  // A nullable ObjectPtr is already an Optional: wrapping it nests, as upstream.
  REQUIRE(
      TypeTraits<Optional<ObjectPtr<PtrBaseObj>>>::TypeSchema() ==
      R"({"type":"Optional","args":[{"type":"Optional","args":[{"type":"test.optional.PtrBase"}]}]})");
  moved.reset();
  ptr = std::nullopt;
  arc = std::nullopt;
  REQUIRE(derived.use_count() == 1);
}

TEST_CASE("Optional<T>::value_type and as_or_throw<U>() (0.1.15)", "[optional]") {
  static_assert(std::is_same_v<Optional<int>::value_type, int>);
  static_assert(std::is_same_v<Optional<String>::value_type, String>);
  static_assert(std::is_same_v<Optional<Leaf>::value_type, Leaf>);
  static_assert(std::is_same_v<Optional<ObjectPtr<LeafObj>>::value_type, ObjectPtr<LeafObj>>);

  // Strict: the value as stored, no conversion (an int is not a double).
  Optional<double> d = 1.5;
  REQUIRE(d.as_or_throw<double>() == 1.5);
  Optional<int64_t> i = 3;
  REQUIRE_THROWS_AS(i.as_or_throw<double>(), Error);
  REQUIRE(i.as_or_throw<int64_t>() == 3);
  // Empty: None, which only a nullable U takes.
  Optional<int64_t> none;
  REQUIRE_THROWS_AS(none.as_or_throw<int64_t>(), Error);
  REQUIRE(!none.as_or_throw<Optional<int64_t>>().has_value());

  // On an rvalue: success empties the Optional; failure leaves it as it was.
  Optional<String> s = "hello";
  REQUIRE_THROWS_AS(std::move(s).as_or_throw<Bytes>(), Error);
  REQUIRE(s.value() == "hello");  // NOLINT(bugprone-use-after-move)
  REQUIRE(std::move(s).as_or_throw<String>() == "hello");
  REQUIRE(!s.has_value());  // NOLINT(bugprone-use-after-move)

  // Object references and pointers: by the object's type; a move keeps one reference.
  Leaf leaf(4);
  Optional<Leaf> ref = leaf;
  REQUIRE(ref.as_or_throw<Leaf>()->value == 4);
  REQUIRE_THROWS_AS(ref.as_or_throw<String>(), Error);
  Optional<ObjectPtr<LeafObj>> ptr = make_object<LeafObj>(5);
  ObjectPtr<LeafObj> raw = ptr.value();
  int before = raw.use_count();
  ObjectPtr<LeafObj> moved = std::move(ptr).as_or_throw<ObjectPtr<LeafObj>>();
  REQUIRE(moved == raw);
  REQUIRE(!ptr.has_value());  // NOLINT(bugprone-use-after-move)
  REQUIRE(raw.use_count() == before);
}
