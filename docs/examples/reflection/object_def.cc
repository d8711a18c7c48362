// What ObjectDef declares: fields with defaults and flags, methods, constructors, attributes.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/creator.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdio>

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

class VecObj : public ffi::Object {
 public:
  int64_t x = 0;
  int64_t y = 0;
  int64_t cache = 0;
  VecObj() = default;
  VecObj(int64_t x, int64_t y) : x(x), y(y) {}
  int64_t Norm1() const { return (x < 0 ? -x : x) + (y < 0 ? -y : y); }
  static constexpr bool _type_mutable = true;  // def_rw fields may be set
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("example.Vec", VecObj, ffi::Object);
};

class Vec : public ffi::ObjectRef {
 public:
  Vec(int64_t x, int64_t y) : ffi::ObjectRef(ffi::make_object<VecObj>(x, y)) {}
  static Vec Zero() { return Vec(0, 0); }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Vec, ffi::ObjectRef, VecObj);
};

class PairObj : public ffi::Object {
 public:
  int64_t a = 0;
  int64_t b = 0;
  int64_t scratch = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("example.Pair", PairObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<VecObj>("A 2-D vector.")
      .def_rw("x", &VecObj::x, "the x coordinate", refl::DefaultValue(0))
      .def_rw("y", &VecObj::y, refl::DefaultValue(0))
      .def_ro("cache", &VecObj::cache, refl::AttachFieldFlag::SEqHashIgnore())
      .def("norm1", &VecObj::Norm1)          // a method: self is argument 0
      .def_static("zero", &Vec::Zero)        // a static method
      .def(refl::init<int64_t, int64_t>());  // the constructor, method __ffi_init__
  refl::ObjectDef<PairObj>()  // no init<...>: a generated __ffi_init__ takes the fields
      .def_ro("a", &PairObj::a)
      .def_ro("b", &PairObj::b, refl::DefaultValue(1), refl::kw_only(true))
      .def_ro("scratch", &PairObj::scratch, refl::DefaultValue(0), refl::init(false),
              refl::compare(false), refl::hash(false));
  refl::TypeAttrDef<VecObj>().def("__my_attr__", 42);                 // a type attribute
  refl::GlobalDef().def_method("example.Vec.norm1", &VecObj::Norm1);  // a method as a global
}

int main() {
  ffi::Any v = refl::GetMethod("example.Vec", "__ffi_init__")(3, -4);
  std::printf("%s, norm1 %lld\n", ffi::ReprPrint(v).c_str(),
              static_cast<long long>(
                  ffi::Function::GetGlobalRequired("example.Vec.norm1")(v).cast<int64_t>()));
  // example.Vec(x=3, y=-4, cache=0), norm1 7
  // Pair's generated constructor (a type attribute): `a` by position, `b` keyword-only.
  refl::TypeAttrColumn inits(refl::type_attr::kInit);
  ffi::Function make_pair = inits[PairObj::RuntimeTypeIndex()].cast<ffi::Function>();
  ffi::Any p = make_pair(5);
  std::printf("%s\n", ffi::ReprPrint(p).c_str());  // example.Pair(a=5, b=1, scratch=0)
  // ObjectCreator sets fields by name and gives the others their defaults.
  ffi::Map<ffi::String, ffi::Any> fields{{"a", 5}, {"b", 7}};
  std::printf("%s\n", ffi::ReprPrint(refl::ObjectCreator("example.Pair")(fields)).c_str());
  // example.Pair(a=5, b=7, scratch=0)
  return 0;
}
