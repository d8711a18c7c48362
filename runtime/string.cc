/*
 * String and Bytes objects, and data type parsing/printing.
 */
#include <cstdlib>

#include "internal.h"

namespace tvmffi {
namespace rt {

namespace {

// A String/Bytes object is the C++ layer's BytesObjBase (header + TVMFFIByteArray),
// then the bytes and a NUL in the same allocation.
using ::tvm::ffi::detail::BytesObjBase;
using ::tvm::ffi::detail::kMaxSmallBytesLen;
using ::tvm::ffi::detail::SetSmallBytes;

void BytesObjectDeleter(void* self, int flags) {
  // Nothing to destroy: the payload is plain bytes.
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) FreeObjectMemory(self);
}

}  // namespace

TVMFFIObject* MakeBytesObject(int32_t type_index, const char* data, size_t size) {
  if (size > SIZE_MAX - sizeof(BytesObjBase) - 1) throw std::bad_alloc();
  TVMFFIObject* obj = AllocObject(sizeof(BytesObjBase) + size + 1, type_index, BytesObjectDeleter);
  auto* b = reinterpret_cast<BytesObjBase*>(obj);
  char* dst = reinterpret_cast<char*>(b + 1);
  if (size != 0) std::memcpy(dst, data, size);
  dst[size] = '\0';
  b->data = dst;
  b->size = size;
  return obj;
}

void MakeStringAny(const char* data, size_t size, TVMFFIAny* out) {
  if (size <= kMaxSmallBytesLen) return SetSmallBytes(out, kTVMFFISmallStr, data, size);
  TVMFFIObject* obj = MakeBytesObject(kTVMFFIStr, data, size);
  out->type_index = kTVMFFIStr;
  out->zero_padding = 0;
  out->v_obj = obj;
}

void MakeBytesAny(const char* data, size_t size, TVMFFIAny* out) {
  if (size <= kMaxSmallBytesLen) return SetSmallBytes(out, kTVMFFISmallBytes, data, size);
  TVMFFIObject* obj = MakeBytesObject(kTVMFFIBytes, data, size);
  out->type_index = kTVMFFIBytes;
  out->zero_padding = 0;
  out->v_obj = obj;
}

bool AnyGetBytes(const TVMFFIAny* v, std::string_view* out, const char* what) {
  int32_t klass;
  if (::tvm::ffi::detail::StringLikeView(v, out, &klass)) return true;
  // StringLikeView refuses invalid views; say which argument was one.
  if (v->type_index == kTVMFFIRawStr) Throw("ValueError", what, " is a NULL const char*");
  if (v->type_index == kTVMFFIByteArrayPtr) {
    auto* b = static_cast<const TVMFFIByteArray*>(v->v_ptr);
    if (b == nullptr) Throw("ValueError", what, " is a NULL TVMFFIByteArray*");
    Throw("ValueError", what, " is a TVMFFIByteArray with NULL data with size ", b->size);
  }
  return false;
}

// ---------------------------------------------------------------------------
// Data types
// ---------------------------------------------------------------------------

namespace {

// Names of the type codes; the float8/6/4 codes carry their bit width in the name.
struct CodeName {
  uint8_t code;
  const char* name;
  uint8_t fixed_bits;  // 0: bits are spelled out after the name
};

constexpr CodeName kCodeNames[] = {
    {kDLInt, "int", 0},
    {kDLUInt, "uint", 0},
    {kDLFloat, "float", 0},
    {kDLOpaqueHandle, "handle", 0},
    {kDLBfloat, "bfloat", 0},
    {kDLComplex, "complex", 0},
    {kDLBool, "bool", 0},
    {kDLFloat8_e3m4, "float8_e3m4", 8},
    {kDLFloat8_e4m3, "float8_e4m3", 8},
    {kDLFloat8_e4m3b11fnuz, "float8_e4m3b11fnuz", 8},
    {kDLFloat8_e4m3fn, "float8_e4m3fn", 8},
    {kDLFloat8_e4m3fnuz, "float8_e4m3fnuz", 8},
    {kDLFloat8_e5m2, "float8_e5m2", 8},
    {kDLFloat8_e5m2fnuz, "float8_e5m2fnuz", 8},
    {kDLFloat8_e8m0fnu, "float8_e8m0fnu", 8},
    {kDLFloat6_e2m3fn, "float6_e2m3fn", 6},
    {kDLFloat6_e3m2fn, "float6_e3m2fn", 6},
    {kDLFloat4_e2m1fn, "float4_e2m1fn", 4},
};

// First code of user-defined ("custom[name]") types, as in upstream.
constexpr int kCustomBegin = 129;

[[noreturn]] void BadDType(std::string_view s) {
  Throw("ValueError", "Cannot parse data type `", s, "`");
}

// Parse an unsigned decimal run; returns false when there is none.
bool ParseUInt(std::string_view s, size_t* pos, uint64_t* out) {
  size_t p = *pos;
  uint64_t v = 0;
  while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
    v = v * 10 + static_cast<uint64_t>(s[p] - '0');
    if (v > 0xFFFFFFFFull) return false;
    ++p;
  }
  if (p == *pos) return false;
  *pos = p;
  *out = v;
  return true;
}

// Call a registered global hook (user-defined dtypes), returning an owned Any.
TVMFFIAny CallGlobal(const char* name, const TVMFFIAny& arg) {
  TVMFFIObject* f = GlobalFunctionGet(name);
  if (f == nullptr) {
    Throw("ValueError", "custom data types need the global function `", name,
          "`, which is not registered");
  }
  TVMFFIAny result;
  ::tvm::ffi::detail::SetAnyNone(&result);
  TVMFFIAny a = arg;
  int rc = TVMFFIFunctionCall(f, &a, 1, &result);
  DecRef(f);
  if (rc != 0) ThrowRaised(rc);
  return result;
}

// Upstream's short spellings: i32, u8, f16, bf16, f8_e4m3 / fp8_e4m3, fp6_*, fp4_*.
// Returns the long form in *buf, or `s` itself when it is not short.
std::string_view ExpandDTypeAlias(std::string_view s, std::string* buf) {
  auto digit_at = [&](size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
  struct Alias {
    const char* prefix;
    const char* expansion;
    bool needs_digit;  // the prefix must be followed by a digit
  };
  static constexpr Alias kAliases[] = {
      {"i", "int", true},         {"u", "uint", true},        {"bf", "bfloat", true},
      {"fp8_", "float8_", false}, {"fp6_", "float6_", false}, {"fp4_", "float4_", false},
      {"f", "float", true},
  };
  for (const Alias& a : kAliases) {
    size_t n = std::strlen(a.prefix);
    if (s.compare(0, n, a.prefix) == 0 && (!a.needs_digit || digit_at(n))) {
      *buf = a.expansion;
      buf->append(s.substr(n));
      return *buf;
    }
  }
  return s;
}

DLDataType ParseDType(std::string_view text) {
  // Nothing is no type: the void type is spelled "void" (it prints as "", as
  // upstream's does, so a printed void does not read back: write "void").
  if (text.empty()) {
    Throw("ValueError",
          "Cannot parse data type `` (the string is empty; the void type is "
          "spelled \"void\")");
  }
  std::string expanded;
  std::string_view s = ExpandDTypeAlias(text, &expanded);
  DLDataType t;
  if (s == "void") {
    t.code = kDLOpaqueHandle;
    t.bits = 0;
    t.lanes = 0;
    return t;
  }
  size_t pos = 0;
  bool have_code = false;
  bool fixed_bits = false;
  // Longest matching name wins ("float8_e4m3fn" over "float8_e4m3" over "float").
  size_t best_len = 0;
  for (const CodeName& cn : kCodeNames) {
    size_t n = std::strlen(cn.name);
    if (n > best_len && s.compare(0, n, cn.name) == 0) {
      best_len = n;
      t.code = cn.code;
      t.bits = cn.fixed_bits;
      fixed_bits = cn.fixed_bits != 0;
      have_code = true;
    }
  }
  if (have_code) {
    pos = best_len;
  } else if (s.compare(0, 7, "custom[") == 0) {
    size_t close = s.find(']', 7);
    if (close == std::string_view::npos) BadDType(text);
    std::string_view name = s.substr(7, close - 7);
    // The hook takes a str (as upstream's does), not bytes.
    TVMFFIAny arg;
    MakeStringAny(name.data(), name.size(), &arg);
    TVMFFIAny r;
    try {
      r = CallGlobal("dtype.get_custom_type_code", arg);
    } catch (...) {
      AnyRelease(&arg);
      throw;
    }
    AnyRelease(&arg);
    if (r.type_index != kTVMFFIInt) {
      AnyRelease(&r);
      BadDType(text);
    }
    t.code = static_cast<uint8_t>(r.v_int64);
    pos = close + 1;
  } else {
    BadDType(text);
  }
  // Default widths when the name has no digits ("int" -> int32, "handle" -> 64 bits).
  if (!fixed_bits) {
    switch (t.code) {
      case kDLBool:
        t.bits = 8;
        break;
      case kDLOpaqueHandle:
        t.bits = 64;
        break;
      case kDLBfloat:
        t.bits = 16;
        break;
      default:
        t.bits = 32;
        break;
    }
  }
  t.lanes = 1;
  uint64_t v = 0;
  if (!fixed_bits && ParseUInt(s, &pos, &v)) {
    if (v == 0 || v > 255) BadDType(text);
    t.bits = static_cast<uint8_t>(v);
  }
  // float4_e2m1fn also takes "_xN" for its lanes (upstream: f4_e2m1fn_x2 = float4_e2m1fnx2).
  if (t.code == kDLFloat4_e2m1fn && s.compare(pos, 2, "_x") == 0) ++pos;
  if (pos < s.size()) {
    bool scalable = false;
    if (s.compare(pos, 8, "xvscalex") == 0) {
      scalable = true;
      pos += 8;
    } else if (s[pos] == 'x') {
      pos += 1;
    } else {
      BadDType(text);
    }
    if (!ParseUInt(s, &pos, &v)) BadDType(text);
    // The lanes field is read as int16: negative values are scalable vectors,
    // so fixed counts stop at 32767 and "x40000" would alias "xvscalex25536".
    if (scalable) {
      if (v == 0 || v > 32768) {
        Throw("ValueError", "Cannot parse data type `", text, "`: xvscalex", v,
              " is out of range (1..32768)");
      }
      t.lanes = static_cast<uint16_t>(-static_cast<int32_t>(v));
    } else {
      if (v == 0) BadDType(text);
      if (v > 32767) {
        Throw("ValueError", "Cannot parse data type `", text, "`: ", v,
              " lanes is out of range (1..32767; larger lane fields are scalable vectors, "
              "spelled xvscalexN)");
      }
      t.lanes = static_cast<uint16_t>(v);
    }
  }
  if (pos != s.size()) BadDType(text);
  return t;
}

std::string DTypeToString(DLDataType t) {
  if (t.code == kDLBool && t.bits == 8 && t.lanes == 1) return "bool";
  // void prints as "" (upstream's spelling); only "void" parses back to it.
  if (t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0) return "";
  std::string out;
  const CodeName* found = nullptr;
  for (const CodeName& cn : kCodeNames) {
    if (cn.code == t.code) found = &cn;
  }
  if (found != nullptr) {
    out = found->name;
  } else if (t.code >= kCustomBegin) {
    TVMFFIAny arg;
    arg.type_index = kTVMFFIInt;
    arg.zero_padding = 0;
    arg.v_int64 = t.code;
    TVMFFIAny r = CallGlobal("dtype.get_custom_type_name", arg);
    std::string_view name;
    bool ok = AnyGetBytes(&r, &name, "the result of dtype.get_custom_type_name");
    std::string copy(name);
    AnyRelease(&r);
    if (!ok) Throw("ValueError", "dtype.get_custom_type_name did not return a string");
    out = "custom[" + copy + "]";
  } else {
    Throw("ValueError", "DLDataType has an unknown type code ", static_cast<int>(t.code));
  }
  // Every other value prints to a string that parses back to it.
  bool bits_in_name = found != nullptr && found->fixed_bits != 0;
  if (bits_in_name && t.bits != found->fixed_bits) {
    Throw("ValueError", "DLDataType has type code ", static_cast<int>(t.code), " (`", out, "`, ",
          static_cast<int>(found->fixed_bits), " bits) with ", static_cast<int>(t.bits),
          " bits: no string spells it");
  }
  if (t.bits == 0) {
    Throw("ValueError", "DLDataType `", out, "` with 0 bits has no string form (only void, {",
          static_cast<int>(kDLOpaqueHandle), ", 0, 0}, has 0 bits)");
  }
  bool default_bits =
      (t.code == kDLBool && t.bits == 8) || (t.code == kDLOpaqueHandle && t.bits == 64);
  if (!bits_in_name && !default_bits) out += std::to_string(t.bits);
  int lanes = static_cast<int16_t>(t.lanes);
  if (lanes == 0) {
    Throw("ValueError", "DLDataType `", out, "` with 0 lanes has no string form (only void, {",
          static_cast<int>(kDLOpaqueHandle), ", 0, 0}, has 0 lanes)");
  }
  if (lanes < 0) {
    out += "xvscalex" + std::to_string(-lanes);
  } else if (lanes != 1) {
    out += "x" + std::to_string(lanes);
  }
  return out;
}

}  // namespace
}  // namespace rt
}  // namespace tvmffi

using namespace tvmffi::rt;

extern "C" {

int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckByteArray(input, "TVMFFIStringFromByteArray", "input");
  CheckNotNull(out, "TVMFFIStringFromByteArray", "out");
  MakeStringAny(input->data, input->size, out);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckByteArray(input, "TVMFFIBytesFromByteArray", "input");
  CheckNotNull(out, "TVMFFIBytesFromByteArray", "out");
  MakeBytesAny(input->data, input->size, out);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckByteArray(str, "TVMFFIDataTypeFromString", "str");
  CheckNotNull(out, "TVMFFIDataTypeFromString", "out");
  *out = ParseDType(ViewOf(str));
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(dtype, "TVMFFIDataTypeToString", "dtype");
  CheckNotNull(out, "TVMFFIDataTypeToString", "out");
  std::string s = DTypeToString(*dtype);
  MakeStringAny(s.data(), s.size(), out);
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
