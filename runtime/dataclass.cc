/*
 * Reflection-driven operations on whole object graphs, as upstream's globals:
 *
 *   ffi.DeepCopy(value) -> a copy sharing nothing mutable with `value`
 *   ffi.ReprPrint(value) -> str
 *   ffi.RecursiveHash(value) -> int
 *   ffi.RecursiveEq / RecursiveLt / RecursiveLe / RecursiveGt / RecursiveGe(lhs, rhs) -> bool
 *
 * called by tvm/ffi/extra/dataclass.h. The recursive comparisons and hash are
 * described above their classes in dataclass_recursive.cc.
 *
 * DeepCopy: POD values, strings, bytes, shapes and enum singletons
 * (tvm/ffi/enum.h) are returned as they are;
 * Array/List/Map/Dict are rebuilt with copied elements; any other object is
 * copied with its type's `__ffi_shallow_copy__` attribute (ObjectDef sets it
 * for copy-constructible classes) and then its reflected fields are replaced
 * by their copies. Sharing is kept (an object reached twice is copied once)
 * and cycles through mutable nodes are reproduced. An object without
 * `__ffi_shallow_copy__` (a Function, a Tensor, ...) is a RuntimeError naming
 * its type ("not copy-constructible", upstream's kind).
 *
 * ReprPrint (upstream's format): None, True/False, ints, floats ("%g"),
 * dtypes ("float32"), devices ("cuda:0"), strings in double quotes with
 * escapes, bytes as b"...", Array as a tuple "(1, 2)" ("(1,)" for one
 * element), List "[1, 2]", Map/Dict "{k: v}", Shape "Shape(2, 3)", Tensor
 * "float32[2, 3]@cpu:0", a type's `__ffi_repr__(obj, repr_fn)` when set,
 * else "type.key.Name" for an enum singleton, else "type.key(field=value, ...)"
 * over the reflected fields without
 * kTVMFFIFieldFlagBitMaskReprOff ("type.key" alone when there are none).
 * An object met again while it is being printed prints as "...".
 * With TVM_FFI_REPR_WITH_ADDR=1 in the environment, "@0x<address>" follows
 * the type key of a reflected object or enum, a container's closing bracket,
 * a tensor's device and a "..." (upstream's switch).
 * A shared object prints in full at each use; the text (with one count per
 * object visited) is bounded by 16 MiB, past which ReprPrint is a ValueError,
 * so a DAG whose expansion is exponential costs bounded work.
 *
 * Every walk here takes time linear in the nodes of a DAG: DeepCopy and
 * RecursiveHash remember each node, RecursiveEq/Lt/... each pair found equal
 * (unless that equality leaned on a pair still open above it, in a cycle).
 * DeepCopy recurses on the C stack and refuses a value nested deeper than the
 * thread's stack allows (ValueError); the comparisons and the hash keep their
 * own stacks.
 *
 * This file holds DeepCopy and registers the globals; ReprPrint is
 * dataclass_repr.cc, the recursive comparisons and hash dataclass_recursive.cc,
 * and what they share dataclass_internal.h.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>

#include <exception>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "builtin_def.h"
#include "dataclass_internal.h"
#include "internal.h"
#include "walk_guard.h"

namespace tvm {
namespace ffi {
namespace dataclass_impl {
namespace {

// ---------------------------------------------------------------------------
// DeepCopy

class DeepCopier {
 public:
  Any Copy(const Any& value) {
    int32_t ti = value.type_index();
    if (ti < TypeIndex::kTVMFFIStaticObjectBegin || ti == TypeIndex::kTVMFFIStr ||
        ti == TypeIndex::kTVMFFIBytes || ti == TypeIndex::kTVMFFIShape ||
        ti == TypeIndex::kTVMFFIBigInt) {
      return value;  // immutable values: shared, never copied
    }
    const Object* obj = ObjectOf(value);
    if (obj->IsInstance<EnumObj>()) return value;  // a singleton: never copied
    auto done = copies_.find(obj);
    if (done != copies_.end()) return done->second;
    if (tvmffi::rt::StackNearlyExhausted()) {
      TVM_FFI_THROW(ValueError) << "DeepCopy: the value is nested too deeply for this thread's "
                                   "stack (a chain of containers or objects thousands of levels "
                                   "deep)";
    }
    switch (ti) {
      case TypeIndex::kTVMFFIArray: {
        // Remembered before its elements (a cycle through a mutable node
        // leads back to this copy), which are written into it in place: the
        // copy is new, and no one reads it before it is complete.
        const auto* seq = static_cast<const SeqBaseObj*>(obj);
        const size_t n = seq->size();
        Array<Any> out;
        out.reserve(static_cast<int64_t>(n));
        for (size_t i = 0; i < n; ++i) out.push_back(Any());
        Remember(obj, out);
        Any* cells = const_cast<Any*>(static_cast<const SeqBaseObj*>(out.get())->begin());
        for (size_t i = 0; i < n; ++i) cells[i] = Copy((*seq)[i]);
        return out;
      }
      case TypeIndex::kTVMFFIMap: {
        // As the Array: the new map is remembered before its keys and values
        // are copied (a cycle through a mutable node, in a key or a value,
        // leads back to this copy) and filled in place, bypassing Map's
        // copy-on-write (the memo holds a second reference). No one reads it
        // before it is complete; a key that refers to it hashes by address.
        const auto* map = static_cast<const MapBaseObj*>(obj);
        ObjectPtr<MapObj> fresh = MapObj::Create(static_cast<int64_t>(map->size()));
        MapObj* target = fresh.get();
        Map<Any, Any> out(ObjectPtr<Object>(std::move(fresh)));
        Remember(obj, out);
        for (auto it = map->begin(); it != map->end(); ++it) {
          Any key = Copy(it.key());
          Any val = Copy(it.value());
          FillInPlace(target, std::move(key), std::move(val));
        }
        return out;
      }
      case TypeIndex::kTVMFFIList: {
        // Mutable: remembered before its elements, so a cycle finds it.
        List<Any> out;
        Remember(obj, out);
        for (const Any& item : tvmffi::rt::StableItems(static_cast<const SeqBaseObj*>(obj))) {
          out.push_back(Copy(item));
        }
        return out;
      }
      case TypeIndex::kTVMFFIDict: {
        Dict<Any, Any> out;
        Remember(obj, out);
        const auto* map = static_cast<const MapBaseObj*>(obj);
        for (const auto& [key, val] : tvmffi::rt::StableEntries(map)) out.Set(Copy(key), Copy(val));
        return out;
      }
      default:
        return CopyObject(value.cast<ObjectRef>());
    }
  }

 private:
  Any Remember(const Object* original, Any copy) {
    copies_[original] = copy;
    return copy;
  }

  // Set key to value in `target`, a map under construction that others
  // already reference: when the entries outgrow its storage, the bigger
  // storage is taken over by `target` itself (as Dict grows), so every
  // reference to it sees the entries.
  static void FillInPlace(MapObj* target, Any key, Any value) {
    ObjectPtr<Object> storage = GetObjectPtr<Object>(target);
    TVMFFIAny k = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(key));
    TVMFFIAny v = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(value));
    MapBaseObj::InsertOrAssign<MapObj>(&storage, k, v, detail::AnyCellHash(&k));
    if (storage.get() != target) target->TakeStorageFrom(std::move(storage));
  }

  Any CopyObject(const ObjectRef& obj) {
    static const reflection::TypeAttrColumn shallow_copy(reflection::type_attr::kShallowCopy);
    int32_t ti = obj->type_index();
    AnyView fn = shallow_copy[ti];
    if (fn == nullptr) {
      TVM_FFI_THROW(RuntimeError) << "DeepCopy: cannot copy an object of type `" << TypeKeyOf(ti)
                                  << "`: it is not copy-constructible (it has no "
                                     "__ffi_shallow_copy__; register the type with ObjectDef "
                                     "and make it copy-constructible)";
    }
    ObjectRef copy = fn.cast<Function>()(obj).cast<ObjectRef>();
    Remember(obj.get(), copy);
    reflection::ForEachFieldInfo(TVMFFIGetTypeInfo(ti), [&](const TVMFFIFieldInfo* f) {
      Any original = reflection::FieldGetter(f)(obj);
      Any copied = Copy(original);
      if (!copied.same_as(original)) reflection::FieldSetter{f}(copy, copied);
    });
    return copy;
  }

  std::unordered_map<const Object*, Any> copies_;
};

[[maybe_unused]] const bool kDataclassBuiltinsRegistered = [] {
  tvmffi::rt::BuiltinDef()
      .def("ffi.DeepCopy", [](const Any& value) { return DeepCopier().Copy(value); })
      .def("ffi.ReprPrint", [](const Any& value) { return String(ReprOf(value)); })
      .def("ffi.RecursiveHash",
           [](const Any& value) { return static_cast<int64_t>(RecursiveHashOf(value)); })
      .def("ffi.RecursiveEq",
           [](const Any& a, const Any& b) { return RecursiveCompareOf(a, b, true) == 0; })
      .def("ffi.RecursiveLt",
           [](const Any& a, const Any& b) { return RecursiveCompareOf(a, b, false) < 0; })
      .def("ffi.RecursiveLe",
           [](const Any& a, const Any& b) { return RecursiveCompareOf(a, b, false) <= 0; })
      .def("ffi.RecursiveGt",
           [](const Any& a, const Any& b) { return RecursiveCompareOf(a, b, false) > 0; })
      .def("ffi.RecursiveGe",
           [](const Any& a, const Any& b) { return RecursiveCompareOf(a, b, false) >= 0; });
  // The hooks' columns exist from the start, so looking one up never fails.
  try {
    reflection::EnsureTypeAttrColumn(reflection::type_attr::kEq);
    reflection::EnsureTypeAttrColumn(reflection::type_attr::kCompare);
    reflection::EnsureTypeAttrColumn(reflection::type_attr::kHash);
  } catch (const std::exception&) {
    tvmffi::rt::RecordLoadFailure(
        "cannot create the __ffi_eq__/__ffi_compare__/__ffi_hash__ columns");
  }
  return true;
}();

}  // namespace
}  // namespace dataclass_impl
}  // namespace ffi
}  // namespace tvm
