/*
 * Global functions over the mutable containers, List and Dict, for C callers
 * and the Python package. Names and signatures follow upstream TVM-FFI
 * (indices are already normalised by the caller: 0 <= i < size):
 *
 *   ffi.List(x0, x1, ...) -> List             ffi.Dict(k0, v0, k1, v1, ...) -> Dict
 *   ffi.ListSize(l) -> int                    ffi.DictSize(d) -> int
 *   ffi.ListGetItem(l, i) -> Any              ffi.DictGetItem(d, k) -> Any (KeyError)
 *   ffi.ListSetItem(l, i, x)                  ffi.DictSetItem(d, k, v)
 *   ffi.ListContains(l, x) -> bool            ffi.DictCount(d, k) -> int (0 or 1)
 *   ffi.ListAppend(l, x)                      ffi.DictErase(d, k) (no-op when absent)
 *   ffi.ListInsert(l, i, x)  (0 <= i <= size) ffi.DictClear(d)
 *   ffi.ListPop(l, i) -> Any                  ffi.DictForwardIterFunctor(d) -> Function
 *   ffi.ListErase(l, i)                           (0 key, 1 value, 2 advance)
 *   ffi.ListEraseRange(l, start, stop)        ffi.DictGetItemOrMissing(d, k) -> value or
 *   ffi.ListReplaceSlice(l, start, stop, r)       ffi.MapGetMissingObject()
 *   ffi.ListReverse(l)
 *   ffi.ListClear(l)
 *
 * Every operation changes the one shared object in place: all holders see it.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/function.h>

#include <algorithm>
#include <vector>

#include "builtin_def.h"

namespace tvm {
namespace ffi {
namespace {

const TVMFFIAny* CellOf(const AnyView& view) {
  return detail::AnyUnsafe::TVMFFIAnyPtrFromAnyView(view);
}

Any CopyCellToAny(const TVMFFIAny* cell) {
  return Any(AnyView::CopyFromTVMFFIAny(*cell));
}

// A List argument as a reference to the caller's object (never a copy: an
// Array would convert to a new List and the edit would be lost).
List<Any> SharedList(const ListObj* list) {
  return List<Any>(GetObjectPtr<Object>(const_cast<ListObj*>(list)));
}

Dict<Any, Any> SharedDict(const DictObj* dict) {
  return Dict<Any, Any>(GetObjectPtr<Object>(const_cast<DictObj*>(dict)));
}

void CheckIndex(const char* name, int64_t i, size_t size) {
  if (i < 0 || i >= static_cast<int64_t>(size)) {
    TVM_FFI_THROW(IndexError) << name << ": index " << i << " out of range for a List of size "
                              << size;
  }
}

void CheckRange(const char* name, int64_t start, int64_t stop, size_t size) {
  if (start < 0 || start > stop || stop > static_cast<int64_t>(size)) {
    TVM_FFI_THROW(IndexError) << name << ": range [" << start << ", " << stop
                              << ") is not within a List of size " << size;
  }
}

// Walks a Dict for ffi.DictForwardIterFunctor. Holds the dict; the walk ends
// (IndexError) rather than reading stale entries when the dict shrinks under it.
class DictForwardIter {
 public:
  explicit DictForwardIter(const DictObj* dict)
      : dict_(GetObjectPtr<DictObj>(const_cast<DictObj*>(dict))),
        iter_(dict->begin()),
        size_(dict->size()) {}

  Any operator()(int command) const {
    switch (command) {
      case 0:
        CheckValid();
        return CopyCellToAny(iter_.key_cell());
      case 1:
        CheckValid();
        return CopyCellToAny(iter_.value_cell());
      case 2:
        CheckValid();
        ++iter_;
        return iter_ != dict_->end();
      default:
        TVM_FFI_THROW(ValueError) << "ffi.DictForwardIterFunctor: unknown command " << command
                                  << " (0: key, 1: value, 2: advance)";
    }
    TVM_FFI_UNREACHABLE();
  }

 private:
  void CheckValid() const {
    if (dict_->size() != size_) {
      TVM_FFI_THROW(RuntimeError) << "ffi.DictForwardIterFunctor: the Dict changed size during "
                                     "iteration (from "
                                  << size_ << " to " << dict_->size() << ")";
    }
    if (iter_ == dict_->end()) {
      TVM_FFI_THROW(IndexError) << "ffi.DictForwardIterFunctor: the iteration is past the end of "
                                   "the Dict (size "
                                << dict_->size() << ")";
    }
  }
  ObjectPtr<DictObj> dict_;
  mutable MapBaseObj::iterator iter_;
  size_t size_;
};

const ObjectRef& MissingObject() {
  // ffi.MapGetItemOrMissing's sentinel, so one test serves both mappings.
  static const ObjectRef* missing =
      new ObjectRef(Function::GetGlobalRequired("ffi.MapGetMissingObject")().cast<ObjectRef>());
  return *missing;
}

using tvmffi::rt::BuiltinDef;

[[maybe_unused]] const bool kListDictGlobalsRegistered = [] {
  BuiltinDef()
      .def_packed("ffi.List",
                  [](PackedArgs args, Any* ret) {
                    List<Any> result;
                    result.reserve(args.size());
                    for (int i = 0; i < args.size(); ++i) result.push_back(Any(args[i]));
                    *ret = std::move(result);
                  })
      .def("ffi.ListSize",
           [](const ListObj* list) -> int64_t { return static_cast<int64_t>(list->size()); })
      .def("ffi.ListGetItem",
           [](const ListObj* list, int64_t i) -> Any {
             CheckIndex("ffi.ListGetItem", i, list->size());
             return (*list)[i];
           })
      .def("ffi.ListSetItem",
           [](const ListObj* list, int64_t i, AnyView value) -> void {
             CheckIndex("ffi.ListSetItem", i, list->size());
             SharedList(list).Set(i, Any(value));
           })
      .def("ffi.ListContains",
           [](const ListObj* list, AnyView value) -> bool {
             const TVMFFIAny* cells = static_cast<const TVMFFIAny*>(list->data);
             for (size_t i = 0; i < list->size(); ++i) {
               if (detail::CellContentEqual(cells + i, CellOf(value))) return true;
             }
             return false;
           })
      .def("ffi.ListAppend",
           [](const ListObj* list, AnyView value) -> void {
             SharedList(list).push_back(Any(value));
           })
      .def("ffi.ListInsert",
           [](const ListObj* list, int64_t i, AnyView value) -> void {
             if (i < 0 || i > static_cast<int64_t>(list->size())) {
               TVM_FFI_THROW(IndexError)
                   << "ffi.ListInsert: index " << i << " is not within [0, " << list->size() << "]";
             }
             List<Any> shared = SharedList(list);
             shared.insert(shared.begin() + i, Any(value));
           })
      .def("ffi.ListPop",
           [](const ListObj* list, int64_t i) -> Any {
             CheckIndex("ffi.ListPop", i, list->size());
             Any value = (*list)[i];
             SharedList(list).GetListObj()->erase(i);
             return value;
           })
      .def("ffi.ListErase",
           [](const ListObj* list, int64_t i) -> void {
             CheckIndex("ffi.ListErase", i, list->size());
             SharedList(list).GetListObj()->erase(i);
           })
      .def("ffi.ListEraseRange",
           [](const ListObj* list, int64_t start, int64_t stop) -> void {
             CheckRange("ffi.ListEraseRange", start, stop, list->size());
             SharedList(list).GetListObj()->erase(start, stop);
           })
      .def(
          "ffi.ListReplaceSlice",
          [](const ListObj* list, int64_t start, int64_t stop, const ListObj* replacement) -> void {
            CheckRange("ffi.ListReplaceSlice", start, stop, list->size());
            // Copy first: the replacement may be this very list.
            std::vector<Any> items(replacement->begin(), replacement->end());
            List<Any> shared = SharedList(list);
            shared.GetListObj()->erase(start, stop);
            shared.insert(shared.begin() + start, items.begin(), items.end());
          })
      .def("ffi.ListReverse",
           [](const ListObj* list) -> void {
             // Cells are moved as raw values: ownership stays with the list.
             TVMFFIAny* cells = static_cast<TVMFFIAny*>(list->data);
             std::reverse(cells, cells + list->size());
           })
      .def("ffi.ListClear", [](const ListObj* list) -> void { SharedList(list).clear(); })
      .def_packed("ffi.Dict",
                  [](PackedArgs args, Any* ret) {
                    if (args.size() % 2 != 0) {
                      TVM_FFI_THROW(ValueError)
                          << "ffi.Dict expects key, value pairs (an even number of arguments), "
                             "got "
                          << args.size() << " arguments";
                    }
                    Dict<Any, Any> result;
                    for (int i = 0; i < args.size(); i += 2) {
                      result.Set(Any(args[i]), Any(args[i + 1]));
                    }
                    *ret = std::move(result);
                  })
      .def("ffi.DictSize",
           [](const DictObj* dict) -> int64_t { return static_cast<int64_t>(dict->size()); })
      .def("ffi.DictGetItem",
           [](const DictObj* dict, AnyView key) -> Any {
             return CopyCellToAny(dict->AtCell(CellOf(key)));
           })
      .def("ffi.DictSetItem",
           [](const DictObj* dict, AnyView key, AnyView value) -> void {
             SharedDict(dict).Set(Any(key), Any(value));
           })
      .def("ffi.DictCount",
           [](const DictObj* dict, AnyView key) -> int64_t {
             return dict->FindValueCell(CellOf(key)) != nullptr ? 1 : 0;
           })
      .def("ffi.DictErase",
           [](const DictObj* dict, AnyView key) -> void { SharedDict(dict).erase(Any(key)); })
      .def("ffi.DictClear", [](const DictObj* dict) -> void { SharedDict(dict).clear(); })
      .def("ffi.DictForwardIterFunctor",
           [](const DictObj* dict) -> Function {
             return Function::FromTyped(DictForwardIter(dict), "ffi.DictForwardIterFunctor.step");
           })
      .def("ffi.DictGetItemOrMissing", [](const DictObj* dict, AnyView key) -> Any {
        const TVMFFIAny* cell = dict->FindValueCell(CellOf(key));
        if (cell == nullptr) return MissingObject();
        return CopyCellToAny(cell);
      });
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
