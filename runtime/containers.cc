/*
 * Global functions that let C callers (and other languages) build and read
 * Arrays and Maps without the C++ headers. Names and signatures follow
 * upstream TVM-FFI:
 *
 *   ffi.Array(x0, x1, ...) -> Array           ffi.Map(k0, v0, k1, v1, ...) -> Map
 *   ffi.ArraySize(arr) -> int                 ffi.MapSize(map) -> int
 *   ffi.ArrayGetItem(arr, i) -> Any           ffi.MapGetItem(map, key) -> Any (KeyError)
 *   ffi.ArrayContains(arr, x) -> bool         ffi.MapCount(map, key) -> int (0 or 1)
 *   ffi.MapForwardIterFunctor(map) -> Function(command): 0 key, 1 value,
 *                                      2 advance (returns whether an entry remains)
 *   ffi.MapGetMissingObject() -> the sentinel ffi.MapGetItemOrMissing returns
 *   ffi.MapGetItemOrMissing(map, key) -> value or the sentinel
 * and, a tvmffi extension,
 *   ffi.MapItems(map) -> Array [k0, v0, k1, v1, ...] in the map's iteration order.
 *
 * Arguments are views: borrowed strings (const char*, TVMFFIByteArray*)
 * are copied into Strings/Bytes when stored. The objects made here carry
 * deleters of libtvmffi, which is never unloaded.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>

#include "builtin_def.h"

namespace tvm {
namespace ffi {
namespace {

Any CopyCellToAny(const TVMFFIAny* cell) {
  return Any(AnyView::CopyFromTVMFFIAny(*cell));
}

const TVMFFIAny* CellOf(const AnyView& view) {
  return detail::AnyUnsafe::TVMFFIAnyPtrFromAnyView(view);
}

// Walks a map for the iterator protocol of ffi.MapForwardIterFunctor. Holds
// the map so the walk stays valid whatever the caller does with its reference.
class MapForwardIter {
 public:
  explicit MapForwardIter(const MapObj* map)
      : map_(GetObjectPtr<MapObj>(const_cast<MapObj*>(map))), iter_(map->begin()) {}

  Any operator()(int command) const {
    switch (command) {
      case 0:
        CheckValid();
        return CopyCellToAnyView(iter_.key_cell());
      case 1:
        CheckValid();
        return CopyCellToAnyView(iter_.value_cell());
      case 2:
        CheckValid();
        ++iter_;
        return iter_ != map_->end();
      default:
        TVM_FFI_THROW(ValueError) << "ffi.MapForwardIterFunctor: unknown command " << command
                                  << " (0: key, 1: value, 2: advance)";
    }
    TVM_FFI_UNREACHABLE();
  }

 private:
  static Any CopyCellToAnyView(const TVMFFIAny* cell) { return CopyCellToAny(cell); }
  void CheckValid() const {
    if (iter_ == map_->end()) {
      TVM_FFI_THROW(IndexError) << "ffi.MapForwardIterFunctor: the iteration is past the end of "
                                   "the Map (size "
                                << map_->size() << ")";
    }
  }
  ObjectPtr<MapObj> map_;
  mutable MapObj::iterator iter_;
};

const ObjectRef& MissingObject() {
  // Never freed: it must outlive every caller, including static destructors.
  static const ObjectRef* missing = new ObjectRef(make_object<Object>());
  return *missing;
}

using tvmffi::rt::BuiltinDef;

[[maybe_unused]] const bool kContainerGlobalsRegistered = [] {
  BuiltinDef()
      .def_packed("ffi.Array",
                  [](PackedArgs args, Any* ret) {
                    Array<Any> result;
                    result.reserve(args.size());
                    for (int i = 0; i < args.size(); ++i) result.push_back(Any(args[i]));
                    *ret = std::move(result);
                  })
      .def("ffi.ArraySize",
           [](const ArrayObj* arr) -> int64_t { return static_cast<int64_t>(arr->size()); })
      .def("ffi.ArrayGetItem", [](const ArrayObj* arr, int64_t i) -> Any { return arr->at(i); })
      .def("ffi.ArrayContains",
           [](const ArrayObj* arr, AnyView value) -> bool {
             const TVMFFIAny* cells = static_cast<const TVMFFIAny*>(arr->data);
             for (size_t i = 0; i < arr->size(); ++i) {
               if (detail::CellContentEqual(cells + i, CellOf(value))) return true;
             }
             return false;
           })
      .def_packed("ffi.Map",
                  [](PackedArgs args, Any* ret) {
                    if (args.size() % 2 != 0) {
                      TVM_FFI_THROW(ValueError)
                          << "ffi.Map expects key, value pairs (an even number of arguments), "
                             "got "
                          << args.size() << " arguments";
                    }
                    Map<Any, Any> result(MapObj::Create(args.size() / 2));
                    for (int i = 0; i < args.size(); i += 2) {
                      result.Set(Any(args[i]), Any(args[i + 1]));
                    }
                    *ret = std::move(result);
                  })
      .def("ffi.MapSize",
           [](const MapObj* map) -> int64_t { return static_cast<int64_t>(map->size()); })
      .def("ffi.MapGetItem",
           [](const MapObj* map, AnyView key) -> Any {
             return CopyCellToAny(map->AtCell(CellOf(key)));
           })
      .def("ffi.MapCount",
           [](const MapObj* map, AnyView key) -> int64_t {
             return map->FindValueCell(CellOf(key)) != nullptr ? 1 : 0;
           })
      .def("ffi.MapForwardIterFunctor",
           [](const MapObj* map) -> Function {
             return Function::FromTyped(MapForwardIter(map), "ffi.MapForwardIterFunctor.step");
           })
      .def("ffi.MapGetMissingObject", []() -> ObjectRef { return MissingObject(); })
      .def("ffi.MapGetItemOrMissing",
           [](const MapObj* map, AnyView key) -> Any {
             const TVMFFIAny* cell = map->FindValueCell(CellOf(key));
             if (cell == nullptr) return MissingObject();
             return CopyCellToAny(cell);
           })
      .def("ffi.MapItems", [](const MapObj* map) -> Array<Any> {
        Array<Any> items;
        items.reserve(static_cast<int64_t>(map->size()) * 2);
        for (auto it = map->begin(); it != map->end(); ++it) {
          items.push_back(it.key());
          items.push_back(it.value());
        }
        return items;
      });
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
