/*
 * Compile-time checks of every size, offset and enumerator value the ABI fixes
 * (the structs of tvm/ffi/c_api.h; see its "Versioning" section; the C++
 * records over them are pinned by test_abi_layout.cc). Building this file is
 * the test; it is compiled as C11 and, through test_layout_cxx.cc, as C++17 as
 * well. main() only exists so ctest has something to run.
 */
#include <stddef.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#ifdef __cplusplus
#define TVMFFI_LAYOUT_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define TVMFFI_LAYOUT_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#define SIZE_IS(T, n) TVMFFI_LAYOUT_ASSERT(sizeof(T) == (n), "sizeof(" #T ") != " #n)
#define ALIGN_IS(T, n) TVMFFI_LAYOUT_ASSERT(_Alignof(T) == (n), "alignof(" #T ") != " #n)
#define OFFSET_IS(T, f, n) \
  TVMFFI_LAYOUT_ASSERT(offsetof(T, f) == (n), "offsetof(" #T ", " #f ") != " #n)
#define VALUE_IS(e, n) TVMFFI_LAYOUT_ASSERT((e) == (n), #e " != " #n)

#ifdef __cplusplus
#undef ALIGN_IS
#define ALIGN_IS(T, n) TVMFFI_LAYOUT_ASSERT(alignof(T) == (n), "alignof(" #T ") != " #n)
#endif

/* DLPack structs we embed. */
SIZE_IS(DLDataType, 4);
SIZE_IS(DLDevice, 8);
SIZE_IS(DLTensor, 48);

/* TVMFFIVersion */
SIZE_IS(TVMFFIVersion, 12);
OFFSET_IS(TVMFFIVersion, major, 0);
OFFSET_IS(TVMFFIVersion, minor, 4);
OFFSET_IS(TVMFFIVersion, patch, 8);

/* TVMFFIAny: 16 bytes, 8-aligned. */
SIZE_IS(TVMFFIAny, 16);
ALIGN_IS(TVMFFIAny, 8);
OFFSET_IS(TVMFFIAny, type_index, 0);
OFFSET_IS(TVMFFIAny, zero_padding, 4);
OFFSET_IS(TVMFFIAny, small_str_len, 4);
OFFSET_IS(TVMFFIAny, v_int64, 8);
OFFSET_IS(TVMFFIAny, v_float64, 8);
OFFSET_IS(TVMFFIAny, v_ptr, 8);
OFFSET_IS(TVMFFIAny, v_c_str, 8);
OFFSET_IS(TVMFFIAny, v_obj, 8);
OFFSET_IS(TVMFFIAny, v_dtype, 8);
OFFSET_IS(TVMFFIAny, v_device, 8);
OFFSET_IS(TVMFFIAny, v_bytes, 8);
OFFSET_IS(TVMFFIAny, v_uint64, 8);

/* TVMFFIObject: 24 bytes. */
SIZE_IS(TVMFFIObject, 24);
ALIGN_IS(TVMFFIObject, 8);
OFFSET_IS(TVMFFIObject, combined_ref_count, 0);
OFFSET_IS(TVMFFIObject, type_index, 8);
OFFSET_IS(TVMFFIObject, __padding, 12);
OFFSET_IS(TVMFFIObject, deleter, 16);

/* Payload cells. */
SIZE_IS(TVMFFIByteArray, 16);
OFFSET_IS(TVMFFIByteArray, data, 0);
OFFSET_IS(TVMFFIByteArray, size, 8);

SIZE_IS(TVMFFIShapeCell, 16);
OFFSET_IS(TVMFFIShapeCell, data, 0);
OFFSET_IS(TVMFFIShapeCell, size, 8);

SIZE_IS(TVMFFISeqCell, 32);
OFFSET_IS(TVMFFISeqCell, data, 0);
OFFSET_IS(TVMFFISeqCell, size, 8);
OFFSET_IS(TVMFFISeqCell, capacity, 16);
OFFSET_IS(TVMFFISeqCell, data_deleter, 24);

SIZE_IS(TVMFFIErrorCell, 72);
OFFSET_IS(TVMFFIErrorCell, kind, 0);
OFFSET_IS(TVMFFIErrorCell, message, 16);
OFFSET_IS(TVMFFIErrorCell, backtrace, 32);
OFFSET_IS(TVMFFIErrorCell, update_backtrace, 48);
OFFSET_IS(TVMFFIErrorCell, cause_chain, 56);
OFFSET_IS(TVMFFIErrorCell, extra_context, 64);

SIZE_IS(TVMFFIFunctionCell, 16);
OFFSET_IS(TVMFFIFunctionCell, safe_call, 0);
OFFSET_IS(TVMFFIFunctionCell, cpp_call, 8);

SIZE_IS(TVMFFIOpaqueObjectCell, 8);
OFFSET_IS(TVMFFIOpaqueObjectCell, handle, 0);

/* TVMFFIObjectAllocHeader, TVMFFICustomAllocator (the custom allocator section) */
SIZE_IS(TVMFFIObjectAllocHeader, 8);
ALIGN_IS(TVMFFIObjectAllocHeader, 8);
OFFSET_IS(TVMFFIObjectAllocHeader, delete_space, 0);
SIZE_IS(TVMFFICustomAllocator, 16);
ALIGN_IS(TVMFFICustomAllocator, 8);
OFFSET_IS(TVMFFICustomAllocator, allocate, 0);
OFFSET_IS(TVMFFICustomAllocator, context, 8);

/* Reflection records. */
SIZE_IS(TVMFFIFieldInfo, 120);
OFFSET_IS(TVMFFIFieldInfo, name, 0);
OFFSET_IS(TVMFFIFieldInfo, doc, 16);
OFFSET_IS(TVMFFIFieldInfo, metadata, 32);
OFFSET_IS(TVMFFIFieldInfo, flags, 48);
OFFSET_IS(TVMFFIFieldInfo, size, 56);
OFFSET_IS(TVMFFIFieldInfo, alignment, 64);
OFFSET_IS(TVMFFIFieldInfo, offset, 72);
OFFSET_IS(TVMFFIFieldInfo, getter, 80);
OFFSET_IS(TVMFFIFieldInfo, setter, 88);
OFFSET_IS(TVMFFIFieldInfo, default_value_or_factory, 96);
OFFSET_IS(TVMFFIFieldInfo, field_static_type_index, 112);

SIZE_IS(TVMFFIMethodInfo, 72);
OFFSET_IS(TVMFFIMethodInfo, name, 0);
OFFSET_IS(TVMFFIMethodInfo, doc, 16);
OFFSET_IS(TVMFFIMethodInfo, metadata, 32);
OFFSET_IS(TVMFFIMethodInfo, flags, 48);
OFFSET_IS(TVMFFIMethodInfo, method, 56);

SIZE_IS(TVMFFITypeMetadata, 32);
OFFSET_IS(TVMFFITypeMetadata, doc, 0);
OFFSET_IS(TVMFFITypeMetadata, creator, 16);
OFFSET_IS(TVMFFITypeMetadata, total_size, 24);
OFFSET_IS(TVMFFITypeMetadata, structural_eq_hash_kind, 28);

SIZE_IS(TVMFFITypeAttrColumn, 16);
OFFSET_IS(TVMFFITypeAttrColumn, data, 0);
OFFSET_IS(TVMFFITypeAttrColumn, size, 8);
OFFSET_IS(TVMFFITypeAttrColumn, begin_index, 12);

SIZE_IS(TVMFFITypeInfo, 72);
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

/* Enumerations are 32-bit values. */
SIZE_IS(TVMFFITypeIndex, 4);
SIZE_IS(TVMFFIObjectDeleterFlagBitMask, 4);
SIZE_IS(TVMFFIBacktraceUpdateMode, 4);
SIZE_IS(TVMFFISEqHashKind, 4);
SIZE_IS(TVMFFIErrorKindCode, 4);
SIZE_IS(TVMFFIStreamHandle, 8);

/* Type indices. */
VALUE_IS(kTVMFFIAny, -1);
VALUE_IS(kTVMFFINone, 0);
VALUE_IS(kTVMFFIInt, 1);
VALUE_IS(kTVMFFIBool, 2);
VALUE_IS(kTVMFFIFloat, 3);
VALUE_IS(kTVMFFIOpaquePtr, 4);
VALUE_IS(kTVMFFIDataType, 5);
VALUE_IS(kTVMFFIDevice, 6);
VALUE_IS(kTVMFFIDLTensorPtr, 7);
VALUE_IS(kTVMFFIRawStr, 8);
VALUE_IS(kTVMFFIByteArrayPtr, 9);
VALUE_IS(kTVMFFIObjectRValueRef, 10);
VALUE_IS(kTVMFFISmallStr, 11);
VALUE_IS(kTVMFFISmallBytes, 12);
VALUE_IS(kTVMFFIUnchanged, 13);
VALUE_IS(kTVMFFIStaticObjectBegin, 64);
VALUE_IS(kTVMFFIObject, 64);
VALUE_IS(kTVMFFIStr, 65);
VALUE_IS(kTVMFFIBytes, 66);
VALUE_IS(kTVMFFIError, 67);
VALUE_IS(kTVMFFIFunction, 68);
VALUE_IS(kTVMFFIShape, 69);
VALUE_IS(kTVMFFITensor, 70);
VALUE_IS(kTVMFFIArray, 71);
VALUE_IS(kTVMFFIMap, 72);
VALUE_IS(kTVMFFIModule, 73);
VALUE_IS(kTVMFFIOpaquePyObject, 74);
VALUE_IS(kTVMFFIList, 75);
VALUE_IS(kTVMFFIDict, 76);
VALUE_IS(kTVMFFIVisitInterrupt, 77);
VALUE_IS(kTVMFFIBigInt, 78);
VALUE_IS(kTVMFFIStaticObjectEnd, 79);
VALUE_IS(kTVMFFIDynObjectBegin, 128);

/* Deleter flags and the other enumerations. */
VALUE_IS(kTVMFFIObjectDeleterFlagBitMaskStrong, 1);
VALUE_IS(kTVMFFIObjectDeleterFlagBitMaskWeak, 2);
VALUE_IS(kTVMFFIObjectDeleterFlagBitMaskBoth, 3);
VALUE_IS(kTVMFFIBacktraceUpdateModeReplace, 0);
VALUE_IS(kTVMFFIBacktraceUpdateModeAppend, 1);
VALUE_IS(kTVMFFIFieldFlagBitMaskWritable, 1);
VALUE_IS(kTVMFFIFieldFlagBitMaskHasDefault, 2);
VALUE_IS(kTVMFFIFieldFlagBitMaskIsStaticMethod, 4);
VALUE_IS(kTVMFFIFieldFlagBitMaskSEqHashIgnore, 8);
VALUE_IS(kTVMFFIFieldFlagBitMaskSEqHashDef, 16);
VALUE_IS(kTVMFFIFieldFlagBitMaskDefaultFromFactory, 32);
VALUE_IS(kTVMFFIFieldFlagBitMaskReprOff, 64);
VALUE_IS(kTVMFFIFieldFlagBitMaskSEqHashDefRecursive, 16);
VALUE_IS(kTVMFFIFieldFlagBitMaskCompareOff, 128);
VALUE_IS(kTVMFFIFieldFlagBitMaskHashOff, 256);
VALUE_IS(kTVMFFIFieldFlagBitMaskInitOff, 512);
VALUE_IS(kTVMFFIFieldFlagBitMaskKwOnly, 1024);
VALUE_IS(kTVMFFIFieldFlagBitSetterIsFunctionObj, 2048);
VALUE_IS(kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive, 4096);
VALUE_IS(kTVMFFIDefRegionKindNone, 0);
VALUE_IS(kTVMFFIDefRegionKindRecursive, 1);
VALUE_IS(kTVMFFIDefRegionKindNonRecursive, 2);
VALUE_IS(kTVMFFISEqHashKindUnsupported, 0);
VALUE_IS(kTVMFFISEqHashKindTreeNode, 1);
VALUE_IS(kTVMFFISEqHashKindFreeVar, 2);
VALUE_IS(kTVMFFISEqHashKindDAGNode, 3);
VALUE_IS(kTVMFFISEqHashKindConstTreeNode, 4);
VALUE_IS(kTVMFFISEqHashKindUniqueInstance, 5);
VALUE_IS(kTVMFFIErrorKindUnknown, -1);
VALUE_IS(kTVMFFIErrorKindRuntimeError, 0);
VALUE_IS(kTVMFFIErrorKindValueError, 1);
VALUE_IS(kTVMFFIErrorKindTypeError, 2);
VALUE_IS(kTVMFFIErrorKindAttributeError, 3);
VALUE_IS(kTVMFFIErrorKindKeyError, 4);
VALUE_IS(kTVMFFIErrorKindIndexError, 5);
VALUE_IS(kTVMFFIErrorKindNotImplementedError, 6);
VALUE_IS(kTVMFFIErrorKindMemoryError, 7);
VALUE_IS(kTVMFFIErrorKindInternalError, 8);
VALUE_IS(kTVMFFIErrorKindCustomBegin, 64);

/* Version macros are plain integers. */
VALUE_IS(TVM_FFI_VERSION_MAJOR, 0);
VALUE_IS(TVM_FFI_VERSION_MINOR, 1);
TVMFFI_LAYOUT_ASSERT(TVM_FFI_VERSION_PATCH >= 0, "patch version");

/* DLPack version this build was checked against. */
VALUE_IS(DLPACK_MAJOR_VERSION, 1);
TVMFFI_LAYOUT_ASSERT(DLPACK_MINOR_VERSION >= 2, "DLPack >= 1.2 is required");

#ifndef TVMFFI_LAYOUT_NO_MAIN
int main(void) {
  return 0;
}
#endif
