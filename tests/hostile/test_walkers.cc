// The walkers' rule (issue #43, classes 1 and 2; runtime/walk_guard.h,
// tvm/ffi/details/stack_guard.h): every walker over values -- container
// equality (ffi.ListContains, ffi.ArrayContains, Array ==), StructuralEqual,
// StructuralHash, StructuralWalk, repr, DeepCopy, ToJSONGraph -- answers a
// cycle or a value nested deeper than the stack allows with a ValueError, and
// survives a hook that clears the List or Dict being walked. Dropping a chain
// of any kind of object uses a bounded stack.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/structural_visit.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>

#include <string>

namespace {
using namespace tvm::ffi;
namespace refl = tvm::ffi::reflection;

constexpr int kDeep = 100000;

// Calls `name` with `args`; returns the error kind ("" on success).
template <typename... Args>
std::string ErrorKindOf(const char* name, Args&&... args) {
  try {
    Function::GetGlobalRequired(name)(std::forward<Args>(args)...);
    return "";
  } catch (const Error& e) {
    return e.kind();
  }
}

// [[[...[0]...]]] kDeep levels, as Lists (or Arrays).
template <typename Seq>
Seq DeepChain(int depth) {
  Seq cur{0};
  for (int i = 0; i < depth; ++i) cur = Seq{cur};
  return cur;
}

// A List that contains itself.
List<Any> SelfList() {
  List<Any> l;
  l.push_back(1);
  l.push_back(l);
  return l;
}

// The victim a hook clears: the container being walked.
List<Any>* g_victim_list = nullptr;
Dict<Any, Any>* g_victim_dict = nullptr;

void ClearVictims() {
  if (g_victim_list != nullptr) g_victim_list->clear();
  if (g_victim_dict != nullptr) g_victim_dict->clear();
}

class ClearerObj : public Object {
 public:
  int64_t value = 0;
  explicit ClearerObj(int64_t v) : value(v) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.hostile.Clearer", ClearerObj, Object);
};
class Clearer : public ObjectRef {
 public:
  explicit Clearer(int64_t v) : Clearer(make_object<ClearerObj>(v)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Clearer, ObjectRef, ClearerObj);
};

void RegisterClearer() {
  static const bool done = [] {
    refl::ObjectDef<ClearerObj>().def_ro("value", &ClearerObj::value);
    refl::TypeAttrDef<ClearerObj>()
        .def(refl::type_attr::kRepr,
             [](const ClearerObj* self, Function) -> String {
               ClearVictims();
               return String("Clearer(" + std::to_string(self->value) + ")");
             })
        .def(refl::type_attr::kSHash,
             [](const ClearerObj* self, int64_t seed, Function) -> int64_t {
               ClearVictims();
               return seed ^ self->value;
             })
        .def(refl::type_attr::kSEqual,
             [](const ClearerObj* a, const ClearerObj* b, Function) -> bool {
               ClearVictims();
               return a->value == b->value;
             })
        .def("__data_to_json__", [](const ClearerObj* self) -> int64_t {
          ClearVictims();
          return self->value;
        });
    return true;
  }();
  (void)done;
}

// A list whose items are clearers, each in a list of its own and followed by
// more values, so the walk goes on reading the list after the hook ran.
List<Any> VictimList() {
  List<Any> l;
  for (int i = 0; i < 8; ++i) {
    l.push_back(List<Any>{Clearer(i), String(std::string(40, 'x'))});
    l.push_back(Array<Any>{i, Clearer(i)});
  }
  return l;
}

class LinkObj : public Object {
 public:
  ObjectRef next;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.hostile.Link", LinkObj, Object);
};

}  // namespace

TEST_CASE("Walkers: two distinct cycles compared are a ValueError", "[hostile][walkers]") {
  List<Any> a = SelfList(), b = SelfList();
  CHECK(ErrorKindOf("ffi.ListContains", List<Any>{a}, b) == "ValueError");
  CHECK(ErrorKindOf("ffi.ArrayContains", Array<Any>{a}, b) == "ValueError");
  // The same cycle is found by identity.
  CHECK(Function::GetGlobalRequired("ffi.ListContains")(a, a).cast<bool>());
  CHECK(ErrorKindOf("ffi.StructuralEqual", a, b, false, false) == "ValueError");
  CHECK(ErrorKindOf("ffi.StructuralWalk", a, Array<Any>{}, Array<Any>{}, 0) == "ValueError");
  a.clear();  // break the cycles: nothing leaks
  b.clear();
}

TEST_CASE("Walkers: a value nested 10^5 deep is an error or a value, never a crash",
          "[hostile][walkers]") {
  List<Any> x = DeepChain<List<Any>>(kDeep);
  List<Any> y = DeepChain<List<Any>>(kDeep);
  CHECK(ErrorKindOf("ffi.ListContains", List<Any>{x}, y) == "ValueError");
  CHECK(ErrorKindOf("ffi.ArrayContains", Array<Any>{x}, y) == "ValueError");
  Array<Any> ax = DeepChain<Array<Any>>(kDeep), ay = DeepChain<Array<Any>>(kDeep);
  bool threw = false;
  try {
    (void)(ax == ay);
  } catch (const Error& e) {
    threw = e.kind() == "ValueError";
  }
  CHECK(threw);
  CHECK(ErrorKindOf("ffi.StructuralEqual", x, y, false, false) == "ValueError");
  CHECK(ErrorKindOf("ffi.StructuralHash", x, false, false) == "ValueError");
  CHECK(ErrorKindOf("ffi.StructuralWalk", x, Array<Any>{}, Array<Any>{}, 0) == "ValueError");
  CHECK(ErrorKindOf("ffi.ReprPrint", x) == "");  // prints `...` past 1000 levels
  CHECK(ErrorKindOf("ffi.DeepCopy", x) == "ValueError");
  CHECK(ErrorKindOf("ffi.ToJSONGraph", x, nullptr) == "ValueError");
  // Shallow values still work.
  CHECK(ErrorKindOf("ffi.StructuralHash", DeepChain<List<Any>>(50), false, false) == "");
}

TEST_CASE("Walkers: dropping a chain of 10^6 objects of any kind", "[hostile][walkers]") {
  {
    ObjectRef head;
    for (int i = 0; i < 1000000; ++i) {
      auto link = make_object<LinkObj>();
      link->next = std::move(head);
      head = ObjectRef(std::move(link));
    }
  }  // the chain dies here, one object inside another's destructor
  {
    Any head;
    for (int i = 0; i < 1000000; ++i) {
      if (i % 2 == 0) {
        auto link = make_object<LinkObj>();
        if (head != nullptr) link->next = head.cast<ObjectRef>();
        head = ObjectRef(std::move(link));
      } else {
        head = Array<Any>{head};
      }
    }
  }
  SUCCEED("no stack overflow");
}

TEST_CASE("Walkers: a hook that clears the List being walked", "[hostile][walkers]") {
  RegisterClearer();
  for (const char* walker : {"repr", "hash", "equal", "walk", "json"}) {
    INFO(walker);
    List<Any> victim = VictimList();
    List<Any> other = VictimList();
    g_victim_list = &victim;
    std::string kind;
    if (std::string(walker) == "repr") {
      kind = ErrorKindOf("ffi.ReprPrint", victim);
    } else if (std::string(walker) == "hash") {
      kind = ErrorKindOf("ffi.StructuralHash", victim, false, false);
    } else if (std::string(walker) == "equal") {
      kind = ErrorKindOf("ffi.StructuralEqual", victim, other, false, false);
    } else if (std::string(walker) == "walk") {
      Function clear = Function::FromTyped([](AnyView) {
        ClearVictims();
        return 0;
      });
      Array<Any> callbacks{Tuple<int32_t, Function>(TypeIndex::kTVMFFIAny, clear)};
      kind = ErrorKindOf("ffi.StructuralWalk", victim, callbacks, Array<Any>{}, 0);
    } else {
      kind = ErrorKindOf("ffi.ToJSONGraph", victim, nullptr);
    }
    g_victim_list = nullptr;
    CHECK((kind == "" || kind == "TypeError" || kind == "ValueError"));
    CHECK(victim.size() == 0);  // the hook ran
  }
}

TEST_CASE("Walkers: a hook that clears the Dict being walked", "[hostile][walkers]") {
  RegisterClearer();
  for (const char* walker : {"repr", "hash", "equal", "walk", "json"}) {
    INFO(walker);
    Dict<Any, Any> victim, other;
    for (int i = 0; i < 16; ++i) {
      victim.Set(i, List<Any>{Clearer(i), String(std::string(40, 'y'))});
      other.Set(i, List<Any>{Clearer(i), String(std::string(40, 'y'))});
    }
    g_victim_dict = &victim;
    std::string kind;
    if (std::string(walker) == "repr") {
      kind = ErrorKindOf("ffi.ReprPrint", victim);
    } else if (std::string(walker) == "hash") {
      kind = ErrorKindOf("ffi.StructuralHash", victim, false, false);
    } else if (std::string(walker) == "equal") {
      kind = ErrorKindOf("ffi.StructuralEqual", victim, other, false, false);
    } else if (std::string(walker) == "walk") {
      Function clear = Function::FromTyped([](AnyView) {
        ClearVictims();
        return 0;
      });
      Array<Any> callbacks{Tuple<int32_t, Function>(TypeIndex::kTVMFFIAny, clear)};
      kind = ErrorKindOf("ffi.StructuralWalk", victim, callbacks, Array<Any>{}, 0);
    } else {
      kind = ErrorKindOf("ffi.ToJSONGraph", victim, nullptr);
    }
    g_victim_dict = nullptr;
    CHECK((kind == "" || kind == "TypeError" || kind == "ValueError"));
    CHECK(victim.size() == 0);
  }
}
