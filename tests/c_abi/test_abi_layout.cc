// Frozen layouts of the C++ records that another binary reads inline.
//
// A kernel library compiled against these headers reads objects made by
// libtvmffi, or by another library, through the C++ classes below without a
// call: the refcount word of the header, the payload cell after it, the tag in
// the header's __padding word, the fields a Function made by these headers
// keeps after its cell. Changing any of them is a major ABI change (see the
// "Versioning" section of c_api.h). Building this file is the test; main()
// only gives ctest something to run. The C structs themselves are pinned in
// test_layout.c; Map/List/Dict are pinned with their own layout.
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ffi = tvm::ffi;
namespace detail = tvm::ffi::detail;

// The payload classes derive from Object and a C cell, so they are not
// standard-layout; offsetof is still exact for them on GCC and Clang (no
// virtual bases), which is all this test needs.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#endif

#define SIZE_IS(T, n) static_assert(sizeof(T) == (n), "sizeof(" #T ") != " #n)
#define ALIGN_IS(T, n) static_assert(alignof(T) == (n), "alignof(" #T ") != " #n)
#define OFFSET_IS(T, f, n) static_assert(offsetof(T, f) == (n), "offsetof(" #T ", " #f ") != " #n)
#define NOT_POLYMORPHIC(T) \
  static_assert(!std::is_polymorphic_v<T>, #T " must have no vtable (C code reads it)")

// ---- The object header: Object is exactly a TVMFFIObject. -------------------
SIZE_IS(ffi::Object, 24);
ALIGN_IS(ffi::Object, 8);
NOT_POLYMORPHIC(ffi::Object);
static_assert(std::is_standard_layout_v<ffi::Object>, "Object: its header must sit at offset 0");
OFFSET_IS(TVMFFIObject, combined_ref_count, 0);
OFFSET_IS(TVMFFIObject, type_index, 8);
OFFSET_IS(TVMFFIObject, __padding, 12);
OFFSET_IS(TVMFFIObject, deleter, 16);
// The strong count is the low 32 bits of combined_ref_count, the weak count the high.
static_assert(detail::kCombinedRefCountWeakOne == (uint64_t{1} << 32), "weak count unit");

// ---- The __padding tag: marks Functions made by these headers. --------------
// 0 for every other object. A library reads it inline before it trusts the
// FunctionObjCppBase fields below, so the value is part of the ABI.
static_assert(detail::kCppFunctionMagic == 0x63666674u, "__padding tag of C++ Functions");
static_assert(std::is_same_v<decltype(TVMFFIObject::__padding), uint32_t>, "__padding is 32-bit");

// ---- Any and AnyView: exactly a TVMFFIAny (arrays of them are passed as
// TVMFFIAny arrays). ----------------------------------------------------------
SIZE_IS(ffi::AnyView, 16);
ALIGN_IS(ffi::AnyView, 8);
SIZE_IS(ffi::Any, 16);
ALIGN_IS(ffi::Any, 8);
NOT_POLYMORPHIC(ffi::AnyView);
NOT_POLYMORPHIC(ffi::Any);
static_assert(std::is_standard_layout_v<ffi::AnyView>, "AnyView: the cell sits at offset 0");
static_assert(std::is_standard_layout_v<ffi::Any>, "Any: the cell sits at offset 0");

// ---- BigInt: header + size_t word count, then the int64 words (at 32). --------
SIZE_IS(detail::BigIntObj, 32);
ALIGN_IS(detail::BigIntObj, 8);
NOT_POLYMORPHIC(detail::BigIntObj);
static_assert(detail::BigIntObj::_type_index == 78, "ffi.BigInt's static type index");
// A BigInt is one cell: passed and stored as a TVMFFIAny.
SIZE_IS(ffi::BigInt, 16);
ALIGN_IS(ffi::BigInt, 8);
NOT_POLYMORPHIC(ffi::BigInt);

// ---- String and Bytes: header + TVMFFIByteArray. ----------------------------
OFFSET_IS(detail::StringObj, data, 24);
OFFSET_IS(detail::StringObj, size, 32);
SIZE_IS(detail::StringObj, 40);
OFFSET_IS(detail::BytesObj, data, 24);
OFFSET_IS(detail::BytesObj, size, 32);
SIZE_IS(detail::BytesObj, 40);
NOT_POLYMORPHIC(detail::StringObj);
NOT_POLYMORPHIC(detail::BytesObj);

// ---- Error: header + TVMFFIErrorCell. ---------------------------------------
OFFSET_IS(ffi::ErrorObj, kind, 24);
OFFSET_IS(ffi::ErrorObj, message, 40);
OFFSET_IS(ffi::ErrorObj, backtrace, 56);
OFFSET_IS(ffi::ErrorObj, update_backtrace, 72);
OFFSET_IS(ffi::ErrorObj, cause_chain, 80);
OFFSET_IS(ffi::ErrorObj, extra_context, 88);
SIZE_IS(ffi::ErrorObj, 96);
NOT_POLYMORPHIC(ffi::ErrorObj);

// ---- Function: header + TVMFFIFunctionCell, then (for Functions made by these
// headers, tagged in __padding) the owning library's tag and the C++ entry. ---
OFFSET_IS(ffi::FunctionObj, safe_call, 24);
OFFSET_IS(ffi::FunctionObj, cpp_call, 32);
SIZE_IS(ffi::FunctionObj, 40);
OFFSET_IS(detail::FunctionObjCppBase, owner, 40);
OFFSET_IS(detail::FunctionObjCppBase, cpp_entry, 48);
SIZE_IS(detail::FunctionObjCppBase, 56);
NOT_POLYMORPHIC(ffi::FunctionObj);
NOT_POLYMORPHIC(detail::FunctionObjCppBase);
static_assert(
    std::is_same_v<decltype(detail::FunctionObjCppBase::cpp_entry), ffi::FunctionObj::FCall>,
    "cpp_entry is a plain function pointer");

// ---- Shape: header + TVMFFIShapeCell. ---------------------------------------
// (size() the method hides the cell's size field: the cell's own layout is
// pinned in test_layout.c, its place here by `data`.)
OFFSET_IS(ffi::ShapeObj, data, 24);
SIZE_IS(ffi::ShapeObj, 40);
NOT_POLYMORPHIC(ffi::ShapeObj);

// ---- Tensor: header + DLTensor (TVMFFITensorGetDLTensorPtr is header + 24). -
OFFSET_IS(ffi::TensorObj, data, 24);
OFFSET_IS(ffi::TensorObj, device, 32);
OFFSET_IS(ffi::TensorObj, ndim, 40);
OFFSET_IS(ffi::TensorObj, dtype, 44);
OFFSET_IS(ffi::TensorObj, shape, 48);
OFFSET_IS(ffi::TensorObj, strides, 56);
OFFSET_IS(ffi::TensorObj, byte_offset, 64);
SIZE_IS(ffi::TensorObj, 72);
NOT_POLYMORPHIC(ffi::TensorObj);

// ---- Array: header + TVMFFISeqCell (cells of TVMFFIAny at `data`). ----------
OFFSET_IS(ffi::ArrayObj, data, 24);
OFFSET_IS(ffi::ArrayObj, data_deleter, 48);
SIZE_IS(ffi::ArrayObj, 56);
NOT_POLYMORPHIC(ffi::ArrayObj);

// ---- Module: upstream's C++ class (a vtable pointer, the header at offset 8,
// then imports_ and one private pointer-sized slot), which libtvmffi's modules
// and every other ModuleObj subclass share (main() checks the offsets). -----
SIZE_IS(ffi::ModuleObj, 48);
ALIGN_IS(ffi::ModuleObj, 8);
static_assert(std::is_polymorphic_v<ffi::ModuleObj>, "ModuleObj has upstream's vtable");
static_assert(!ffi::ModuleObj::_type_child_slots, "modules share ffi.Module's index");

// ---- TVMFFITypeInfo: what the headers read inline to test "is a subtype". ---
OFFSET_IS(TVMFFITypeInfo, type_index, 0);
OFFSET_IS(TVMFFITypeInfo, type_depth, 4);
OFFSET_IS(TVMFFITypeInfo, type_key, 8);
OFFSET_IS(TVMFFITypeInfo, type_ancestors, 24);
OFFSET_IS(TVMFFITypeInfo, type_key_hash, 32);
OFFSET_IS(TVMFFITypeInfo, num_fields, 40);
OFFSET_IS(TVMFFITypeInfo, num_methods, 44);
OFFSET_IS(TVMFFITypeInfo, fields, 48);
OFFSET_IS(TVMFFITypeInfo, methods, 56);
OFFSET_IS(TVMFFITypeInfo, metadata, 64);
SIZE_IS(TVMFFITypeInfo, 72);

namespace {
// The smallest ModuleObj subclass: where the header and imports_ sit in it.
struct LayoutModule final : ffi::ModuleObj {
  const char* kind() const final { return "layout"; }
  ffi::Optional<ffi::Function> GetFunction(const ffi::String&) final { return std::nullopt; }
  const char* base() const { return reinterpret_cast<const char*>(this); }
};
}  // namespace

int main() {
  // Offsets of base subobjects are not constant expressions: checked here,
  // on an object that never reaches the runtime.
  LayoutModule module;
  const LayoutModule* m = &module;
  const char* header = reinterpret_cast<const char*>(static_cast<const ffi::Object*>(m));
  const char* imports = reinterpret_cast<const char*>(&m->imports());
  if (header - m->base() != 8) return 1;  // after the vtable pointer
  if (imports - header != 24) return 2;   // right after the header
  return 0;
}
