// Object types shared by the reflection and structural tests, registered
// through refl::ObjectDef (each test binary registers them once).
#ifndef TVMFFI_TESTS_REFLECTION_TEST_UTIL_H_
#define TVMFFI_TESTS_REFLECTION_TEST_UTIL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <utility>

namespace reflection_test {

using namespace tvm::ffi;

// A mutable tree node: two plain fields, one ignored by structural ops.
class PointObj : public Object {
 public:
  int64_t x = 0;
  double y = 0.0;
  String label;
  int64_t cache = 0;  // SEqHashIgnore

  PointObj() = default;
  PointObj(int64_t x, double y) : x(x), y(y) {}
  int64_t Sum(int64_t extra) const { return x + static_cast<int64_t>(y) + extra; }

  static constexpr bool _type_mutable = true;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO("test.refl.Point", PointObj, Object);
};

class Point : public ObjectRef {
 public:
  Point(int64_t x, double y) : ObjectRef(make_object<PointObj>(x, y)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Point, ObjectRef, PointObj);
};

// A subclass: inherited fields come first.
class Point3Obj : public PointObj {
 public:
  int64_t z = 0;
  Any payload;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.Point3", Point3Obj, PointObj);
};

// A free variable: compared by binding, not by content.
class VarObj : public Object {
 public:
  String name;
  VarObj() = default;
  explicit VarObj(String n) : name(std::move(n)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.Var", VarObj, Object);
};

class Var : public ObjectRef {
 public:
  explicit Var(String name) : ObjectRef(make_object<VarObj>(std::move(name))) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Var, ObjectRef, VarObj);
};

// A function: params define variables (SEqHashDef), body uses them.
class FuncObj : public Object {
 public:
  Array<Var> params;
  Any body;
  String comment;  // SEqHashIgnore
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.Func", FuncObj, Object);
};

class Func : public ObjectRef {
 public:
  Func(Array<Var> params, Any body, String comment = "") {
    ObjectPtr<FuncObj> n = make_object<FuncObj>();
    n->params = std::move(params);
    n->body = std::move(body);
    n->comment = std::move(comment);
    data_ = std::move(n);
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Func, ObjectRef, FuncObj);
};

// Compared by identity only.
class HandleObj : public Object {
 public:
  int64_t id = 0;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUniqueInstance;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.Handle", HandleObj, Object);
};

// No structural kind declared: structural ops must refuse it.
class OpaqueObj : public Object {
 public:
  int64_t id = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.Opaque", OpaqueObj, Object);
};

// A free variable with a field of its own (its type, which may use other
// variables): binds by identity, its annotation compared structurally.
class TypedVarObj : public Object {
 public:
  String name;
  Any annotation;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.TypedVar", TypedVarObj, Object);
};

class TypedVar : public ObjectRef {
 public:
  TypedVar(String name, Any annotation) {
    ObjectPtr<TypedVarObj> n = make_object<TypedVarObj>();
    n->name = std::move(name);
    n->annotation = std::move(annotation);
    data_ = std::move(n);
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TypedVar, ObjectRef, TypedVarObj);
};

// A let binding: `var` opens a non-recursive def region (or a recursive one
// in RecLetObj), `body` uses it.
class LetObj : public Object {
 public:
  Any var;
  Any body;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.Let", LetObj, Object);
};
class RecLetObj : public Object {
 public:
  Any var;
  Any body;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.refl.RecLet", RecLetObj, Object);
};

template <typename T = LetObj>
inline ObjectRef MakeLet(Any var, Any body) {
  ObjectPtr<T> n = make_object<T>();
  n->var = std::move(var);
  n->body = std::move(body);
  return ObjectRef(std::move(n));
}

/*! \brief Register the types above once per process. */
inline void RegisterTestTypes() {
  static bool done = [] {
    namespace refl = tvm::ffi::reflection;
    refl::ObjectDef<PointObj>("A 2-D point.")
        .def_rw("x", &PointObj::x, "the x coordinate")
        .def_rw("y", &PointObj::y, refl::DefaultValue(2.5))
        .def_rw("label", &PointObj::label, refl::DefaultValue(String("none")),
                refl::Metadata{{"unit", "m"}, {"order", 3}})
        .def_rw("cache", &PointObj::cache, refl::DefaultValue(0),
                refl::AttachFieldFlag::SEqHashIgnore())
        .def("sum", &PointObj::Sum, "x + y + extra")
        .def_static("origin", []() { return Point(0, 0.0); })
        .def(refl::init<int64_t, double>());
    refl::ObjectDef<Point3Obj>()
        .def_rw("z", &Point3Obj::z)
        .def_rw("payload", &Point3Obj::payload, refl::DefaultFactory(Function::FromTyped([]() {
                  return Array<int64_t>{1, 2};
                })));
    refl::ObjectDef<VarObj>().def_ro("name", &VarObj::name, refl::AttachFieldFlag::SEqHashIgnore());
    refl::ObjectDef<FuncObj>()
        .def_ro("params", &FuncObj::params, refl::AttachFieldFlag::SEqHashDef())
        .def_ro("body", &FuncObj::body)
        .def_ro("comment", &FuncObj::comment, refl::AttachFieldFlag::SEqHashIgnore());
    refl::ObjectDef<TypedVarObj>()
        .def_ro("name", &TypedVarObj::name, refl::AttachFieldFlag::SEqHashIgnore())
        .def_ro("annotation", &TypedVarObj::annotation);
    refl::ObjectDef<LetObj>()
        .def_ro("var", &LetObj::var, refl::AttachFieldFlag::SEqHashDefNonRecursive())
        .def_ro("body", &LetObj::body);
    refl::ObjectDef<RecLetObj>()
        .def_ro("var", &RecLetObj::var, refl::AttachFieldFlag::SEqHashDefRecursive())
        .def_ro("body", &RecLetObj::body);
    refl::ObjectDef<HandleObj>().def_ro("id", &HandleObj::id);
    refl::ObjectDef<OpaqueObj>().def_ro("id", &OpaqueObj::id);
    return true;
  }();
  (void)done;
}

}  // namespace reflection_test

#endif  // TVMFFI_TESTS_REFLECTION_TEST_UTIL_H_
