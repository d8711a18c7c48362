/*
 * Reflection-driven operations on whole object graphs, as upstream's globals:
 *
 *   ffi.DeepCopy(value) -> a copy sharing nothing mutable with `value`
 *   ffi.ReprPrint(value) -> str
 *
 * called by tvm/ffi/extra/dataclass.h.
 *
 * DeepCopy: POD values, strings, bytes, shapes and enum singletons
 * (tvm/ffi/enum.h) are returned as they are;
 * Array/List/Map/Dict are rebuilt with copied elements; any other object is
 * copied with its type's `__ffi_shallow_copy__` attribute (ObjectDef sets it
 * for copy-constructible classes) and then its reflected fields are replaced
 * by their copies. Sharing is kept (an object reached twice is copied once)
 * and cycles through mutable nodes are reproduced. An object without
 * `__ffi_shallow_copy__` (a Function, a Tensor, ...) is a TypeError naming
 * its type.
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
 */
#include <tvm/ffi/any.h>
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

#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "builtin_def.h"

namespace tvm {
namespace ffi {
namespace {

std::string ToStd(const String& s) { return std::string(s.data(), s.size()); }

std::string_view TypeKeyOf(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  return std::string_view(info->type_key.data, info->type_key.size);
}

const Object* ObjectOf(const Any& value) {
  return reinterpret_cast<const Object*>(details::AnyUnsafe::TVMFFIAnyPtrFromAny(value)->v_obj);
}

// ---------------------------------------------------------------------------
// DeepCopy

class DeepCopier {
 public:
  Any Copy(const Any& value) {
    int32_t ti = value.type_index();
    if (ti < TypeIndex::kTVMFFIStaticObjectBegin || ti == TypeIndex::kTVMFFIStr ||
        ti == TypeIndex::kTVMFFIBytes || ti == TypeIndex::kTVMFFIShape) {
      return value;
    }
    const Object* obj = ObjectOf(value);
    if (obj->IsInstance<EnumObj>()) return value;  // a singleton: never copied
    auto done = copies_.find(obj);
    if (done != copies_.end()) return done->second;
    switch (ti) {
      case TypeIndex::kTVMFFIArray: {
        const auto* seq = static_cast<const SeqBaseObj*>(obj);
        Array<Any> out;
        out.reserve(static_cast<int64_t>(seq->size()));
        for (const Any& item : *seq) out.push_back(Copy(item));
        return Remember(obj, std::move(out));
      }
      case TypeIndex::kTVMFFIMap: {
        const auto* map = static_cast<const MapBaseObj*>(obj);
        Map<Any, Any> out;
        for (auto it = map->begin(); it != map->end(); ++it) {
          out.Set(Copy(it.key()), Copy(it.value()));
        }
        return Remember(obj, std::move(out));
      }
      case TypeIndex::kTVMFFIList: {
        // Mutable: remembered before its elements, so a cycle finds it.
        List<Any> out;
        Remember(obj, out);
        for (const Any& item : *static_cast<const SeqBaseObj*>(obj)) out.push_back(Copy(item));
        return out;
      }
      case TypeIndex::kTVMFFIDict: {
        Dict<Any, Any> out;
        Remember(obj, out);
        const auto* map = static_cast<const MapBaseObj*>(obj);
        for (auto it = map->begin(); it != map->end(); ++it) {
          out.Set(Copy(it.key()), Copy(it.value()));
        }
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

  Any CopyObject(const ObjectRef& obj) {
    static const reflection::TypeAttrColumn shallow_copy(reflection::type_attr::kShallowCopy);
    int32_t ti = obj->type_index();
    AnyView fn = shallow_copy[ti];
    if (fn == nullptr) {
      TVM_FFI_THROW(TypeError) << "DeepCopy: cannot copy an object of type `" << TypeKeyOf(ti)
                               << "` (it has no __ffi_shallow_copy__; register the type with "
                                  "ObjectDef and make it copy-constructible)";
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

// ---------------------------------------------------------------------------
// ReprPrint

void AppendQuoted(std::string* out, std::string_view text, bool bytes) {
  if (bytes) out->push_back('b');
  out->push_back('"');
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\r':
        out->append("\\r");
        break;
      default:
        // Bytes show every non-ASCII byte escaped; strings keep UTF-8 as is.
        if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80)) {
          char buf[5];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out->append(buf);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

class ReprPrinter {
 public:
  static constexpr size_t kMaxReprDepth = 1000;

  std::string Repr(const Any& value) {
    const TVMFFIAny* cell = details::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
    std::string_view text;
    int32_t kind;
    if (details::StringLikeView(cell, &text, &kind)) {
      std::string out;
      AppendQuoted(&out, text, kind == TypeIndex::kTVMFFIBytes);
      return out;
    }
    switch (cell->type_index) {
      case TypeIndex::kTVMFFINone:
        return "None";
      case TypeIndex::kTVMFFIBool:
        return cell->v_int64 != 0 ? "True" : "False";
      case TypeIndex::kTVMFFIInt:
        return std::to_string(cell->v_int64);
      case TypeIndex::kTVMFFIFloat: {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%g", cell->v_float64);
        return buf;
      }
      case TypeIndex::kTVMFFIDataType:
        return ToStd(DLDataTypeToString(cell->v_dtype));
      case TypeIndex::kTVMFFIDevice:
        return DLDeviceToString(cell->v_device);
      default:
        break;
    }
    if (cell->type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
      return std::string(TypeKeyOf(cell->type_index));
    }
    const Object* obj = ObjectOf(value);
    auto state = done_.find(obj);
    if (state != done_.end()) return state->second;
    // A cycle, or nesting deep enough to threaten the stack, prints as "...".
    if (active_.count(obj) != 0 || active_.size() >= kMaxReprDepth) return "...";
    active_.insert(obj);
    std::string out = ReprObject(value, obj, cell->type_index);
    active_.erase(obj);
    done_[obj] = out;
    return out;
  }

 private:
  std::string ReprObject(const Any& value, const Object* obj, int32_t ti) {
    std::string out;
    switch (ti) {
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList: {
        const auto* seq = static_cast<const SeqBaseObj*>(obj);
        bool tuple = ti == TypeIndex::kTVMFFIArray;
        out.push_back(tuple ? '(' : '[');
        for (size_t i = 0; i < seq->size(); ++i) {
          if (i != 0) out.append(", ");
          out.append(Repr((*seq)[static_cast<int64_t>(i)]));
        }
        if (tuple && seq->size() == 1) out.push_back(',');
        out.push_back(tuple ? ')' : ']');
        return out;
      }
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict: {
        const auto* map = static_cast<const MapBaseObj*>(obj);
        out.push_back('{');
        for (auto it = map->begin(); it != map->end(); ++it) {
          if (it != map->begin()) out.append(", ");
          out.append(Repr(it.key())).append(": ").append(Repr(it.value()));
        }
        out.push_back('}');
        return out;
      }
      case TypeIndex::kTVMFFIShape: {
        const auto* shape = static_cast<const ShapeObj*>(obj);
        out = "Shape(";
        for (size_t i = 0; i < shape->size; ++i) {
          if (i != 0) out.append(", ");
          out.append(std::to_string(shape->data[i]));
        }
        return out + ")";
      }
      case TypeIndex::kTVMFFITensor: {
        const DLTensor* t = static_cast<const DLTensor*>(static_cast<const TensorObj*>(obj));
        out = ToStd(DLDataTypeToString(t->dtype)) + "[";
        for (int i = 0; i < t->ndim; ++i) {
          if (i != 0) out.append(", ");
          out.append(std::to_string(t->shape[i]));
        }
        return out + "]@" + DLDeviceToString(t->device);
      }
      default:
        break;
    }
    static const reflection::TypeAttrColumn custom(reflection::type_attr::kRepr);
    AnyView fn = custom[ti];
    if (fn != nullptr) {
      if (repr_fn_ == nullptr) {
        repr_fn_ = Function::FromTyped([this](AnyView v) { return String(Repr(Any(v))); });
      }
      return ToStd(fn.cast<Function>()(value, repr_fn_).cast<String>());
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
    out = std::string(info->type_key.data, info->type_key.size);
    if (const EnumObj* e = value.as<EnumObj>()) return out + "." + ToStd(e->_str_index);
    bool first = true;
    ObjectRef ref = value.cast<ObjectRef>();
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) {
      if (f->flags & kTVMFFIFieldFlagBitMaskReprOff) return;
      out.append(first ? "(" : ", ");
      first = false;
      out.append(f->name.data, f->name.size).append("=");
      out.append(Repr(reflection::FieldGetter(f)(ref)));
    });
    if (!first) out.push_back(')');
    return out;
  }

  std::unordered_set<const Object*> active_;
  std::unordered_map<const Object*, std::string> done_;
  Function repr_fn_;
};

[[maybe_unused]] const bool kDataclassBuiltinsRegistered = [] {
  tvmffi::rt::BuiltinDef()
      .def("ffi.DeepCopy", [](const Any& value) { return DeepCopier().Copy(value); })
      .def("ffi.ReprPrint", [](const Any& value) { return String(ReprPrinter().Repr(value)); });
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
