/*
 * The global `ffi.ReprPrint(value) -> str` behind ReprPrint and the
 * operator<< overloads of <tvm/ffi/extra/dataclass.h> (upstream's name and
 * format):
 *
 *   None, True/False, 42, 3.14 (6 significant digits), float32, cuda:0,
 *   "text" (EscapedStringPy), b"by\x00tes", (1, 2) for an Array ("(1,)" for
 *   one element), [1, 2] for a List, {k: v} for a Map or Dict,
 *   Shape(2, 3), float32[2, 3]@cpu:0 for a tensor, and any other object as
 *   type_key(field=value, ...) from the reflection fields of the C ABI
 *   (TVMFFITypeInfo, ancestors' fields first; fields flagged ReprOff left
 *   out; a type without fields prints its key alone). A type attribute
 *   `__ffi_repr__` (a Function (obj, repr_fn) -> str) overrides the format.
 *
 * An object reached again while it is being printed prints "..."; one printed
 * before is reused. Nesting deeper than kMaxDepth prints "...", so printing
 * never fails on a deep value. Errors of a field getter or a hook propagate.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/map_base.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <charconv>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "builtin_def.h"
#include "field_walk.h"

namespace tvm {
namespace ffi {
namespace {

constexpr int kMaxDepth = 1000;

class Printer {
 public:
  std::string Repr(const TVMFFIAny* v, int depth) {
    switch (v->type_index) {
      case TypeIndex::kTVMFFINone:
        return "None";
      case TypeIndex::kTVMFFIBool:
        return v->v_int64 != 0 ? "True" : "False";
      case TypeIndex::kTVMFFIInt:
        return std::to_string(v->v_int64);
      case TypeIndex::kTVMFFIFloat: {
        // As std::ostream prints a double by default (%g).
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof(buf), v->v_float64, std::chars_format::general, 6);
        return std::string(buf, r.ptr);
      }
      case TypeIndex::kTVMFFIDataType:
        return std::string(DLDataTypeToString(v->v_dtype));
      case TypeIndex::kTVMFFIDevice:
        return DLDeviceToString(v->v_device);
      default:
        break;
    }
    std::string_view bytes;
    int32_t klass;
    if (details::StringLikeView(v, &bytes, &klass)) {
      std::string out;
      if (klass == TypeIndex::kTVMFFIStr) {
        details::AppendPyString(&out, bytes);
      } else {
        AppendBytes(&out, bytes);
      }
      return out;
    }
    if (v->type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
      return details::TypeIndexToTypeKey(v->type_index);
    }
    const TVMFFIObject* obj = v->v_obj;
    if (obj == nullptr) return "None";
    auto done = done_.find(obj);
    if (done != done_.end()) return done->second;
    if (open_.count(obj) != 0 || depth > kMaxDepth) return "...";
    open_.insert(obj);
    std::string out = ReprObject(v, depth + 1);
    open_.erase(obj);
    done_.emplace(obj, out);
    return out;
  }

 private:
  static void AppendBytes(std::string* out, std::string_view b) {
    static constexpr char kHex[] = "0123456789abcdef";
    *out += "b\"";
    for (char ch : b) {
      const unsigned char c = static_cast<unsigned char>(ch);
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        out->push_back(ch);
      } else {
        *out += "\\x";
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 0xf]);
      }
    }
    out->push_back('"');
  }

  static std::string Join(const int64_t* data, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      if (i != 0) out += ", ";
      out += std::to_string(data[i]);
    }
    return out;
  }

  std::string ReprObject(const TVMFFIAny* v, int depth) {
    const int32_t index = v->type_index;
    if (std::optional<std::string> custom = CustomRepr(v, depth)) return *std::move(custom);
    switch (index) {
      case TypeIndex::kTVMFFIShape: {
        const TVMFFIShapeCell* s = TVMFFIShapeGetCellPtr(v->v_obj);
        return "Shape(" + Join(s->data, s->size) + ")";
      }
      case TypeIndex::kTVMFFITensor: {
        const DLTensor* t = TVMFFITensorGetDLTensorPtr(v->v_obj);
        return std::string(DLDataTypeToString(t->dtype)) + "[" +
               Join(t->shape, static_cast<size_t>(t->ndim)) + "]@" + DLDeviceToString(t->device);
      }
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList: {
        const TVMFFISeqCell* seq = TVMFFISeqGetCellPtr(v->v_obj);
        const TVMFFIAny* items = static_cast<const TVMFFIAny*>(seq->data);
        const bool tuple = index == TypeIndex::kTVMFFIArray;
        std::string out = tuple ? "(" : "[";
        for (int64_t i = 0; i < seq->size; ++i) {
          if (i != 0) out += ", ";
          out += Repr(items + i, depth);
        }
        if (tuple && seq->size == 1) out += ",";
        out += tuple ? ")" : "]";
        return out;
      }
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict: {
        const MapBaseObj* map = reinterpret_cast<const MapBaseObj*>(v->v_obj);
        std::string out = "{";
        bool first = true;
        for (auto it = map->begin(); it != map->end(); ++it) {
          if (!first) out += ", ";
          first = false;
          out += Repr(it.key_cell(), depth);
          out += ": ";
          out += Repr(it.value_cell(), depth);
        }
        return out + "}";
      }
      default:
        return ReprFields(v, depth);
    }
  }

  // type_key(name=value, ...), ancestors' fields first; a name declared again
  // by a subclass is printed once (the first declaration's value).
  std::string ReprFields(const TVMFFIAny* v, int depth) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(v->type_index);
    if (info == nullptr) return "object(type_index=" + std::to_string(v->type_index) + ")";
    std::string out(info->type_key.data, info->type_key.size);
    std::unordered_set<std::string_view> seen;
    bool any_field = false;
    tvmffi::rt::ForEachField(info, [&](const TVMFFIFieldInfo& f) {
      std::string_view name(f.name.data, f.name.size);
      if ((f.flags & kTVMFFIFieldFlagBitMaskReprOff) != 0 || f.getter == nullptr ||
          !seen.insert(name).second) {
        return;
      }
      Any value;
      void* addr = reinterpret_cast<char*>(v->v_obj) + f.offset;
      TVM_FFI_CHECK_SAFE_CALL(
          f.getter(addr, details::AnyUnsafe::MutableTVMFFIAnyPtrFromAny(&value)));
      out += any_field ? ", " : "(";
      any_field = true;
      out.append(name.data(), name.size()).append("=");
      out += Repr(details::AnyUnsafe::TVMFFIAnyPtrFromAny(value), depth);
    });
    if (any_field) out += ")";
    return out;
  }

  std::optional<std::string> CustomRepr(const TVMFFIAny* v, int depth) {
    static const TVMFFIByteArray kAttr{"__ffi_repr__", 12};
    const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&kAttr);
    if (column == nullptr || column->data == nullptr ||
        static_cast<size_t>(v->type_index) >= column->size) {
      return std::nullopt;
    }
    const TVMFFIAny* hook = column->data + v->type_index;
    if (hook->type_index != TypeIndex::kTVMFFIFunction) return std::nullopt;
    Function fn = AnyView::CopyFromTVMFFIAny(*hook).cast<Function>();
    Function recurse = Function::FromTyped([this, depth](AnyView x) -> String {
      return String(Repr(details::AnyUnsafe::TVMFFIAnyPtrFromAnyView(x), depth));
    });
    return std::string(fn(AnyView::CopyFromTVMFFIAny(*v), recurse).cast<String>());
  }

  std::unordered_set<const TVMFFIObject*> open_;
  std::unordered_map<const TVMFFIObject*, std::string> done_;
};

[[maybe_unused]] const bool kReprGlobalRegistered = [] {
  BuiltinDef().def("ffi.ReprPrint", [](AnyView value) -> String {
    return String(Printer().Repr(details::AnyUnsafe::TVMFFIAnyPtrFromAnyView(value), 0));
  });
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
