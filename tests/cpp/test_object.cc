// Tests of tvm/ffi/object.h and memory.h: reference counting, weak
// references, deleter flags, type registration and checks, references.
#include <tvm/ffi/any.h>
#include <tvm/ffi/cast.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

#include <catch2/catch_test_macros.hpp>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <unordered_set>
#include <vector>

namespace {

using namespace tvm::ffi;

std::atomic<int> g_live_objects{0};

class CounterObj : public Object {
 public:
  explicit CounterObj(int v) : value(v) { ++g_live_objects; }
  ~CounterObj() { --g_live_objects; }
  int value;
  TVM_FFI_DECLARE_OBJECT_INFO("test.object.Counter", CounterObj, Object);
};

class CounterChildObj : public CounterObj {
 public:
  explicit CounterChildObj(int v) : CounterObj(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.object.CounterChild", CounterChildObj, CounterObj);
};

class OtherObj : public Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.object.Other", OtherObj, Object);
};

class Counter : public ObjectRef {
 public:
  explicit Counter(int v) : Counter(make_object<CounterObj>(v)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Counter, ObjectRef, CounterObj);
};

class OtherRefForAs : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(OtherRefForAs, ObjectRef, OtherObj);
};

class CounterChild : public Counter {
 public:
  explicit CounterChild(int v) : CounterChild(make_object<CounterChildObj>(v)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(CounterChild, Counter, CounterChildObj);
};

// An object with a vtable: Object is not at offset 0 of the class.
class VirtualObj : public Object {
 public:
  virtual ~VirtualObj() { ++destroyed; }
  virtual int Get() const { return 7; }
  static inline int destroyed = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.object.Virtual", VirtualObj, Object);
};

struct IntBufferObj : public Object {
  size_t n = 0;
  int64_t* data() { return reinterpret_cast<int64_t*>(this + 1); }
};

uint64_t RawCount(const Object* obj) {
  return __atomic_load_n(&detail::ObjectUnsafe::GetHeader(obj)->combined_ref_count,
                         __ATOMIC_RELAXED);
}

// A hand-made object (as another binary would make one) that logs its deleter calls.
struct LoggedObject {
  TVMFFIObject header;
  std::vector<int>* log;
};
void LoggedDeleter(void* self, int flags) {
  LoggedObject* obj = static_cast<LoggedObject*>(self);
  obj->log->push_back(flags);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) std::free(obj);
}
TVMFFIObject* NewLoggedObject(std::vector<int>* log) {
  LoggedObject* obj = static_cast<LoggedObject*>(std::malloc(sizeof(LoggedObject)));
  obj->header.combined_ref_count = detail::kCombinedRefCountBothOne;
  obj->header.type_index = TypeIndex::kTVMFFIObject;
  obj->header.__padding = 0;
  obj->header.deleter = LoggedDeleter;
  obj->log = log;
  return &obj->header;
}

}  // namespace

TEST_CASE("make_object: counts, copies, moves and destruction", "[object]") {
  REQUIRE(g_live_objects == 0);
  {
    ObjectPtr<CounterObj> p = make_object<CounterObj>(5);
    REQUIRE(g_live_objects == 1);
    REQUIRE(p.use_count() == 1);
    REQUIRE(p.unique());
    // Both counts start at one: the strong references share one weak one.
    REQUIRE(RawCount(p.get()) == detail::kCombinedRefCountBothOne);
    ObjectPtr<CounterObj> q = p;
    REQUIRE(p.use_count() == 2);
    ObjectPtr<Object> base = q;
    REQUIRE(p.use_count() == 3);
    ObjectPtr<CounterObj> moved = std::move(q);
    REQUIRE(q == nullptr);
    REQUIRE(p.use_count() == 3);
    base.reset();
    moved.reset();
    REQUIRE(p.use_count() == 1);
    REQUIRE(p->value == 5);
    REQUIRE((*p).value == 5);
    REQUIRE(p->type_index() == CounterObj::RuntimeTypeIndex());
  }
  REQUIRE(g_live_objects == 0);
}

TEST_CASE("Deleter flags: 3 when no weak reference is left, else 1 then 2", "[object]") {
  std::vector<int> log;
  {
    ObjectPtr<Object> p = detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(NewLoggedObject(&log));
    ObjectPtr<Object> q = p;
    p.reset();
    REQUIRE(log.empty());
  }
  REQUIRE(log == std::vector<int>{3});

  log.clear();
  {
    ObjectPtr<Object> p = detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(NewLoggedObject(&log));
    WeakObjectPtr<Object> w = p;
    REQUIRE(w.use_count() == 1);
    REQUIRE(w.lock() == p);
    p.reset();
    // Destroyed (flag 1) but the memory stays for the weak reference.
    REQUIRE(log == std::vector<int>{1});
    REQUIRE(w.expired());
    REQUIRE(w.lock() == nullptr);
    w.reset();
    REQUIRE(log == std::vector<int>{1, 2});
  }
}

TEST_CASE("The runtime's TVMFFIObjectDecRef agrees with the inline protocol", "[object]") {
  std::vector<int> log;
  TVMFFIObject* obj = NewLoggedObject(&log);
  ObjectPtr<Object> strong = detail::ObjectUnsafe::ObjectPtrFromUnowned<Object>(obj);  // 2 strong
  WeakObjectPtr<Object> weak = strong;
  REQUIRE(TVMFFIObjectDecRef(obj) == 0);  // drop the creation reference through the C API
  REQUIRE(strong.use_count() == 1);
  REQUIRE(TVMFFIObjectIncRef(obj) == 0);
  REQUIRE(strong.use_count() == 2);
  strong.reset();
  REQUIRE(log.empty());
  REQUIRE(TVMFFIObjectDecRef(obj) == 0);  // last strong: destroy
  REQUIRE(log == std::vector<int>{1});
  weak.reset();  // last weak: free, inline
  REQUIRE(log == std::vector<int>{1, 2});
}

TEST_CASE("WeakObjectPtr keeps memory, not the value, of a made object", "[object]") {
  WeakObjectPtr<CounterObj> weak;
  {
    ObjectPtr<CounterObj> p = make_object<CounterObj>(1);
    weak = p;
    ObjectPtr<CounterObj> locked = weak.lock();
    REQUIRE(locked.get() == p.get());
    REQUIRE(p.use_count() == 2);
  }
  REQUIRE(g_live_objects == 0);  // destructor already ran
  REQUIRE(weak.expired());
  REQUIRE(weak.lock() == nullptr);
}

TEST_CASE("Concurrent copies and weak locks destroy exactly once", "[object]") {
  for (int round = 0; round < 20; ++round) {
    ObjectPtr<CounterObj> p = make_object<CounterObj>(round);
    WeakObjectPtr<CounterObj> weak = p;
    std::vector<std::thread> threads;
    std::atomic<int> locked_ok{0};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([p, weak, &locked_ok]() mutable {
        for (int i = 0; i < 1000; ++i) {
          ObjectPtr<CounterObj> copy = p;
          if (weak.lock() != nullptr) ++locked_ok;
        }
        p.reset();
      });
    }
    p.reset();
    for (auto& th : threads) th.join();
    REQUIRE(locked_ok == 4000);  // each thread held a strong reference meanwhile
    REQUIRE(weak.expired());
    REQUIRE(g_live_objects == 0);
  }
}

TEST_CASE("Dynamic type registration and IsInstance", "[object]") {
  int32_t counter_index = CounterObj::RuntimeTypeIndex();
  int32_t child_index = CounterChildObj::RuntimeTypeIndex();
  REQUIRE(counter_index >= TypeIndex::kTVMFFIDynObjectBegin);
  REQUIRE(child_index > counter_index);
  REQUIRE(CounterObj::RuntimeTypeIndex() == counter_index);  // cached
  REQUIRE(CounterObj::_type_index == counter_index);         // eager copy agrees
  REQUIRE(TypeKeyToIndex("test.object.Counter") == counter_index);
  REQUIRE(CounterChildObj::_type_depth == 2);

  const TypeInfo* info = TVMFFIGetTypeInfo(child_index);
  REQUIRE(info != nullptr);
  REQUIRE(info->type_depth == 2);
  REQUIRE(info->type_ancestors[1]->type_index == counter_index);
  REQUIRE(info->type_ancestors[0]->type_index == TypeIndex::kTVMFFIObject);

  ObjectPtr<CounterChildObj> child = make_object<CounterChildObj>(3);
  ObjectPtr<OtherObj> other = make_object<OtherObj>();
  REQUIRE(child->IsInstance<Object>());
  REQUIRE(child->IsInstance<CounterObj>());  // walks the ancestors
  REQUIRE(child->IsInstance<CounterChildObj>());
  REQUIRE_FALSE(child->IsInstance<OtherObj>());
  REQUIRE_FALSE(other->IsInstance<CounterObj>());
  REQUIRE(child->GetTypeKey() == "test.object.CounterChild");
  REQUIRE(Object::TypeIndex2Key(counter_index) == "test.object.Counter");
}

TEST_CASE("ObjectRef: as, GetRef, Downcast, nullability, hashing", "[object]") {
  CounterChild child(9);
  Counter base = child;
  REQUIRE(base.defined());
  REQUIRE(base.same_as(child));
  REQUIRE(base == child);
  REQUIRE(base.use_count() == 2);
  REQUIRE(base->value == 9);

  REQUIRE(base.as<CounterChildObj>() == child.get());
  REQUIRE(base.as<OtherObj>() == nullptr);
  std::optional<CounterChild> down = base.as<CounterChild>();
  REQUIRE(down.has_value());
  REQUIRE(down->same_as(child));

  Counter plain(4);
  REQUIRE_FALSE(plain.as<CounterChild>().has_value());
  // A null nullable ref converts to a null ref; not to a non-nullable one.
  Counter null_counter;
  REQUIRE_FALSE(null_counter.defined());
  REQUIRE(null_counter.type_index() == TypeIndex::kTVMFFINone);
  REQUIRE(null_counter.GetTypeKey() == "None");
  REQUIRE(null_counter.as<Counter>().has_value());
  REQUIRE_FALSE(null_counter.as<CounterChild>().has_value());
  // as<Ref>() of an rvalue moves the reference out when it matches, else keeps it.
  ObjectRef movable = CounterChild(9);
  REQUIRE_FALSE(std::move(movable).as<OtherRefForAs>().has_value());
  REQUIRE(movable.defined());  // NOLINT(bugprone-use-after-move)
  std::optional<Counter> taken = std::move(movable).as<Counter>();
  REQUIRE(taken.has_value());
  REQUIRE(taken->use_count() == 1);
  REQUIRE_FALSE(movable.defined());  // NOLINT(bugprone-use-after-move)

  CounterChild again = GetRef<CounterChild>(child.get());
  REQUIRE(again.same_as(child));
  REQUIRE(child.use_count() == 4);  // child, base, down, again
  ObjectPtr<CounterObj> ptr = GetObjectPtr<CounterObj>(child.get());
  REQUIRE(ptr.get() == child.get());

  CounterChild cast = Downcast<CounterChild>(base);
  REQUIRE(cast.same_as(child));
  try {
    Downcast<CounterChild>(plain);
    FAIL("Downcast should throw");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "TypeError");
    REQUIRE(err.message() ==
            "Downcast from `test.object.Counter` to `test.object.CounterChild` failed");
  }
  REQUIRE_THROWS_AS(Downcast<CounterChild>(null_counter), Error);
  REQUIRE_FALSE(Downcast<Counter>(ObjectRef()).defined());

  std::unordered_set<ObjectRef, ObjectPtrHash, ObjectPtrEqual> set{base, child, plain};
  REQUIRE(set.size() == 2);
}

TEST_CASE("Objects with a vtable are handled through their Object base", "[object]") {
  VirtualObj::destroyed = 0;
  {
    ObjectPtr<VirtualObj> p = make_object<VirtualObj>();
    Any any = ObjectRef(p);
    const VirtualObj* back = any.as<VirtualObj>();
    REQUIRE(back == p.get());
    REQUIRE(back->Get() == 7);
    REQUIRE(reinterpret_cast<const void*>(detail::ObjectUnsafe::GetHeader(p.get())) !=
            reinterpret_cast<const void*>(p.get()));
  }
  REQUIRE(VirtualObj::destroyed == 1);
}

TEST_CASE("make_inplace_array_object leaves room after the object", "[object]") {
  ObjectPtr<IntBufferObj> arr = make_inplace_array_object<IntBufferObj, int64_t>(100);
  arr->n = 100;
  for (size_t i = 0; i < arr->n; ++i) arr->data()[i] = static_cast<int64_t>(i * i);
  int64_t sum = 0;
  for (size_t i = 0; i < arr->n; ++i) sum += arr->data()[i];
  REQUIRE(sum == 328350);
}

TEST_CASE("ABI layout of objects", "[object]") {
  REQUIRE(sizeof(Object) == 24);
  Function f = Function::FromTyped([](int x) { return x; });
  const FunctionObj* obj = f.get();
  const char* base = reinterpret_cast<const char*>(detail::ObjectUnsafe::GetHeader(obj));
  const char* cell = reinterpret_cast<const char*>(static_cast<const TVMFFIFunctionCell*>(obj));
  REQUIRE(cell - base == 24);
  REQUIRE(TVMFFIFunctionGetCellPtr(detail::ObjectUnsafe::GetHeader(obj))->safe_call ==
          obj->safe_call);
  // Functions made here publish no throwing cpp_call: C++ exceptions never
  // cross into code built against other headers, which must use safe_call.
  REQUIRE(obj->cpp_call == nullptr);
  // They are recognised by a magic in the header padding plus the owner tag.
  REQUIRE(detail::ObjectUnsafe::GetHeader(obj)->__padding == detail::kCppFunctionMagic);
  TVMFFIObjectHandle c_func = nullptr;
  REQUIRE(TVMFFIFunctionCreate(
              nullptr, [](void*, const TVMFFIAny*, int32_t, TVMFFIAny*) { return 0; }, nullptr,
              &c_func) == 0);
  REQUIRE(static_cast<TVMFFIObject*>(c_func)->__padding == 0);
  REQUIRE(TVMFFIObjectDecRef(c_func) == 0);
}

namespace {
// A C function that returns its first argument (a new reference) and keeps
// one more reference in a global until released.
TVMFFIObject* g_kept = nullptr;
int EchoAndKeep(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (num_args != 1 || args[0].type_index < kTVMFFIStaticObjectBegin) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "EchoAndKeep wants one object");
    return -1;
  }
  TVMFFIObjectIncRef(args[0].v_obj);
  *result = args[0];
  TVMFFIObjectIncRef(args[0].v_obj);
  g_kept = args[0].v_obj;
  return 0;
}
}  // namespace

TEST_CASE("A C++ object crosses the C ABI and comes back", "[object]") {
  TVMFFIObjectHandle cfunc = nullptr;
  REQUIRE(TVMFFIFunctionCreate(nullptr, EchoAndKeep, nullptr, &cfunc) == 0);
  Function echo(
      detail::ObjectUnsafe::ObjectPtrFromOwned<FunctionObj>(static_cast<TVMFFIObject*>(cfunc)));
  {
    Counter obj(11);
    // Through TVMFFIFunctionCall with a raw argument array.
    TVMFFIAny arg;
    TypeTraits<Counter>::CopyToAnyView(obj, &arg);
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    REQUIRE(TVMFFIFunctionCall(cfunc, &arg, 1, &result) == 0);
    REQUIRE(result.v_obj == detail::ObjectUnsafe::GetHeader(obj.get()));
    REQUIRE(obj.use_count() == 3);  // obj, result, g_kept
    Any owned = detail::AnyUnsafe::MoveTVMFFIAnyToAny(&result);
    REQUIRE(owned.cast<Counter>()->value == 11);
    owned.reset();
    REQUIRE(obj.use_count() == 2);

    // Through Function::operator() (the safe_call path: the function is C).
    Counter back = echo(obj).cast<Counter>();
    REQUIRE(back.same_as(obj));
    REQUIRE(obj.use_count() == 4);  // obj, back, two kept
    REQUIRE(TVMFFIObjectDecRef(g_kept) == 0);
    REQUIRE(TVMFFIObjectDecRef(g_kept) == 0);
    g_kept = nullptr;
    REQUIRE(obj.use_count() == 2);
  }
  REQUIRE(g_live_objects == 0);

  // The last reference is dropped by the runtime: our deleter runs there.
  {
    Counter obj(12);
    REQUIRE(echo(obj).cast<Counter>().same_as(obj));
  }
  REQUIRE(g_live_objects == 1);  // still held by g_kept
  REQUIRE(TVMFFIObjectDecRef(g_kept) == 0);
  g_kept = nullptr;
  REQUIRE(g_live_objects == 0);

  try {
    echo(1);
    FAIL("expected a TypeError");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "TypeError");
    REQUIRE(err.message() == "EchoAndKeep wants one object");
  }
}

TEST_CASE("Arc: an owning pointer that is never null", "[object]") {
  static_assert(!std::is_default_constructible_v<Arc<CounterObj>>);
  static_assert(!std::is_constructible_v<Arc<CounterObj>, std::nullptr_t>);
  static_assert(!std::is_constructible_v<Arc<CounterObj>, ObjectPtr<CounterObj>>);
  static_assert(std::is_constructible_v<Arc<CounterObj>, Arc<CounterChildObj>>);
  static_assert(!std::is_constructible_v<Arc<CounterChildObj>, Arc<CounterObj>>);
  static_assert(std::is_constructible_v<ObjectPtr<CounterObj>, Arc<CounterChildObj>>);
  static_assert(std::is_assignable_v<Arc<CounterObj>&, Arc<CounterChildObj>>);
  static_assert(sizeof(Arc<CounterObj>) == sizeof(ObjectPtr<CounterObj>));
  static_assert(type_subsumes_v<ObjectPtr<CounterObj>, Arc<CounterChildObj>>);
  static_assert(!type_subsumes_v<Arc<CounterObj>, ObjectPtr<CounterChildObj>>);
  static_assert(!type_subsumes_v<ObjectPtr<CounterChildObj>, ObjectPtr<CounterObj>>);
  // cv-qualified payloads have no Any conversion (as upstream).
  static_assert(!TypeTraits<ObjectPtr<const CounterObj>>::convert_enabled);
  static_assert(!TypeTraits<Arc<const CounterObj>>::convert_enabled);

  int live_before = g_live_objects.load();
  {
    Arc<CounterChildObj> child = make_arc<CounterChildObj>(5);
    REQUIRE(child->value == 5);
    REQUIRE(child.use_count() == 1);
    Arc<CounterObj> base = child;
    REQUIRE(base.get() == child.get());
    ObjectPtr<CounterObj> ptr = base;
    REQUIRE(child.use_count() == 3);
    Arc<CounterObj> later{UnsafeInit{}};  // null until assigned
    REQUIRE(later.get() == nullptr);
    later = std::move(base);
    REQUIRE(later.get() == child.get());

    // Through Any: an object converts; None and other types do not.
    Any held = later;
    REQUIRE(held.cast<Arc<CounterChildObj>>().get() == child.get());
    REQUIRE(held.cast<ObjectPtr<CounterObj>>().get() == child.get());
    Any none;
    REQUIRE_FALSE(none.try_cast<Arc<CounterObj>>().has_value());
    REQUIRE(none.cast<ObjectPtr<CounterObj>>() == nullptr);
    Any other = make_object<OtherObj>();
    REQUIRE_FALSE(other.try_cast<Arc<CounterObj>>().has_value());
    try {
      (void)none.cast<Arc<CounterObj>>();
      FAIL("expected TypeError");
    } catch (const Error& err) {
      REQUIRE(err.kind() == "TypeError");
      REQUIRE(err.message().find("test.object.Counter") != std::string::npos);
    }
    REQUIRE(TypeToRuntimeTypeIndex<Arc<CounterObj>>::v() == CounterObj::RuntimeTypeIndex());
    REQUIRE(TypeToRuntimeTypeIndex<ObjectPtr<CounterChildObj>>::v() ==
            CounterChildObj::RuntimeTypeIndex());
    REQUIRE(TypeToRuntimeTypeIndex<Counter>::v() == CounterObj::RuntimeTypeIndex());
    REQUIRE(TypeToRuntimeTypeIndex<double>::v() == TypeIndex::kTVMFFIFloat);
    REQUIRE(TypeToFieldStaticTypeIndex<ObjectPtr<CounterObj>>::value == TypeIndex::kTVMFFIObject);
    REQUIRE(TypeToFieldStaticTypeIndex<Arc<CounterObj>>::value == TypeIndex::kTVMFFIObject);
    REQUIRE(TypeToFieldStaticTypeIndex<CounterObj*>::value != TypeIndex::kTVMFFIFloat);
    // Metadata schemas: an ObjectPtr may be null, an Arc may not.
    REQUIRE(TypeTraits<ObjectPtr<CounterObj>>::TypeSchema() ==
            R"({"type":"Optional","args":[{"type":"test.object.Counter"}]})");
    REQUIRE(TypeTraits<Arc<CounterObj>>::TypeSchema() == R"({"type":"test.object.Counter"})");
  }
  REQUIRE(g_live_objects.load() == live_before);
}

// A C++ view of types registered elsewhere, found by key.
struct CounterView : public Object {
  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP("test.object.Counter", 1);
};
struct MissingView : public Object {
  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP("test.object.NeverRegistered", 1);
};

TEST_CASE("TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP finds a registered type by key", "[object]") {
  Counter counter(1);
  REQUIRE(CounterView::RuntimeTypeIndex() == CounterObj::RuntimeTypeIndex());
  ObjectRef as_ref = counter;
  REQUIRE(as_ref.as<CounterView>() != nullptr);
  ObjectRef child = CounterChild(2);
  REQUIRE(child.as<CounterView>() != nullptr);  // subclasses match through the type table
  ObjectRef other(make_object<OtherObj>());
  REQUIRE(other.as<CounterView>() == nullptr);
  try {
    (void)MissingView::RuntimeTypeIndex();
    FAIL("expected an error for an unregistered key");
  } catch (const Error& err) {
    REQUIRE(err.message().find("test.object.NeverRegistered") != std::string::npos);
  }
}

namespace {
// An expression object that plain numbers and strings convert to.
class ExprObj : public Object {
 public:
  ExprObj(std::string kind, double value) : kind(std::move(kind)), value(value) {}
  std::string kind;
  double value;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.object.Expr", ExprObj, Object);
};
class Expr : public ObjectRef {
 public:
  Expr(std::string kind, double value) : Expr(make_object<ExprObj>(std::move(kind), value)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Expr, ObjectRef, ExprObj);
};
}  // namespace

namespace tvm {
namespace ffi {
template <>
inline constexpr bool use_default_type_traits_v<Expr> = false;
template <>
struct TypeTraits<Expr>
    : public ObjectRefWithFallbackTraitsBase<Expr, StrictBool, int64_t, double> {
  static Expr ConvertFallbackValue(StrictBool v) { return Expr("bool", static_cast<bool>(v)); }
  static Expr ConvertFallbackValue(int64_t v) { return Expr("int", static_cast<double>(v)); }
  static Expr ConvertFallbackValue(double v) { return Expr("float", v); }
};
}  // namespace ffi
}  // namespace tvm

TEST_CASE("ObjectRefWithFallbackTraitsBase converts plain values in the listed order", "[object]") {
  Expr e("float", 1.5);
  REQUIRE(Any(e).cast<Expr>().same_as(e));          // the object itself, no conversion
  REQUIRE(Any(true).cast<Expr>()->kind == "bool");  // StrictBool first: a bool stays a bool
  Expr from_int = Any(int64_t{3}).cast<Expr>();
  REQUIRE(from_int->kind == "int");
  REQUIRE(from_int->value == 3.0);
  REQUIRE(Any(2.5).cast<Expr>()->kind == "float");
  // As a typed function argument.
  Function f = Function::FromTyped([](Expr x) { return x->kind; });
  REQUIRE(f(7).cast<std::string>() == "int");
  // A value none of the fallbacks takes is a TypeError naming the type.
  try {
    (void)Any(String("text")).cast<Expr>();
    FAIL("expected TypeError");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "TypeError");
    REQUIRE(err.message().find("test.object.Expr") != std::string::npos);
  }
}

namespace {
// A reference whose ContainerType does not describe it exactly: it proves its
// own rule (only CounterChildObj) by specializing object_ref_contains_v.
class OnlyChildRef : public ObjectRef {
 public:
  static constexpr bool _type_container_is_exact = false;
  using ContainerType = CounterObj;
};

template <typename R, typename O, typename = void>
inline constexpr bool contains_defined_v = false;
template <typename R, typename O>
inline constexpr bool contains_defined_v<R, O, std::void_t<decltype(object_ref_contains_v<R, O>)>> =
    true;
}  // namespace

namespace tvm {
namespace ffi {
template <typename O>
inline constexpr bool object_ref_contains_v<OnlyChildRef, O> =
    std::is_base_of_v<CounterChildObj, O>;
}  // namespace ffi
}  // namespace tvm

TEST_CASE("object_ref_contains_v: which objects a reference type holds", "[object]") {
  STATIC_CHECK(ObjectRef::_type_container_is_exact);
  STATIC_CHECK(Counter::_type_container_is_exact);
  STATIC_CHECK(object_ref_contains_v<ObjectRef, CounterObj>);
  STATIC_CHECK(object_ref_contains_v<Counter, CounterChildObj>);
  STATIC_CHECK(object_ref_contains_v<Optional<Counter>::value_type, CounterObj>);
  STATIC_CHECK(!object_ref_contains_v<CounterChild, CounterObj>);
  STATIC_CHECK(!object_ref_contains_v<Counter, OtherObj>);
  STATIC_CHECK(object_ref_contains_v<OnlyChildRef, CounterChildObj>);
  STATIC_CHECK(!object_ref_contains_v<OnlyChildRef, CounterObj>);
  // Defined only for a reference and an object type.
  STATIC_CHECK(contains_defined_v<Counter, CounterObj>);
  STATIC_CHECK(!contains_defined_v<int, CounterObj>);
  STATIC_CHECK(!contains_defined_v<CounterObj, CounterObj>);
  STATIC_CHECK(!contains_defined_v<Counter, int>);
  // An Optional of a reference is no reference (upstream 0.1.15): ask its value_type.
  STATIC_CHECK(!contains_defined_v<Optional<Counter>, CounterObj>);
}
