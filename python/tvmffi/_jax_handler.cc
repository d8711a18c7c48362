// XLA FFI handlers that call TVM-FFI functions (tvmffi.jax).
//
// Compiled by tvmffi.jax at first use, on the machine that runs JAX, against
// the XLA FFI C API header that jaxlib ships (jax.ffi.include_dir()) and the
// package's runtime. XLA gives a handler no per-target context, so the
// library holds a table of slots and one handler per slot (handler_for_slot);
// tvmffi.jax binds a function and its parameter plan to a slot, then
// registers that slot's handler under the target name.
//
// A call: every XLA buffer becomes a DLTensor* view (no copy), attributes
// become TVM-FFI scalars/strings, XLA's stream for the device is set in the
// environment stream table for the call, and a raised error becomes an
// XLA_FFI_Error carrying "<kind>: <message>".
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "xla/ffi/api/c_api.h"

#define TVMFFI_JAX_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kNumSlots = 512;
constexpr int kInline = 16;  // arguments handled without a heap allocation

// One parameter of the function, in order.
struct Param {
  enum Kind : uint8_t {
    kBuffer,    // the next XLA buffer
    kBuffers,   // all remaining XLA buffers
    kAttr,      // the attribute named `name`
    kOnlyAttr,  // the one attribute XLA passes, whatever its name (none: nothing)
  } kind;
  std::string name;
};

struct Binding {
  TVMFFIObjectHandle fn = nullptr;  // a strong reference
  bool cuda = false;                // platform CUDA (else host)
  bool outputs_first = false;       // results before arguments
  std::vector<Param> params;
  std::string target;  // for messages
};

std::atomic<Binding*> g_slots[kNumSlots];

XLA_FFI_Error* MakeError(const XLA_FFI_Api* api, XLA_FFI_Error_Code code, const std::string& msg) {
  XLA_FFI_Error_Create_Args args;
  std::memset(&args, 0, sizeof(args));
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.message = msg.c_str();  // copied by XLA
  args.errc = code;
  return api->XLA_FFI_Error_Create(&args);
}

bool ToDLDataType(XLA_FFI_DataType t, DLDataType* out) {
  auto set = [out](uint8_t code, uint8_t bits) {
    *out = DLDataType{code, bits, 1};
    return true;
  };
  switch (t) {
    case XLA_FFI_DataType_PRED:
      return set(kDLBool, 8);
    case XLA_FFI_DataType_S8:
      return set(kDLInt, 8);
    case XLA_FFI_DataType_S16:
      return set(kDLInt, 16);
    case XLA_FFI_DataType_S32:
      return set(kDLInt, 32);
    case XLA_FFI_DataType_S64:
      return set(kDLInt, 64);
    case XLA_FFI_DataType_U8:
      return set(kDLUInt, 8);
    case XLA_FFI_DataType_U16:
      return set(kDLUInt, 16);
    case XLA_FFI_DataType_U32:
      return set(kDLUInt, 32);
    case XLA_FFI_DataType_U64:
      return set(kDLUInt, 64);
    case XLA_FFI_DataType_F16:
      return set(kDLFloat, 16);
    case XLA_FFI_DataType_F32:
      return set(kDLFloat, 32);
    case XLA_FFI_DataType_F64:
      return set(kDLFloat, 64);
    case XLA_FFI_DataType_BF16:
      return set(kDLBfloat, 16);
    case XLA_FFI_DataType_C64:
      return set(kDLComplex, 64);
    case XLA_FFI_DataType_C128:
      return set(kDLComplex, 128);
    case XLA_FFI_DataType_F8E5M2:
      return set(kDLFloat8_e5m2, 8);
    case XLA_FFI_DataType_F8E4M3FN:
      return set(kDLFloat8_e4m3fn, 8);
    case XLA_FFI_DataType_F8E4M3B11FNUZ:
      return set(kDLFloat8_e4m3b11fnuz, 8);
    case XLA_FFI_DataType_F8E5M2FNUZ:
      return set(kDLFloat8_e5m2fnuz, 8);
    case XLA_FFI_DataType_F8E4M3FNUZ:
      return set(kDLFloat8_e4m3fnuz, 8);
    case XLA_FFI_DataType_F8E4M3:
      return set(kDLFloat8_e4m3, 8);
    case XLA_FFI_DataType_F8E3M4:
      return set(kDLFloat8_e3m4, 8);
    default:
      return false;
  }
}

// An XLA scalar attribute as a TVM-FFI value.
bool ScalarToAny(const XLA_FFI_Scalar* s, TVMFFIAny* out) {
  out->zero_padding = 0;
  out->v_int64 = 0;
  const void* v = s->value;
  switch (s->dtype) {
    case XLA_FFI_DataType_PRED:
      out->type_index = kTVMFFIBool;
      out->v_int64 = *static_cast<const uint8_t*>(v) != 0;
      return true;
#define TVMFFI_JAX_INT(CODE, T)                                     \
  case CODE:                                                        \
    out->type_index = kTVMFFIInt;                                   \
    out->v_int64 = static_cast<int64_t>(*static_cast<const T*>(v)); \
    return true;
      TVMFFI_JAX_INT(XLA_FFI_DataType_S8, int8_t)
      TVMFFI_JAX_INT(XLA_FFI_DataType_S16, int16_t)
      TVMFFI_JAX_INT(XLA_FFI_DataType_S32, int32_t)
      TVMFFI_JAX_INT(XLA_FFI_DataType_S64, int64_t)
      TVMFFI_JAX_INT(XLA_FFI_DataType_U8, uint8_t)
      TVMFFI_JAX_INT(XLA_FFI_DataType_U16, uint16_t)
      TVMFFI_JAX_INT(XLA_FFI_DataType_U32, uint32_t)
      TVMFFI_JAX_INT(XLA_FFI_DataType_U64, uint64_t)
#undef TVMFFI_JAX_INT
    case XLA_FFI_DataType_F32:
      out->type_index = kTVMFFIFloat;
      out->v_float64 = *static_cast<const float*>(v);
      return true;
    case XLA_FFI_DataType_F64:
      out->type_index = kTVMFFIFloat;
      out->v_float64 = *static_cast<const double*>(v);
      return true;
    default:
      return false;
  }
}

XLA_FFI_Error_Code CodeOfKind(const std::string& kind) {
  if (kind == "ValueError" || kind == "TypeError" || kind == "IndexError" || kind == "KeyError" ||
      kind == "AttributeError") {
    return XLA_FFI_Error_Code_INVALID_ARGUMENT;
  }
  if (kind == "NotImplementedError") return XLA_FFI_Error_Code_UNIMPLEMENTED;
  return XLA_FFI_Error_Code_INTERNAL;
}

std::string Str(const TVMFFIByteArray& b) {
  return std::string(b.data != nullptr ? b.data : "", b.size);
}

// The error the function raised, as an XLA error "<kind>: <message>".
XLA_FFI_Error* RaisedToXla(const XLA_FFI_Api* api, const Binding& b) {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) {
    return MakeError(api, XLA_FFI_Error_Code_INTERNAL,
                     "RuntimeError: tvmffi function of XLA FFI target '" + b.target +
                         "' failed without an error");
  }
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  const std::string kind = Str(cell->kind);
  std::string msg = kind + ": " + Str(cell->message);
  TVMFFIObjectDecRef(err);
  return MakeError(api, CodeOfKind(kind), msg);
}

std::string AttrName(const XLA_FFI_Attrs& attrs, int64_t i) {
  const XLA_FFI_ByteSpan* n = attrs.names[i];
  return std::string(n->ptr, n->len);
}

std::string AttrList(const XLA_FFI_Attrs& attrs) {
  std::string s = "[";
  for (int64_t i = 0; i < attrs.size; ++i) s += (i ? ", " : "") + AttrName(attrs, i);
  return s + "]";
}

// Fills the metadata XLA asks for at registration (API version, no traits).
XLA_FFI_Error* FillMetadata(XLA_FFI_CallFrame* frame) {
  auto* ext = reinterpret_cast<XLA_FFI_Metadata_Extension*>(frame->extension_start);
  ext->metadata->api_version.major_version = XLA_FFI_API_MAJOR;
  ext->metadata->api_version.minor_version = XLA_FFI_API_MINOR;
  ext->metadata->traits = 0;
  return nullptr;
}

// A vector with kInline elements on the stack.
template <typename T>
struct SmallVec {
  T inline_items[kInline];
  std::vector<T> heap;
  T* data = inline_items;
  void resize(size_t n) {
    if (n > kInline) {
      heap.resize(n);
      data = heap.data();
    }
  }
  T& operator[](size_t i) { return data[i]; }
};

XLA_FFI_Error* Run(int slot, XLA_FFI_CallFrame* frame) {
  if (frame->extension_start != nullptr &&
      frame->extension_start->type == XLA_FFI_Extension_Metadata) {
    return FillMetadata(frame);
  }
  const XLA_FFI_Api* api = frame->api;
  if (frame->stage != XLA_FFI_ExecutionStage_EXECUTE) return nullptr;
  const Binding* b = g_slots[slot].load(std::memory_order_acquire);
  if (b == nullptr) {
    return MakeError(
        api, XLA_FFI_Error_Code_FAILED_PRECONDITION,
        "RuntimeError: tvmffi.jax handler slot " + std::to_string(slot) + " has no function bound");
  }
  // The device: XLA's ordinal on CUDA, the host otherwise.
  DLDevice dev{kDLCPU, 0};
  void* stream = nullptr;
  if (b->cuda) {
    dev.device_type = kDLCUDA;
#ifdef TVMFFI_XLA_HAS_DEVICE_ORDINAL
    XLA_FFI_DeviceOrdinal_Get_Args oargs;
    std::memset(&oargs, 0, sizeof(oargs));
    oargs.struct_size = XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE;
    oargs.ctx = frame->ctx;
    if (XLA_FFI_Error* e = api->XLA_FFI_DeviceOrdinal_Get(&oargs)) return e;
    dev.device_id = oargs.device_ordinal;
#endif
    XLA_FFI_Stream_Get_Args sargs;
    std::memset(&sargs, 0, sizeof(sargs));
    sargs.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE;
    sargs.ctx = frame->ctx;
    if (XLA_FFI_Error* e = api->XLA_FFI_Stream_Get(&sargs)) return e;
    stream = sargs.stream;
  }

  // The buffers in the function's order: arguments then results, or the reverse.
  const int64_t n_args = frame->args.size, n_rets = frame->rets.size;
  const int64_t n_buf = n_args + n_rets;
  SmallVec<DLTensor> tensors;
  tensors.resize(static_cast<size_t>(n_buf));
  for (int64_t k = 0; k < n_buf; ++k) {
    const bool ret = b->outputs_first ? k < n_rets : k >= n_args;
    const int64_t i = b->outputs_first ? (ret ? k : k - n_rets) : (ret ? k - n_args : k);
    const XLA_FFI_Buffer* buf =
        static_cast<const XLA_FFI_Buffer*>(ret ? frame->rets.rets[i] : frame->args.args[i]);
    if (ret ? frame->rets.types[i] != XLA_FFI_RetType_BUFFER
            : frame->args.types[i] != XLA_FFI_ArgType_BUFFER) {
      return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                       "TypeError: XLA FFI target '" + b->target +
                           "': " + (ret ? "result #" : "argument #") + std::to_string(i) +
                           " is not a buffer (tokens are not supported)");
    }
    DLTensor& t = tensors[static_cast<size_t>(k)];
    if (!ToDLDataType(buf->dtype, &t.dtype)) {
      return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                       "TypeError: XLA FFI target '" + b->target +
                           "': " + (ret ? "result #" : "argument #") + std::to_string(i) +
                           " has an XLA element type (" + std::to_string(buf->dtype) +
                           ") with no DLPack equivalent");
    }
    t.data = buf->data;
    t.device = dev;
    t.ndim = static_cast<int32_t>(buf->rank);
    t.shape = buf->dims;  // XLA's row-major dims: borrowed for the call
    t.strides = nullptr;  // compact row-major (ffi_call's default layouts)
    t.byte_offset = 0;
  }

  // The parameters, in the function's order.
  const XLA_FFI_Attrs& attrs = frame->attrs;
  SmallVec<TVMFFIAny> args;
  std::unique_ptr<std::string[]> strs;  // NUL-terminated copies of string attributes
  size_t n_params = 0;
  for (const Param& p : b->params) n_params += p.kind == Param::kBuffers ? n_buf : 1;
  args.resize(n_params + static_cast<size_t>(attrs.size));
  int64_t next_buf = 0, n_strs = 0, used_attrs = 0;
  int32_t n = 0;
  auto put_attr = [&](int64_t i) -> XLA_FFI_Error* {
    TVMFFIAny& a = args[static_cast<size_t>(n++)];
    ++used_attrs;
    if (attrs.types[i] == XLA_FFI_AttrType_SCALAR) {
      if (ScalarToAny(static_cast<const XLA_FFI_Scalar*>(attrs.attrs[i]), &a)) return nullptr;
    } else if (attrs.types[i] == XLA_FFI_AttrType_STRING) {
      const XLA_FFI_ByteSpan* s = static_cast<const XLA_FFI_ByteSpan*>(attrs.attrs[i]);
      if (strs == nullptr) strs.reset(new std::string[static_cast<size_t>(attrs.size)]);
      std::string& copy = strs[static_cast<size_t>(n_strs++)];
      copy.assign(s->ptr, s->len);
      a.type_index = kTVMFFIRawStr;
      a.zero_padding = 0;
      a.v_c_str = copy.c_str();
      return nullptr;
    }
    return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                     "TypeError: XLA FFI target '" + b->target + "': attribute '" +
                         AttrName(attrs, i) +
                         "' has a type tvmffi.jax cannot pass (scalars of bool, int and float "
                         "types, and strings, can be passed)");
  };
  for (const Param& p : b->params) {
    switch (p.kind) {
      case Param::kBuffer:
        if (next_buf >= n_buf) {
          size_t want = 0;
          for (const Param& q : b->params) want += q.kind == Param::kBuffer;
          return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                           "TypeError: XLA FFI target '" + b->target + "': the function takes " +
                               std::to_string(want) + " tensors, but the call has " +
                               std::to_string(n_args) + " arguments and " + std::to_string(n_rets) +
                               " results");
        }
        [[fallthrough]];
      case Param::kBuffers: {
        const int64_t end = p.kind == Param::kBuffer ? next_buf + 1 : n_buf;
        for (; next_buf < end; ++next_buf) {
          TVMFFIAny& a = args[static_cast<size_t>(n++)];
          a.type_index = kTVMFFIDLTensorPtr;
          a.zero_padding = 0;
          a.v_ptr = &tensors[static_cast<size_t>(next_buf)];
        }
        break;
      }
      case Param::kAttr: {
        int64_t found = -1;
        for (int64_t i = 0; i < attrs.size && found < 0; ++i) {
          const XLA_FFI_ByteSpan* nm = attrs.names[i];
          if (nm->len == p.name.size() && std::memcmp(nm->ptr, p.name.data(), nm->len) == 0) {
            found = i;
          }
        }
        if (found < 0) {
          return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                           "TypeError: XLA FFI target '" + b->target + "': missing attribute '" +
                               p.name + "' (the call has " + AttrList(attrs) + ")");
        }
        if (XLA_FFI_Error* e = put_attr(found)) return e;
        break;
      }
      case Param::kOnlyAttr:
        if (attrs.size > 1) {
          return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                           "TypeError: XLA FFI target '" + b->target + "': the call has " +
                               std::to_string(attrs.size) + " attributes " + AttrList(attrs) +
                               "; say their order with register_ffi_target(..., attrs=[...])");
        }
        if (attrs.size == 1) {
          if (XLA_FFI_Error* e = put_attr(0)) return e;
        }
        break;
    }
  }
  if (next_buf != n_buf) {
    return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                     "TypeError: XLA FFI target '" + b->target + "': the function takes " +
                         std::to_string(next_buf) + " tensors, but the call has " +
                         std::to_string(n_args) + " arguments and " + std::to_string(n_rets) +
                         " results");
  }
  if (used_attrs != attrs.size) {
    return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                     "TypeError: XLA FFI target '" + b->target + "': the call has attributes " +
                         AttrList(attrs) + ", the function takes " + std::to_string(used_attrs) +
                         " of them");
  }

  TVMFFIStreamHandle prev = nullptr;
  if (b->cuda && TVMFFIEnvSetStream(dev.device_type, dev.device_id, stream, &prev) != 0) {
    return RaisedToXla(api, *b);
  }
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  const int rc = TVMFFIFunctionCall(b->fn, &args[0], n, &result);
  if (b->cuda) TVMFFIEnvSetStream(dev.device_type, dev.device_id, prev, nullptr);
  if (rc != 0) return RaisedToXla(api, *b);
  // XLA has no place for a returned value: it is dropped.
  if (result.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(result.v_obj);
  return nullptr;
}

template <int I>
XLA_FFI_Error* SlotHandler(XLA_FFI_CallFrame* frame) {
  return Run(I, frame);
}

template <int... I>
constexpr std::array<XLA_FFI_Handler*, sizeof...(I)> MakeTable(std::integer_sequence<int, I...>) {
  return {&SlotHandler<I>...};
}

}  // namespace

namespace {
const std::array<XLA_FFI_Handler*, kNumSlots> kHandlers =
    MakeTable(std::make_integer_sequence<int, kNumSlots>{});
}  // namespace

/*! \brief The number of slots. */
TVMFFI_JAX_EXPORT int tvmffi_jax_num_slots() {
  return kNumSlots;
}

/*! \brief The XLA_FFI_Handler* of a slot, or NULL when out of range. */
TVMFFI_JAX_EXPORT void* tvmffi_jax_handler(int slot) {
  return slot >= 0 && slot < kNumSlots ? reinterpret_cast<void*>(kHandlers[slot]) : nullptr;
}

/*!
 * \brief Bind a function to a slot (takes a new reference of `fn`).
 * \param plan One parameter per line: "B" (the next buffer), "*" (all remaining
 *        buffers), "@name" (the attribute `name`), "?" (the one attribute, if any).
 * \return 0, or -1 for a bad slot or plan.
 */
TVMFFI_JAX_EXPORT int tvmffi_jax_bind(int slot, void* fn, int cuda, int outputs_first,
                                      const char* plan, const char* target) {
  if (slot < 0 || slot >= kNumSlots || fn == nullptr) return -1;
  Binding* b = new (std::nothrow) Binding();
  if (b == nullptr) return -1;
  b->cuda = cuda != 0;
  b->outputs_first = outputs_first != 0;
  b->target = target != nullptr ? target : "";
  const std::string text = plan != nullptr ? plan : "";
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string tok = text.substr(start, end - start);
    start = end + 1;
    if (tok == "B") {
      b->params.push_back({Param::kBuffer, ""});
    } else if (tok == "*") {
      b->params.push_back({Param::kBuffers, ""});
    } else if (tok == "?") {
      b->params.push_back({Param::kOnlyAttr, ""});
    } else if (tok.size() > 1 && tok[0] == '@') {
      b->params.push_back({Param::kAttr, tok.substr(1)});
    } else {
      delete b;
      return -1;
    }
  }
  TVMFFIObjectIncRef(fn);
  b->fn = fn;
  // A previous binding is left in place, function included: a call on another
  // thread may still be using it (rebinding a target is rare).
  g_slots[slot].exchange(b, std::memory_order_acq_rel);
  return 0;
}
