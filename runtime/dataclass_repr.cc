/*
 * ffi.ReprPrint (registered in dataclass.cc, whose header comment gives the
 * format): the ReprPrinter walks a value and writes upstream's text for it,
 * quoting strings and bytes (AppendQuoted), calling a type's `__ffi_repr__`
 * where set, marking an object met again while it is printed as "...", and
 * bounding the text (16 MiB) and the nesting it prints.
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

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dataclass_internal.h"
#include "internal.h"
#include "walk_guard.h"

namespace tvm {
namespace ffi {
namespace dataclass_impl {
namespace {

std::string ToStd(const String& s) {
  return std::string(s.data(), s.size());
}

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
  // The longest text ReprPrint makes. A value whose shared parts print in
  // full again at each use (a DAG) can ask for text exponential in its size;
  // past this it is a ValueError, found in time linear in the text made.
  static constexpr size_t kMaxReprChars = size_t{1} << 24;

  // The text of `value`: the entry point, and the repr function handed to
  // `__ffi_repr__` hooks (which print into a buffer of their own).
  std::string Repr(const Any& value) {
    if (out_ == nullptr) {
      // Upstream's switch: TVM_FFI_REPR_WITH_ADDR=1 adds "@0x<address>" to objects.
      const char* env = std::getenv("TVM_FFI_REPR_WITH_ADDR");
      show_addr_ = env != nullptr && std::string_view(env) == "1";
      out_ = &text_;
      Print(value);
      out_ = nullptr;
      return std::move(text_);
    }
    std::string* saved = out_;
    std::string nested;
    out_ = &nested;
    try {
      Print(value);
    } catch (...) {
      out_ = saved;
      throw;
    }
    out_ = saved;
    return nested;
  }

 private:
  // Text goes to one buffer, never cut back (hooks print into their own): an
  // object printed there once is remembered as the span of its text, and
  // printing it again copies the span. Every character made anywhere, and
  // every object visited, counts against kMaxReprChars, so the work is
  // bounded by the text asked for, however many paths lead to a shared node.
  void Append(std::string_view piece) {
    Charge(piece.size());
    out_->append(piece.data(), piece.size());
  }
  void Charge(size_t more) {
    if (more > kMaxReprChars - made_) {
      TVM_FFI_THROW(ValueError) << "ReprPrint: the text would be longer than " << kMaxReprChars
                                << " characters (shared parts of a value print in full at each "
                                   "use)";
    }
    made_ += more;
  }
  // "@0x<address>" of an object, when TVM_FFI_REPR_WITH_ADDR=1.
  void AppendAddr(const Object* obj) {
    if (!show_addr_) return;
    char buf[32];
    std::snprintf(buf, sizeof(buf), "@0x%" PRIxPTR, reinterpret_cast<uintptr_t>(obj));
    Append(buf);
  }
  // Copies the remembered text of an object (a span of text_) to the output.
  void AppendSpan(size_t offset, size_t length) {
    Charge(length);
    if (out_ == &text_ && text_.capacity() < text_.size() + length) {
      // Grow first: the span is read from the buffer being appended to.
      text_.reserve(std::max(text_.size() + length, 2 * text_.capacity()));
    }
    out_->append(text_.data() + offset, length);
  }

  void Print(const Any& value) {
    const TVMFFIAny* cell = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
    std::string_view text;
    int32_t kind;
    if (detail::StringLikeView(cell, &text, &kind)) {
      std::string out;
      AppendQuoted(&out, text, kind == TypeIndex::kTVMFFIBytes);
      Append(out);
      return;
    }
    switch (cell->type_index) {
      case TypeIndex::kTVMFFINone:
        Append("None");
        return;
      case TypeIndex::kTVMFFIBool:
        Append(cell->v_int64 != 0 ? "True" : "False");
        return;
      case TypeIndex::kTVMFFIInt:
        Append(std::to_string(cell->v_int64));
        return;
      case TypeIndex::kTVMFFIBigInt:  // decimal, as operator<< prints it
        Append(detail::int_ops::ToStringFallback(value.cast<BigInt>()));
        return;
      case TypeIndex::kTVMFFIFloat: {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%g", cell->v_float64);
        Append(buf);
        return;
      }
      case TypeIndex::kTVMFFIDataType:
        Append(ToStd(DLDataTypeToString(cell->v_dtype)));
        return;
      case TypeIndex::kTVMFFIDevice:
        Append(DLDeviceToString(cell->v_device));
        return;
      default:
        break;
    }
    if (cell->type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
      Append(TypeKeyOf(cell->type_index));
      return;
    }
    const Object* obj = ObjectOf(value);
    // Each object visited counts as a character too: a hook that prints
    // nothing of its own still cannot make the work exceed the bound.
    Charge(1);
    auto state = done_.find(obj);
    if (state != done_.end()) {
      AppendSpan(state->second.first, state->second.second);
      return;
    }
    // A cycle, or nesting deep enough to threaten the stack, prints as "...".
    if (active_.count(obj) != 0 || active_.size() >= kMaxReprDepth) {
      Append("...");
      AppendAddr(obj);
      return;
    }
    active_.insert(obj);
    const bool remember = out_ == &text_;
    const size_t start = text_.size();
    try {
      PrintObject(value, obj, cell->type_index);
    } catch (...) {
      active_.erase(obj);
      throw;
    }
    active_.erase(obj);
    if (remember) {
      done_[obj] = {start, text_.size() - start};
      // Keep the object alive so that its address is not reused in this print.
      keep_.push_back(value);
    }
  }

  void PrintObject(const Any& value, const Object* obj, int32_t ti) {
    switch (ti) {
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList: {
        const auto* seq = static_cast<const SeqBaseObj*>(obj);
        bool tuple = ti == TypeIndex::kTVMFFIArray;
        Append(tuple ? "(" : "[");
        // A snapshot: a __ffi_repr__ hook may change the list (walk_guard.h).
        const tvmffi::rt::StableItems items(seq);
        for (size_t i = 0; i < items.size(); ++i) {
          if (i != 0) Append(", ");
          Print(items[i]);
        }
        if (tuple && items.size() == 1) Append(",");
        Append(tuple ? ")" : "]");
        AppendAddr(obj);
        return;
      }
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict: {
        const auto* map = static_cast<const MapBaseObj*>(obj);
        Append("{");
        bool first = true;
        for (const auto& [key, val] : tvmffi::rt::StableEntries(map)) {
          if (!first) Append(", ");
          first = false;
          Print(key);
          Append(": ");
          Print(val);
        }
        Append("}");
        AppendAddr(obj);
        return;
      }
      case TypeIndex::kTVMFFIShape: {
        const auto* shape = static_cast<const ShapeObj*>(obj);
        std::string out = "Shape(";
        for (size_t i = 0; i < shape->size; ++i) {
          if (i != 0) out.append(", ");
          out.append(std::to_string(shape->data[i]));
        }
        Append(out + ")");
        return;
      }
      case TypeIndex::kTVMFFITensor: {
        const DLTensor* t = static_cast<const DLTensor*>(static_cast<const TensorObj*>(obj));
        std::string out = ToStd(DLDataTypeToString(t->dtype)) + "[";
        for (int i = 0; i < t->ndim; ++i) {
          if (i != 0) out.append(", ");
          out.append(std::to_string(t->shape[i]));
        }
        Append(out + "]@" + DLDeviceToString(t->device));
        AppendAddr(obj);
        return;
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
      String out = fn.cast<Function>()(value, repr_fn_).cast<String>();
      Append(std::string_view(out.data(), out.size()));
      return;
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
    Append(std::string_view(info->type_key.data, info->type_key.size));
    if (const EnumObj* e = value.as<EnumObj>()) {
      Append(".");
      Append(ToStd(e->_str_index));
      AppendAddr(obj);
      return;
    }
    AppendAddr(obj);
    bool first = true;
    ObjectRef ref = value.cast<ObjectRef>();
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) {
      if (f->flags & kTVMFFIFieldFlagBitMaskReprOff) return;
      Append(first ? "(" : ", ");
      first = false;
      Append(std::string_view(f->name.data, f->name.size));
      Append("=");
      Print(reflection::FieldGetter(f)(ref));
    });
    if (!first) Append(")");
  }

  std::string text_;
  std::string* out_ = nullptr;  // where Print appends: text_, or a hook's buffer
  size_t made_ = 0;             // characters made so far, in every buffer
  bool show_addr_ = false;      // TVM_FFI_REPR_WITH_ADDR=1 at the outermost call
  std::unordered_set<const Object*> active_;
  std::unordered_map<const Object*, std::pair<size_t, size_t>> done_;
  std::vector<Any> keep_;
  Function repr_fn_;
};

}  // namespace

std::string ReprOf(const Any& value) {
  return ReprPrinter().Repr(value);
}

}  // namespace dataclass_impl
}  // namespace ffi
}  // namespace tvm
