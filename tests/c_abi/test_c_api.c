/*
 * Exercises every type and every function of tvm/ffi/c_api.h and
 * tvm/ffi/extra/c_env_api.h from plain C11 (compiled with -Wall -Wextra
 * -Wpedantic -Werror). Standalone: prints each failed check and exits 1 if any.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include <tvm/ffi/extra/c_env_api.h>
#include "c_check.h"

#define SUCCESS 0
#define FAILURE (-1)

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static TVMFFIByteArray Bytes(const char* s) {
  TVMFFIByteArray b;
  b.data = s;
  b.size = strlen(s);
  return b;
}

static TVMFFIAny NoneAny(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFINone;
  return a;
}

static TVMFFIAny IntAny(int64_t v) {
  TVMFFIAny a = NoneAny();
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static int NoErrorRaised(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    TVMFFIObjectDecRef(err);
    return 0;
  }
  return 1;
}

/* Owned Any release. */
static void ReleaseAny(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(a->v_obj);
  *a = NoneAny();
}

/* Bytes of a string-like owned Any. */
static TVMFFIByteArray AnyBytes(const TVMFFIAny* a) {
  if (a->type_index == kTVMFFISmallStr || a->type_index == kTVMFFISmallBytes) {
    return TVMFFISmallBytesGetContentByteArray(a);
  }
  return *TVMFFIBytesGetByteArrayPtr(a->v_obj);
}

/* A weak symbol and an exported function, to use the linkage macros. */
TVM_FFI_WEAK int g_weak_marker = 7;
TVM_FFI_DLL_EXPORT int TestExportedMarker(void) {
  return g_weak_marker;
}

/* ------------------------------------------------------------------------ */
/* Version, enums, struct types                                             */
/* ------------------------------------------------------------------------ */

static void TestVersionAndTypes(void) {
  TVMFFIVersion v;
  TVMFFIObject obj;
  TVMFFIAny any;
  TVMFFIByteArray arr;
  TVMFFIShapeCell shape_cell;
  TVMFFISeqCell seq_cell;
  TVMFFIErrorCell err_cell;
  TVMFFIFunctionCell fn_cell;
  TVMFFIOpaqueObjectCell opaque_cell;
  TVMFFIFieldInfo field;
  TVMFFIMethodInfo method;
  TVMFFITypeMetadata md;
  TVMFFITypeAttrColumn column;
  TVMFFITypeInfo info;
  TVMFFIStreamHandle stream = NULL;
  TVMFFISafeCallType safe_call = NULL;
  TVMFFIFieldGetter getter = NULL;
  TVMFFIFieldSetter setter = NULL;
  TVMFFIObjectCreator creator = NULL;
  TVMFFIObjectHandle handle = NULL;
  TVMFFITypeIndex ti = kTVMFFIAny;
  TVMFFIObjectDeleterFlagBitMask dflag = kTVMFFIObjectDeleterFlagBitMaskBoth;
  TVMFFIFieldFlagBitMask fflag = kTVMFFIFieldFlagBitMaskWritable;
  TVMFFISEqHashKind sk = kTVMFFISEqHashKindTreeNode;
  TVMFFIDefRegionKind region = kTVMFFIDefRegionKindNonRecursive;
  TVMFFIBacktraceUpdateMode mode = kTVMFFIBacktraceUpdateModeAppend;
  TVMFFIErrorKindCode code = kTVMFFIErrorKindUnknown;

  memset(&v, 0xFF, sizeof(v));
  TVMFFIGetVersion(&v);
  CHECK(v.major == TVM_FFI_VERSION_MAJOR && v.minor == TVM_FFI_VERSION_MINOR &&
        v.patch == TVM_FFI_VERSION_PATCH);
  TVMFFIGetVersion(NULL); /* ignored, no crash */

  memset(&obj, 0, sizeof(obj));
  memset(&any, 0, sizeof(any));
  memset(&shape_cell, 0, sizeof(shape_cell));
  memset(&seq_cell, 0, sizeof(seq_cell));
  memset(&err_cell, 0, sizeof(err_cell));
  memset(&fn_cell, 0, sizeof(fn_cell));
  memset(&opaque_cell, 0, sizeof(opaque_cell));
  memset(&field, 0, sizeof(field));
  memset(&method, 0, sizeof(method));
  memset(&md, 0, sizeof(md));
  memset(&column, 0, sizeof(column));
  memset(&info, 0, sizeof(info));
  arr = Bytes("x");
  CHECK(sizeof(obj) == 24 && sizeof(any) == 16 && arr.size == 1);
  CHECK(sizeof(shape_cell) == 16 && sizeof(seq_cell) == 32 && sizeof(err_cell) == 72);
  CHECK(sizeof(fn_cell) == 16 && sizeof(opaque_cell) == 8 && sizeof(field) == 120);
  CHECK(sizeof(method) == 72 && sizeof(md) == 32 && sizeof(column) == 16 && sizeof(info) == 72);
  CHECK(stream == NULL && safe_call == NULL && getter == NULL && setter == NULL &&
        creator == NULL && handle == NULL);

  /* Every enumerator, by value. */
  CHECK(ti == -1);
  CHECK(kTVMFFINone == 0 && kTVMFFIInt == 1 && kTVMFFIBool == 2 && kTVMFFIFloat == 3);
  CHECK(kTVMFFIOpaquePtr == 4 && kTVMFFIDataType == 5 && kTVMFFIDevice == 6);
  CHECK(kTVMFFIDLTensorPtr == 7 && kTVMFFIRawStr == 8 && kTVMFFIByteArrayPtr == 9);
  CHECK(kTVMFFIObjectRValueRef == 10 && kTVMFFISmallStr == 11 && kTVMFFISmallBytes == 12);
  CHECK(kTVMFFIStaticObjectBegin == 64 && kTVMFFIObject == 64 && kTVMFFIStr == 65);
  CHECK(kTVMFFIBytes == 66 && kTVMFFIError == 67 && kTVMFFIFunction == 68);
  CHECK(kTVMFFIShape == 69 && kTVMFFITensor == 70 && kTVMFFIArray == 71 && kTVMFFIMap == 72);
  CHECK(kTVMFFIModule == 73 && kTVMFFIOpaquePyObject == 74 && kTVMFFIList == 75);
  CHECK(kTVMFFIDict == 76 && kTVMFFIVisitInterrupt == 77 && kTVMFFIBigInt == 78 &&
        kTVMFFIStaticObjectEnd == 79 && kTVMFFIDynObjectBegin == 128);
  CHECK(dflag == 3 && kTVMFFIObjectDeleterFlagBitMaskStrong == 1 &&
        kTVMFFIObjectDeleterFlagBitMaskWeak == 2);
  CHECK(fflag == 1 && kTVMFFIFieldFlagBitMaskHasDefault == 2 &&
        kTVMFFIFieldFlagBitMaskIsStaticMethod == 4 && kTVMFFIFieldFlagBitMaskSEqHashIgnore == 8 &&
        kTVMFFIFieldFlagBitMaskSEqHashDef == 16 &&
        kTVMFFIFieldFlagBitMaskDefaultFromFactory == 32 && kTVMFFIFieldFlagBitMaskReprOff == 64);
  CHECK(kTVMFFIFieldFlagBitMaskSEqHashDefRecursive == 16 &&
        kTVMFFIFieldFlagBitMaskCompareOff == 128 && kTVMFFIFieldFlagBitMaskHashOff == 256 &&
        kTVMFFIFieldFlagBitMaskInitOff == 512 && kTVMFFIFieldFlagBitMaskKwOnly == 1024 &&
        kTVMFFIFieldFlagBitSetterIsFunctionObj == 2048 &&
        kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive == 4096);
  CHECK(region == 2 && kTVMFFIDefRegionKindNone == 0 && kTVMFFIDefRegionKindRecursive == 1);
  CHECK(sk == 1 && kTVMFFISEqHashKindUnsupported == 0 && kTVMFFISEqHashKindFreeVar == 2 &&
        kTVMFFISEqHashKindDAGNode == 3 && kTVMFFISEqHashKindConstTreeNode == 4 &&
        kTVMFFISEqHashKindUniqueInstance == 5);
  CHECK(mode == 1 && kTVMFFIBacktraceUpdateModeReplace == 0);
  CHECK(code == -1 && kTVMFFIErrorKindRuntimeError == 0 && kTVMFFIErrorKindValueError == 1 &&
        kTVMFFIErrorKindTypeError == 2 && kTVMFFIErrorKindAttributeError == 3 &&
        kTVMFFIErrorKindKeyError == 4 && kTVMFFIErrorKindIndexError == 5 &&
        kTVMFFIErrorKindNotImplementedError == 6 && kTVMFFIErrorKindMemoryError == 7 &&
        kTVMFFIErrorKindInternalError == 8 && kTVMFFIErrorKindCustomBegin == 64);
  CHECK(TestExportedMarker() == 7);
  {
    DLDevice d = TVMFFIDLDeviceFromIntPair(kDLCUDA, 3);
    CHECK(d.device_type == kDLCUDA && d.device_id == 3);
  }
}

/* ------------------------------------------------------------------------ */
/* Objects                                                                  */
/* ------------------------------------------------------------------------ */

static int g_deleter_flags[8];
static int g_deleter_calls = 0;

static void RecordingDeleter(void* self, int flags) {
  (void)self;
  if (g_deleter_calls < 8) g_deleter_flags[g_deleter_calls] = flags;
  ++g_deleter_calls;
}

static int g_opaque_freed = 0;
static void OpaqueFree(void* handle) {
  g_opaque_freed += *(int*)handle;
}

static void TestObjects(void) {
  TVMFFIObject obj;
  TVMFFIObjectHandle opaque = NULL;
  int payload = 5;

  /* Simple case: strong 1 + weak 1 -> deleter(3). */
  obj.combined_ref_count = ((uint64_t)1 << 32) | 1;
  obj.type_index = kTVMFFIObject;
  obj.__padding = 0;
  obj.deleter = RecordingDeleter;
  g_deleter_calls = 0;
  CHECK(TVMFFIObjectIncRef(&obj) == 0);
  CHECK(obj.combined_ref_count == (((uint64_t)1 << 32) | 2));
  CHECK(TVMFFIObjectDecRef(&obj) == 0);
  CHECK(g_deleter_calls == 0);
  CHECK(TVMFFIObjectDecRef(&obj) == 0);
  CHECK(g_deleter_calls == 1 && g_deleter_flags[0] == kTVMFFIObjectDeleterFlagBitMaskBoth);

  /* A weak reference outstanding: deleter(1), then (2) when the weak goes. */
  obj.combined_ref_count = ((uint64_t)2 << 32) | 1;
  g_deleter_calls = 0;
  TVMFFIObjectDecRef(&obj);
  CHECK(g_deleter_calls == 1 && g_deleter_flags[0] == kTVMFFIObjectDeleterFlagBitMaskStrong);
  CHECK(obj.combined_ref_count == ((uint64_t)1 << 32));

  /* NULL is ignored. */
  CHECK(TVMFFIObjectIncRef(NULL) == 0);
  CHECK(TVMFFIObjectDecRef(NULL) == 0);

  /* Opaque objects. */
  CHECK(TVMFFIObjectCreateOpaque(&payload, kTVMFFIOpaquePyObject, OpaqueFree, &opaque) == 0);
  CHECK(TVMFFIObjectGetTypeIndex(opaque) == kTVMFFIOpaquePyObject);
  CHECK(TVMFFIOpaqueObjectGetCellPtr(opaque)->handle == &payload);
  TVMFFIObjectIncRef(opaque);
  TVMFFIObjectDecRef(opaque);
  CHECK(g_opaque_freed == 0);
  TVMFFIObjectDecRef(opaque);
  CHECK(g_opaque_freed == 5);
  CHECK(TVMFFIObjectCreateOpaque(&payload, kTVMFFIOpaquePyObject, NULL, NULL) == -1);
  CHECK(TakeError("ValueError", "out"));
  CHECK(TVMFFIObjectCreateOpaque(&payload, kTVMFFIStr, NULL, &opaque) == -1);
  CHECK(TakeError("ValueError", "opaque"));
}

/* ------------------------------------------------------------------------ */
/* Type registry and reflection                                             */
/* ------------------------------------------------------------------------ */

static int FieldGetterI64(void* field, TVMFFIAny* result) {
  *result = IntAny(*(int64_t*)field);
  return 0;
}

static int FieldSetterI64(void* field, const TVMFFIAny* value) {
  if (value->type_index != kTVMFFIInt) return -1;
  *(int64_t*)field = value->v_int64;
  return 0;
}

static int CreatorNone(TVMFFIObjectHandle* result) {
  *result = NULL;
  return 0;
}

static int ReturnArgCount(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)args;
  *result = IntAny(num_args);
  return 0;
}

static void TestTypes(void) {
  TVMFFIByteArray key;
  int32_t tindex = -5;
  int32_t child;
  const TVMFFITypeInfo* info;
  TVMFFIFieldInfo field;
  TVMFFIMethodInfo method;
  TVMFFITypeMetadata md;
  TVMFFIObjectHandle fn = NULL;
  TVMFFIAny attr_value;
  TVMFFIByteArray attr_name;
  const TVMFFITypeAttrColumn* column;
  int64_t storage = 41;
  TVMFFIAny got;

  key = Bytes("ffi.Tensor");
  CHECK(TVMFFITypeKeyToIndex(&key, &tindex) == 0 && tindex == kTVMFFITensor);
  key = Bytes("ffi.OpaquePyObject");
  CHECK(TVMFFITypeKeyToIndex(&key, &tindex) == 0 && tindex == kTVMFFIOpaquePyObject);
  key = Bytes("const char*");
  CHECK(TVMFFITypeKeyToIndex(&key, &tindex) == 0 && tindex == kTVMFFIRawStr);
  key = Bytes("c_api_test.NoSuchType");
  CHECK(TVMFFITypeKeyToIndex(&key, &tindex) == -1);
  CHECK(TakeError("KeyError", "Cannot find type `c_api_test.NoSuchType`"));
  CHECK(TVMFFITypeKeyToIndex(NULL, &tindex) == -1 && TakeError("ValueError", "type_key"));
  CHECK(TVMFFITypeKeyToIndex(&key, NULL) == -1 && TakeError("ValueError", "out_tindex"));

  key = Bytes("c_api_test.Node");
  tindex = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, kTVMFFIObject);
  CHECK(tindex >= kTVMFFIDynObjectBegin);
  CHECK(TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, kTVMFFIObject) == tindex);
  key = Bytes("c_api_test.Leaf");
  child = TVMFFITypeGetOrAllocIndex(&key, -1, 2, 0, 1, tindex);
  CHECK(child > tindex);
  info = TVMFFIGetTypeInfo(child);
  CHECK(info != NULL && info->type_index == child && info->type_depth == 2);
  CHECK(info != NULL && ByteArrayEq(info->type_key, "c_api_test.Leaf"));
  CHECK(info != NULL && info->type_ancestors[0]->type_index == kTVMFFIObject &&
        info->type_ancestors[1]->type_index == tindex);
  CHECK(info != NULL && info->type_key_hash != 0 && info->num_fields == 0 &&
        info->num_methods == 0);
  key = Bytes("c_api_test.BadDepth");
  CHECK(TVMFFITypeGetOrAllocIndex(&key, -1, 5, 0, 1, kTVMFFIObject) == -1);
  CHECK(TakeError("ValueError", "depth"));
  CHECK(TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, 99999) == -1);
  CHECK(TakeError("ValueError", "parent"));
  CHECK(TVMFFITypeGetOrAllocIndex(NULL, -1, 1, 0, 1, kTVMFFIObject) == -1);
  CHECK(TakeError("ValueError", "type_key"));
  CHECK(TVMFFIGetTypeInfo(99999) == NULL && TakeError("KeyError", "99999"));
  info = TVMFFIGetTypeInfo(kTVMFFIStr);
  CHECK(info != NULL && ByteArrayEq(info->type_key, "ffi.String") && info->type_depth == 1);

  /* Reflection: a field, a method, metadata, an attribute column. */
  memset(&field, 0, sizeof(field));
  field.name = Bytes("value");
  field.doc = Bytes("the value");
  field.metadata = Bytes("{}");
  field.flags = kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitMaskHasDefault;
  field.size = 8;
  field.alignment = 8;
  field.offset = 24;
  field.getter = FieldGetterI64;
  field.setter = FieldSetterI64;
  field.default_value_or_factory = IntAny(3);
  field.field_static_type_index = kTVMFFIInt;
  CHECK(TVMFFITypeRegisterField(tindex, &field) == 0);
  info = TVMFFIGetTypeInfo(tindex);
  CHECK(info->num_fields == 1 && ByteArrayEq(info->fields[0].name, "value"));
  CHECK(info->fields[0].default_value_or_factory.v_int64 == 3);
  CHECK(info->fields[0].getter(&storage, &got) == 0 && got.v_int64 == 41);
  got = IntAny(9);
  CHECK(info->fields[0].setter(&storage, &got) == 0 && storage == 9);
  CHECK(TVMFFITypeRegisterField(tindex, &field) == -1 && TakeError("ValueError", "value"));
  CHECK(TVMFFITypeRegisterField(tindex, NULL) == -1 && TakeError("ValueError", "info"));
  CHECK(TVMFFITypeRegisterField(99999, &field) == -1 && TakeError("KeyError", NULL));

  CHECK(TVMFFIFunctionCreate(NULL, ReturnArgCount, NULL, &fn) == 0);
  memset(&method, 0, sizeof(method));
  method.name = Bytes("count");
  method.doc = Bytes("");
  method.metadata = Bytes("");
  method.flags = 0;
  method.method.type_index = kTVMFFIFunction;
  method.method.v_obj = (TVMFFIObject*)fn;
  CHECK(TVMFFITypeRegisterMethod(tindex, &method) == 0);
  info = TVMFFIGetTypeInfo(tindex);
  CHECK(info->num_methods == 1 && ByteArrayEq(info->methods[0].name, "count"));
  CHECK(info->methods[0].method.v_obj == fn);
  CHECK(TVMFFITypeRegisterMethod(tindex, NULL) == -1 && TakeError("ValueError", "info"));

  memset(&md, 0, sizeof(md));
  md.doc = Bytes("a node");
  md.creator = CreatorNone;
  md.total_size = 32;
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  CHECK(TVMFFITypeRegisterMetadata(tindex, &md) == 0);
  info = TVMFFIGetTypeInfo(tindex);
  CHECK(info->metadata != NULL && info->metadata->total_size == 32 &&
        ByteArrayEq(info->metadata->doc, "a node") && info->metadata->creator == CreatorNone);
  CHECK(TVMFFITypeRegisterMetadata(tindex, NULL) == -1 && TakeError("ValueError", "metadata"));

  attr_name = Bytes("c_api_test.attr");
  attr_value = IntAny(77);
  CHECK(TVMFFIGetTypeAttrColumn(&attr_name) == NULL);
  CHECK(TVMFFITypeRegisterAttr(tindex, &attr_name, &attr_value) == 0);
  column = TVMFFIGetTypeAttrColumn(&attr_name);
  CHECK(column != NULL && column->begin_index == 0 && column->size > tindex &&
        column->data[tindex].v_int64 == 77);
  CHECK(column != NULL && column->data[kTVMFFIStr].type_index == kTVMFFINone);
  CHECK(TVMFFITypeRegisterAttr(tindex, &attr_name, &attr_value) == -1);
  CHECK(TakeError("ValueError", "already"));
  CHECK(TVMFFITypeRegisterAttr(tindex, NULL, &attr_value) == -1 && TakeError("ValueError", NULL));
  CHECK(TVMFFITypeRegisterAttr(tindex, &attr_name, NULL) == -1 && TakeError("ValueError", NULL));
  CHECK(TVMFFIGetTypeAttrColumn(NULL) == NULL);
  TVMFFIObjectDecRef(fn);
}

/* ------------------------------------------------------------------------ */
/* Functions                                                                */
/* ------------------------------------------------------------------------ */

static int g_fn_deleted = 0;
static void FnDeleter(void* self) {
  g_fn_deleted += *(int*)self;
}

/* Adds its integer arguments to *self. */
static int AddInts(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  int64_t sum = *(int*)self;
  int32_t i;
  for (i = 0; i < num_args; ++i) {
    if (args[i].type_index != kTVMFFIInt) {
      TVMFFIErrorSetRaisedFromCStr("TypeError", "AddInts expects integers");
      return -1;
    }
    sum += args[i].v_int64;
  }
  *result = IntAny(sum);
  return 0;
}

static int CollectNames(void* ctx, const TVMFFIByteArray* name) {
  int* found = (int*)ctx;
  if (ByteArrayEq(*name, "c_api_test.add")) ++*found;
  return 0;
}

static int StopAtFirst(void* ctx, const TVMFFIByteArray* name) {
  (void)name;
  ++*(int*)ctx;
  return 1;
}

static void TestFunctions(void) {
  int base = 100;
  TVMFFIObjectHandle fn = NULL, got = NULL, str = NULL;
  TVMFFIAny args[3];
  TVMFFIAny result;
  TVMFFIByteArray name = Bytes("c_api_test.add");
  TVMFFIMethodInfo info;
  int found = 0;

  CHECK(TVMFFIFunctionCreate(&base, AddInts, FnDeleter, &fn) == 0);
  CHECK(TVMFFIObjectGetTypeIndex(fn) == kTVMFFIFunction);
  args[0] = IntAny(1);
  args[1] = IntAny(2);
  args[2] = IntAny(3);
  result = NoneAny();
  CHECK(TVMFFIFunctionCall(fn, args, 3, &result) == 0);
  CHECK(result.type_index == kTVMFFIInt && result.v_int64 == 106);
  /* Other binaries call the cell directly with the function object as handle. */
  result = NoneAny();
  CHECK(TVMFFIFunctionGetCellPtr(fn)->safe_call(fn, args, 1, &result) == 0);
  CHECK(result.v_int64 == 101);
  CHECK(TVMFFIFunctionGetCellPtr(fn)->cpp_call == NULL);
  /* The callee's error comes back. */
  args[1].type_index = kTVMFFIFloat;
  result = NoneAny();
  CHECK(TVMFFIFunctionCall(fn, args, 2, &result) == -1 && TakeError("TypeError", "integers"));
  /* Bad handles. */
  CHECK(TVMFFIFunctionCall(NULL, args, 0, &result) == -1 &&
        TakeError("ValueError", "TVMFFIFunctionCall: argument `func` is NULL"));
  {
    TVMFFIAny s;
    TVMFFIByteArray text = Bytes("not a function at all");
    CHECK(TVMFFIStringFromByteArray(&text, &s) == 0);
    str = s.v_obj;
  }
  CHECK(TVMFFIFunctionCall(str, args, 0, &result) == -1 && TakeError("TypeError", "ffi.String"));
  CHECK(TVMFFIFunctionCreate(NULL, NULL, NULL, &got) == -1 && TakeError("ValueError", "safe_call"));
  CHECK(TVMFFIFunctionCreate(NULL, AddInts, NULL, NULL) == -1 && TakeError("ValueError", "out"));

  /* Global registry. */
  CHECK(TVMFFIFunctionSetGlobal(&name, fn, 0) == 0);
  CHECK(TVMFFIFunctionSetGlobal(&name, fn, 0) == -1 &&
        TakeError("RuntimeError", "Global function `c_api_test.add` is already registered"));
  CHECK(TVMFFIFunctionSetGlobal(&name, fn, 1) == 0);
  CHECK(TVMFFIFunctionSetGlobal(&name, str, 1) == -1 && TakeError("TypeError", NULL));
  CHECK(TVMFFIFunctionSetGlobal(NULL, fn, 1) == -1 && TakeError("ValueError", "name"));
  CHECK(TVMFFIFunctionSetGlobal(&name, NULL, 1) == -1 && TakeError("ValueError", "f"));
  CHECK(TVMFFIFunctionGetGlobal(&name, &got) == 0 && got == fn);
  TVMFFIObjectDecRef(got);
  CHECK(TVMFFIFunctionGetGlobal(&name, NULL) == -1 && TakeError("ValueError", "out"));
  CHECK(TVMFFIFunctionGetGlobal(NULL, &got) == -1 && TakeError("ValueError", "name"));
  CHECK(TVMFFIFunctionListGlobalNames(CollectNames, &found) == 0 && found == 1);
  found = 0;
  CHECK(TVMFFIFunctionListGlobalNames(StopAtFirst, &found) == 0 && found == 1);
  CHECK(TVMFFIFunctionListGlobalNames(NULL, NULL) == -1 && TakeError("ValueError", "visit"));
  CHECK(TVMFFIFunctionRemoveGlobal(&name) == 0);
  CHECK(TVMFFIFunctionRemoveGlobal(&name) == 0);
  CHECK(TVMFFIFunctionRemoveGlobal(NULL) == -1 && TakeError("ValueError", "name"));
  got = (TVMFFIObjectHandle)&base;
  CHECK(TVMFFIFunctionGetGlobal(&name, &got) == 0 && got == NULL);

  memset(&info, 0, sizeof(info));
  info.name = Bytes("c_api_test.add_documented");
  info.doc = Bytes("adds integers");
  info.metadata = Bytes("{\"arity\": -1}");
  info.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  info.method.type_index = kTVMFFIFunction;
  info.method.v_obj = (TVMFFIObject*)fn;
  CHECK(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0) == 0);
  CHECK(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0) == -1 && TakeError("RuntimeError", NULL));
  CHECK(TVMFFIFunctionSetGlobalFromMethodInfo(NULL, 0) == -1 && TakeError("ValueError", NULL));
  {
    /* ffi.GetGlobalFuncMetadata returns the metadata kept from the method info. */
    TVMFFIByteArray meta_name = Bytes("ffi.GetGlobalFuncMetadata");
    TVMFFIObjectHandle meta_fn = NULL;
    TVMFFIAny arg;
    arg = NoneAny();
    arg.type_index = kTVMFFIRawStr;
    arg.v_c_str = "c_api_test.add_documented";
    CHECK(TVMFFIFunctionGetGlobal(&meta_name, &meta_fn) == 0 && meta_fn != NULL);
    result = NoneAny();
    CHECK(TVMFFIFunctionCall(meta_fn, &arg, 1, &result) == 0);
    CHECK(ByteArrayEq(AnyBytes(&result), "{\"arity\": -1}"));
    ReleaseAny(&result);
    TVMFFIObjectDecRef(meta_fn);
  }
  info.name = Bytes("c_api_test.add_documented");
  CHECK(TVMFFIFunctionRemoveGlobal(&info.name) == 0);

  TVMFFIObjectDecRef(str);
  CHECK(g_fn_deleted == 0);
  TVMFFIObjectDecRef(fn);
  CHECK(g_fn_deleted == 100);
}

/* ------------------------------------------------------------------------ */
/* AnyView -> Any                                                           */
/* ------------------------------------------------------------------------ */

static void TestAnyViewToOwned(void) {
  TVMFFIAny view, out;
  TVMFFIByteArray arr;
  DLTensor dl;
  TVMFFIObjectHandle fn = NULL, moved;

  view = IntAny(42);
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == 0 && out.type_index == kTVMFFIInt &&
        out.v_int64 == 42);
  view = NoneAny();
  view.type_index = kTVMFFIFloat;
  view.v_float64 = 2.5;
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == 0 && out.v_float64 == 2.5);

  view = NoneAny();
  view.type_index = kTVMFFIRawStr;
  view.v_c_str = "short";
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == 0 && out.type_index == kTVMFFISmallStr);
  CHECK(ByteArrayEq(AnyBytes(&out), "short"));
  view.v_c_str = "a longer string";
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == 0 && out.type_index == kTVMFFIStr);
  CHECK(ByteArrayEq(AnyBytes(&out), "a longer string"));
  ReleaseAny(&out);

  arr.data = "by\0tes!!";
  arr.size = 8;
  view = NoneAny();
  view.type_index = kTVMFFIByteArrayPtr;
  view.v_ptr = &arr;
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == 0 && out.type_index == kTVMFFIBytes);
  CHECK(AnyBytes(&out).size == 8 && memcmp(AnyBytes(&out).data, "by\0tes!!", 8) == 0);
  ReleaseAny(&out);

  memset(&dl, 0, sizeof(dl));
  view = NoneAny();
  view.type_index = kTVMFFIDLTensorPtr;
  view.v_ptr = &dl;
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == -1 && TakeError("TypeError", "DLTensor*"));

  CHECK(TVMFFIFunctionCreate(NULL, ReturnArgCount, NULL, &fn) == 0);
  view = NoneAny();
  view.type_index = kTVMFFIFunction;
  view.v_obj = (TVMFFIObject*)fn;
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == 0 && out.v_obj == fn);
  CHECK(((TVMFFIObject*)fn)->combined_ref_count == (((uint64_t)1 << 32) | 2));
  ReleaseAny(&out);

  moved = fn; /* the rvalue reference moves the caller's reference out */
  view = NoneAny();
  view.type_index = kTVMFFIObjectRValueRef;
  view.v_ptr = &moved;
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == 0 && out.type_index == kTVMFFIFunction &&
        out.v_obj == fn && moved == NULL);
  CHECK(((TVMFFIObject*)fn)->combined_ref_count == (((uint64_t)1 << 32) | 1));
  CHECK(TVMFFIAnyViewToOwnedAny(&view, &out) == -1 && TakeError("ValueError", "moved"));
  ReleaseAny(&out); /* drops the only reference */

  CHECK(TVMFFIAnyViewToOwnedAny(NULL, &out) == -1 && TakeError("ValueError", "any_view"));
  CHECK(TVMFFIAnyViewToOwnedAny(&view, NULL) == -1 && TakeError("ValueError", "out"));
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

static void TestErrors(void) {
  TVMFFIObjectHandle err = NULL, cause = NULL, extra = NULL;
  TVMFFIErrorCell* cell;
  TVMFFIByteArray kind = Bytes("ValueError"), msg = Bytes("bad value"), bt = Bytes("  at f\n");
  TVMFFIByteArray more = Bytes("  at g\n");
  const char* parts[4];
  const TVMFFIByteArray* trace;
  int32_t code = 0;

  TVMFFIErrorMoveFromRaised(&err);
  CHECK(err == NULL);
  TVMFFIErrorMoveFromRaised(NULL); /* ignored */

  TVMFFIErrorSetRaisedFromCStr("IndexError", "index 9 out of range");
  CHECK(TakeError("IndexError", "index 9 out of range"));
  TVMFFIErrorSetRaisedFromCStr(NULL, NULL);
  CHECK(TakeError("RuntimeError", ""));

  parts[0] = "a=";
  parts[1] = NULL;
  parts[2] = "1";
  parts[3] = ", done";
  TVMFFIErrorSetRaisedFromCStrParts("KeyError", parts, 4);
  CHECK(TakeError("KeyError", "a=1, done"));
  TVMFFIErrorSetRaisedFromCStrParts("KeyError", NULL, 3);
  CHECK(TakeError("KeyError", ""));

  CHECK(TVMFFIErrorCreate(&kind, &msg, &bt, &err) == 0);
  cell = TVMFFIErrorGetCellPtr(err);
  CHECK(ByteArrayEq(cell->kind, "ValueError") && ByteArrayEq(cell->message, "bad value"));
  CHECK(ByteArrayEq(cell->backtrace, "  at f\n"));
  CHECK(cell->cause_chain == NULL && cell->extra_context == NULL);
  cell->update_backtrace(err, &more, kTVMFFIBacktraceUpdateModeAppend);
  CHECK(ByteArrayEq(cell->backtrace, "  at f\n  at g\n"));
  cell->update_backtrace(err, &more, kTVMFFIBacktraceUpdateModeReplace);
  CHECK(ByteArrayEq(cell->backtrace, "  at g\n"));

  /* Parking takes its own reference; the caller keeps its one. */
  TVMFFIErrorSetRaised(err);
  CHECK(((TVMFFIObject*)err)->combined_ref_count == (((uint64_t)1 << 32) | 2));
  {
    TVMFFIObjectHandle taken = NULL;
    TVMFFIErrorMoveFromRaised(&taken);
    CHECK(taken == err);
    TVMFFIObjectDecRef(taken);
  }
  TVMFFIErrorSetRaised(NULL);
  CHECK(TakeError("ValueError", "error"));

  CHECK(TVMFFIErrorCreate(&kind, &msg, NULL, &cause) == 0);
  CHECK(TVMFFIErrorGetCellPtr(cause)->backtrace.size == 0);
  CHECK(TVMFFIObjectCreateOpaque(NULL, kTVMFFIOpaquePyObject, NULL, &extra) == 0);
  TVMFFIObjectDecRef(err); /* done with the first error */
  CHECK(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, &bt, cause, extra, &err) == 0);
  cell = TVMFFIErrorGetCellPtr(err);
  CHECK(cell->cause_chain == cause && cell->extra_context == extra);
  CHECK(((TVMFFIObject*)cause)->combined_ref_count == (((uint64_t)1 << 32) | 2));
  TVMFFIObjectDecRef(err);
  CHECK(((TVMFFIObject*)cause)->combined_ref_count == (((uint64_t)1 << 32) | 1));
  TVMFFIObjectDecRef(cause);
  TVMFFIObjectDecRef(extra);
  /* Failure is reported by return value only, nothing raised. */
  CHECK(TVMFFIErrorCreate(NULL, &msg, NULL, &err) != 0 && NoErrorRaised());
  CHECK(TVMFFIErrorCreate(&kind, &msg, NULL, NULL) != 0 && NoErrorRaised());

  trace = TVMFFIBacktrace("file.c", 12, "my_func", 0);
  CHECK(trace != NULL && ByteArrayContains(*trace, "File \"file.c\", line 12, in my_func"));
  trace = TVMFFIBacktrace(NULL, 0, NULL, 1);
  CHECK(trace != NULL && trace->data != NULL);

  CHECK(TVMFFIErrorKindLookup(&kind) == kTVMFFIErrorKindValueError);
  kind = Bytes("InternalError");
  CHECK(TVMFFIErrorKindLookup(&kind) == kTVMFFIErrorKindInternalError);
  kind = Bytes("c_api_test.CustomError");
  CHECK(TVMFFIErrorKindLookup(&kind) == kTVMFFIErrorKindUnknown);
  CHECK(TVMFFIErrorKindRegister(&kind, &code) == 0 && code >= kTVMFFIErrorKindCustomBegin);
  CHECK(TVMFFIErrorKindLookup(&kind) == code);
  kind = Bytes("TypeError");
  CHECK(TVMFFIErrorKindRegister(&kind, &code) == 0 && code == kTVMFFIErrorKindTypeError);
  CHECK(TVMFFIErrorKindLookup(NULL) == kTVMFFIErrorKindUnknown);
  CHECK(TVMFFIErrorKindRegister(NULL, &code) == -1 && TakeError("ValueError", "kind"));
  kind = Bytes("");
  CHECK(TVMFFIErrorKindRegister(&kind, &code) == -1 && TakeError("ValueError", "empty"));
}

/* ------------------------------------------------------------------------ */
/* Strings, bytes, data types                                               */
/* ------------------------------------------------------------------------ */

static void TestStrings(void) {
  TVMFFIAny out;
  TVMFFIByteArray in = Bytes("1234567");
  DLDataType dt;
  TVMFFIByteArray s;

  CHECK(TVMFFIStringFromByteArray(&in, &out) == 0 && out.type_index == kTVMFFISmallStr &&
        out.small_str_len == 7 && out.v_bytes[7] == '\0');
  in = Bytes("12345678");
  CHECK(TVMFFIStringFromByteArray(&in, &out) == 0 && out.type_index == kTVMFFIStr);
  CHECK(ByteArrayEq(*TVMFFIBytesGetByteArrayPtr(out.v_obj), "12345678"));
  CHECK(TVMFFIBytesGetByteArrayPtr(out.v_obj)->data[8] == '\0');
  ReleaseAny(&out);
  CHECK(TVMFFIBytesFromByteArray(&in, &out) == 0 && out.type_index == kTVMFFIBytes);
  ReleaseAny(&out);
  in = Bytes("");
  CHECK(TVMFFIBytesFromByteArray(&in, &out) == 0 && out.type_index == kTVMFFISmallBytes &&
        out.small_str_len == 0);
  CHECK(TVMFFIStringFromByteArray(NULL, &out) == -1 && TakeError("ValueError", "input"));
  CHECK(TVMFFIBytesFromByteArray(&in, NULL) == -1 && TakeError("ValueError", "out"));

  s = Bytes("float32x4");
  CHECK(TVMFFIDataTypeFromString(&s, &dt) == 0 && dt.code == kDLFloat && dt.bits == 32 &&
        dt.lanes == 4);
  CHECK(TVMFFIDataTypeToString(&dt, &out) == 0 && ByteArrayEq(AnyBytes(&out), "float32x4"));
  ReleaseAny(&out);
  s = Bytes("float8_e4m3fn");
  CHECK(TVMFFIDataTypeFromString(&s, &dt) == 0 && dt.code == kDLFloat8_e4m3fn && dt.bits == 8);
  CHECK(TVMFFIDataTypeToString(&dt, &out) == 0 && ByteArrayEq(AnyBytes(&out), "float8_e4m3fn"));
  ReleaseAny(&out);
  s = Bytes("bool");
  CHECK(TVMFFIDataTypeFromString(&s, &dt) == 0 && dt.code == kDLBool && dt.bits == 8 &&
        dt.lanes == 1);
  s = Bytes("float33q");
  CHECK(TVMFFIDataTypeFromString(&s, &dt) == -1 &&
        TakeError("ValueError", "Cannot parse data type `float33q`"));
  CHECK(TVMFFIDataTypeFromString(NULL, &dt) == -1 && TakeError("ValueError", "str"));
  CHECK(TVMFFIDataTypeToString(NULL, &out) == -1 && TakeError("ValueError", "dtype"));
}

/* ------------------------------------------------------------------------ */
/* Hand-made Shape and Array objects, for the inline accessors              */
/* ------------------------------------------------------------------------ */

typedef struct {
  TVMFFIObject header;
  TVMFFIShapeCell cell;
  int64_t dims[2];
} HandShape;

typedef struct {
  TVMFFIObject header;
  TVMFFISeqCell cell;
  TVMFFIAny items[2];
} HandArray;

static void NoopDeleter(void* self, int flags) {
  (void)self;
  (void)flags;
}

static void TestInlineAccessors(void) {
  HandShape shape;
  HandArray array;
  memset(&shape, 0, sizeof(shape));
  shape.header.combined_ref_count = ((uint64_t)1 << 32) | 1;
  shape.header.type_index = kTVMFFIShape;
  shape.header.deleter = NoopDeleter;
  shape.dims[0] = 2;
  shape.dims[1] = 3;
  shape.cell.data = shape.dims;
  shape.cell.size = 2;
  CHECK(TVMFFIShapeGetCellPtr(&shape)->size == 2 && TVMFFIShapeGetCellPtr(&shape)->data[1] == 3);
  CHECK(TVMFFIObjectGetTypeIndex(&shape) == kTVMFFIShape);

  memset(&array, 0, sizeof(array));
  array.header.type_index = kTVMFFIArray;
  array.items[0] = IntAny(5);
  array.cell.data = array.items;
  array.cell.size = 1;
  array.cell.capacity = 2;
  array.cell.data_deleter = NULL;
  CHECK(TVMFFISeqGetCellPtr(&array)->size == 1 && TVMFFISeqGetCellPtr(&array)->capacity == 2);
  CHECK(((TVMFFIAny*)TVMFFISeqGetCellPtr(&array)->data)[0].v_int64 == 5);
}

/* ------------------------------------------------------------------------ */
/* Tensors and the tensor concept doc's C conversions                       */
/* ------------------------------------------------------------------------ */

/* Any/AnyView -> DLTensor* (borrowed). */
static int AnyToDLTensorView(const TVMFFIAny* value, DLTensor** out) {
  if (value->type_index == kTVMFFIDLTensorPtr) {
    *out = (DLTensor*)value->v_ptr;
    return SUCCESS;
  }
  if (value->type_index == kTVMFFITensor) {
    /* The DLTensor sits right after the object header. */
    *out = (DLTensor*)((char*)value->v_obj + sizeof(TVMFFIObject));
    return SUCCESS;
  }
  return FAILURE;
}

/* Any/AnyView -> Tensor handle (the caller IncRefs to keep it). */
static int AnyToOwnedTensor(const TVMFFIAny* value, TVMFFIObjectHandle* out) {
  if (value->type_index == kTVMFFITensor) {
    *out = (TVMFFIObjectHandle)value->v_obj;
    return SUCCESS;
  }
  return FAILURE;
}

/* Tensor handle -> AnyView (borrowed). */
static int TensorToAnyView(TVMFFIObjectHandle tensor, TVMFFIAny* out_any_view) {
  out_any_view->type_index = kTVMFFITensor;
  out_any_view->zero_padding = 0;
  out_any_view->v_obj = (TVMFFIObject*)tensor;
  return SUCCESS;
}

/* Tensor handle -> Any (takes a reference). */
static int TensorToAny(TVMFFIObjectHandle tensor, TVMFFIAny* out_any) {
  TVMFFIAny view;
  int ret = TensorToAnyView(tensor, &view);
  if (ret != SUCCESS) return ret;
  TVMFFIObjectIncRef(tensor);
  *out_any = view;
  return SUCCESS;
}

/* DLTensor* -> AnyView; there is no owning form. */
static int DLTensorToAnyView(DLTensor* tensor, TVMFFIAny* out) {
  if (!tensor || !out) return FAILURE;
  out->type_index = kTVMFFIDLTensorPtr;
  out->zero_padding = 0;
  out->v_ptr = tensor;
  return SUCCESS;
}

typedef struct {
  DLManagedTensorVersioned managed;
  int64_t shape[2];
  float data[6];
  int* deleted;
} CpuTensor;

static void CpuTensorDeleter(DLManagedTensorVersioned* self) {
  CpuTensor* t = (CpuTensor*)self->manager_ctx;
  ++*t->deleted;
  free(t);
}

static DLManagedTensorVersioned* MakeCpuTensor(int* deleted, uint64_t flags) {
  CpuTensor* t = (CpuTensor*)calloc(1, sizeof(CpuTensor));
  int i;
  t->shape[0] = 2;
  t->shape[1] = 3;
  for (i = 0; i < 6; ++i) t->data[i] = (float)i;
  t->deleted = deleted;
  t->managed.version.major = DLPACK_MAJOR_VERSION;
  t->managed.version.minor = DLPACK_MINOR_VERSION;
  t->managed.manager_ctx = t;
  t->managed.deleter = CpuTensorDeleter;
  t->managed.flags = flags;
  t->managed.dl_tensor.data = t->data;
  t->managed.dl_tensor.device = TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
  t->managed.dl_tensor.ndim = 2;
  t->managed.dl_tensor.dtype.code = kDLFloat;
  t->managed.dl_tensor.dtype.bits = 32;
  t->managed.dl_tensor.dtype.lanes = 1;
  t->managed.dl_tensor.shape = t->shape;
  t->managed.dl_tensor.strides = NULL;
  t->managed.dl_tensor.byte_offset = 0;
  return &t->managed;
}

typedef struct {
  DLManagedTensor managed;
  int64_t shape[1];
  int32_t data[4];
  int* deleted;
} LegacyTensor;

static void LegacyTensorDeleter(DLManagedTensor* self) {
  LegacyTensor* t = (LegacyTensor*)self->manager_ctx;
  ++*t->deleted;
  free(t);
}

static void TestTensors(void) {
  int deleted = 0;
  TVMFFIObjectHandle tensor = NULL, back = NULL, view = NULL;
  DLManagedTensorVersioned* exported = NULL;
  DLManagedTensor* legacy_out = NULL;
  DLTensor* dl = NULL;
  DLTensor proto;
  TVMFFIAny any, owned;
  TVMFFIObjectHandle handle = NULL;
  int64_t view_shape[1] = {3};
  LegacyTensor* legacy;

  CHECK(TVMFFITensorFromDLPackVersioned(MakeCpuTensor(&deleted, DLPACK_FLAG_BITMASK_READ_ONLY), 4,
                                        1, &tensor) == 0);
  CHECK(TVMFFIObjectGetTypeIndex(tensor) == kTVMFFITensor);
  dl = TVMFFITensorGetDLTensorPtr(tensor);
  CHECK(dl->ndim == 2 && dl->shape[1] == 3 && dl->strides != NULL && dl->strides[0] == 3 &&
        dl->strides[1] == 1);

  /* The doc's conversions. */
  CHECK(TensorToAnyView(tensor, &any) == SUCCESS && any.type_index == kTVMFFITensor);
  dl = NULL;
  CHECK(AnyToDLTensorView(&any, &dl) == SUCCESS && dl == TVMFFITensorGetDLTensorPtr(tensor));
  CHECK(((float*)dl->data)[5] == 5.0f);
  CHECK(AnyToOwnedTensor(&any, &handle) == SUCCESS && handle == tensor);
  CHECK(TensorToAny(tensor, &owned) == SUCCESS && owned.v_obj == tensor);
  CHECK(((TVMFFIObject*)tensor)->combined_ref_count == (((uint64_t)1 << 32) | 2));
  ReleaseAny(&owned);
  CHECK(DLTensorToAnyView(dl, &any) == SUCCESS && any.type_index == kTVMFFIDLTensorPtr);
  CHECK(AnyToDLTensorView(&any, &dl) == SUCCESS && dl == (DLTensor*)any.v_ptr);
  CHECK(AnyToOwnedTensor(&any, &handle) == FAILURE);
  CHECK(DLTensorToAnyView(NULL, &any) == FAILURE);
  any = IntAny(1);
  CHECK(AnyToDLTensorView(&any, &dl) == FAILURE);

  /* Export and re-import: same memory, flags kept. */
  CHECK(TVMFFITensorToDLPackVersioned(tensor, &exported) == 0);
  CHECK(exported->version.major == DLPACK_MAJOR_VERSION &&
        exported->version.minor == DLPACK_MINOR_VERSION);
  CHECK(exported->flags & DLPACK_FLAG_BITMASK_READ_ONLY);
  CHECK(TVMFFITensorFromDLPackVersioned(exported, 0, 0, &back) == 0);
  CHECK(TVMFFITensorGetDLTensorPtr(back)->data == TVMFFITensorGetDLTensorPtr(tensor)->data);
  /* Legacy DLPack cannot carry the read-only flag: its export is refused. */
  legacy_out = NULL;
  CHECK(TVMFFITensorToDLPack(tensor, &legacy_out) == -1 && legacy_out == NULL);
  {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    CHECK(err != NULL);
    CHECK(TVMFFIErrorGetCellPtr(err)->kind.size == 10 &&
          memcmp(TVMFFIErrorGetCellPtr(err)->kind.data, "ValueError", 10) == 0);
    TVMFFIObjectDecRef(err);
  }

  /* A view holds its source. */
  memset(&proto, 0, sizeof(proto));
  proto = *TVMFFITensorGetDLTensorPtr(tensor);
  proto.ndim = 1;
  proto.shape = view_shape;
  proto.strides = NULL;
  proto.byte_offset = 3 * sizeof(float);
  CHECK(TVMFFITensorCreateUnsafeView(tensor, &proto, &view) == 0);
  CHECK(TVMFFITensorGetDLTensorPtr(view)->shape != view_shape);
  CHECK(TVMFFITensorGetDLTensorPtr(view)->strides[0] == 1);
  TVMFFIObjectDecRef(tensor);
  TVMFFIObjectDecRef(back);
  CHECK(deleted == 0);
  dl = TVMFFITensorGetDLTensorPtr(view);
  CHECK(((float*)((char*)dl->data + dl->byte_offset))[2] == 5.0f);
  TVMFFIObjectDecRef(view);
  CHECK(deleted == 1);

  /* Legacy import with a failure: the deleter still runs exactly once. */
  legacy = (LegacyTensor*)calloc(1, sizeof(LegacyTensor));
  legacy->deleted = &deleted;
  legacy->shape[0] = -4;
  legacy->managed.manager_ctx = legacy;
  legacy->managed.deleter = LegacyTensorDeleter;
  legacy->managed.dl_tensor.data = legacy->data;
  legacy->managed.dl_tensor.device = TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
  legacy->managed.dl_tensor.ndim = 1;
  legacy->managed.dl_tensor.dtype.code = kDLInt;
  legacy->managed.dl_tensor.dtype.bits = 32;
  legacy->managed.dl_tensor.dtype.lanes = 1;
  legacy->managed.dl_tensor.shape = legacy->shape;
  CHECK(TVMFFITensorFromDLPack(&legacy->managed, 0, 0, &tensor) == -1);
  CHECK(TakeError("ValueError", "negative extent") && deleted == 2);

  /* Bad arguments. */
  CHECK(TVMFFITensorFromDLPack(NULL, 0, 0, &tensor) == -1 && TakeError("ValueError", "from"));
  CHECK(TVMFFITensorFromDLPackVersioned(MakeCpuTensor(&deleted, 0), 0, 0, NULL) == -1);
  CHECK(TakeError("ValueError", "out") && deleted == 3);
  CHECK(TVMFFITensorToDLPack(NULL, &legacy_out) == -1 && TakeError("ValueError", "from"));
  CHECK(TVMFFITensorToDLPackVersioned(NULL, &exported) == -1 && TakeError("ValueError", "from"));
  {
    TVMFFIObjectHandle fn = NULL;
    CHECK(TVMFFIFunctionCreate(NULL, ReturnArgCount, NULL, &fn) == 0);
    CHECK(TVMFFITensorToDLPack(fn, &legacy_out) == -1 && TakeError("TypeError", "ffi.Function"));
    CHECK(TVMFFITensorCreateUnsafeView(fn, &proto, &view) == -1 && TakeError("TypeError", NULL));
    TVMFFIObjectDecRef(fn);
  }
  CHECK(TVMFFITensorCreateUnsafeView(NULL, &proto, &view) == -1 && TakeError("ValueError", NULL));
}

/* ------------------------------------------------------------------------ */
/* One-time handles                                                         */
/* ------------------------------------------------------------------------ */

static int g_init_calls = 0;
static int g_storage = 0;

static int InitHandle(void** result) {
  ++g_init_calls;
  *result = &g_storage;
  return 0;
}

static int InitFails(void** result) {
  (void)result;
  TVMFFIErrorSetRaisedFromCStr("RuntimeError", "init failed");
  return -1;
}

static int DeinitHandle(void* handle) {
  CHECK(handle == &g_storage);
  --g_init_calls;
  return 0;
}

static void TestInitOnce(void) {
  void* handle = NULL;
  CHECK(TVMFFIHandleInitOnce(&handle, InitHandle) == 0 && handle == &g_storage);
  CHECK(TVMFFIHandleInitOnce(&handle, InitHandle) == 0 && g_init_calls == 1);
  CHECK(TVMFFIHandleDeinitOnce(&handle, DeinitHandle) == 0 && handle == NULL && g_init_calls == 0);
  CHECK(TVMFFIHandleDeinitOnce(&handle, DeinitHandle) == 0 && g_init_calls == 0);
  CHECK(TVMFFIHandleInitOnce(&handle, InitFails) == -1 && handle == NULL);
  CHECK(TakeError("RuntimeError", "init failed"));
  CHECK(TVMFFIHandleInitOnce(NULL, InitHandle) == -1 && TakeError("ValueError", "handle_addr"));
  CHECK(TVMFFIHandleDeinitOnce(NULL, DeinitHandle) == -1 && TakeError("ValueError", NULL));
}

/* ------------------------------------------------------------------------ */
/* Environment                                                              */
/* ------------------------------------------------------------------------ */

typedef struct {
  DLManagedTensorVersioned managed;
  int64_t shape[4];
  void* data;
} AllocatedTensor;

static int g_alloc_frees = 0;

static void AllocatedDeleter(DLManagedTensorVersioned* self) {
  AllocatedTensor* t = (AllocatedTensor*)self->manager_ctx;
  free(t->data);
  free(t);
  ++g_alloc_frees;
}

static int SimpleAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                           void (*SetError)(void* error_ctx, const char* kind,
                                            const char* message)) {
  AllocatedTensor* t;
  int32_t i;
  size_t n = 1;
  if (prototype->ndim > 4) {
    SetError(error_ctx, "ValueError", "SimpleAllocator supports at most 4 dimensions");
    return -1;
  }
  t = (AllocatedTensor*)calloc(1, sizeof(AllocatedTensor));
  for (i = 0; i < prototype->ndim; ++i) {
    t->shape[i] = prototype->shape[i];
    n *= (size_t)prototype->shape[i];
  }
  t->data = calloc(n ? n : 1, (prototype->dtype.bits + 7u) / 8u);
  t->managed.version.major = DLPACK_MAJOR_VERSION;
  t->managed.version.minor = DLPACK_MINOR_VERSION;
  t->managed.manager_ctx = t;
  t->managed.deleter = AllocatedDeleter;
  t->managed.dl_tensor = *prototype;
  t->managed.dl_tensor.data = t->data;
  t->managed.dl_tensor.shape = t->shape;
  t->managed.dl_tensor.strides = NULL;
  t->managed.dl_tensor.byte_offset = 0;
  *out = &t->managed;
  return 0;
}

static int g_signal_checks = 0;
static int CheckSignalsHook(void) {
  ++g_signal_checks;
  return 0;
}

static void TestEnv(void) {
  TVMFFIStreamHandle prev = (TVMFFIStreamHandle)1;
  DLPackManagedTensorAllocator before = SimpleAllocator;
  DLTensor proto;
  int64_t shape[2] = {3, 5};
  TVMFFIObjectHandle t = NULL;
  void* hook = NULL;
  int symbol_value = 0;

  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == NULL);
  CHECK(TVMFFIEnvSetStream(kDLCUDA, 0, &symbol_value, &prev) == 0 && prev == NULL);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == &symbol_value);
  CHECK(TVMFFIEnvSetStream(kDLCUDA, 1 << 20, &shape, NULL) == 0);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 1 << 20) == &shape);
  CHECK(TVMFFIEnvSetStream(kDLCUDA, 0, NULL, &prev) == 0 && prev == &symbol_value);
  CHECK(TVMFFIEnvSetStream(kDLCUDA, -1, NULL, NULL) == -1 && TakeError("ValueError", "device_id"));
  CHECK(TVMFFIEnvGetStream(kDLCUDA, -1) == NULL);

  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == NULL);
  memset(&proto, 0, sizeof(proto));
  proto.device = TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
  proto.ndim = 2;
  proto.shape = shape;
  proto.dtype.code = kDLFloat;
  proto.dtype.bits = 32;
  proto.dtype.lanes = 1;
  CHECK(TVMFFIEnvTensorAlloc(&proto, &t) == -1 && TakeError("RuntimeError", "no tensor allocator"));
  CHECK(TVMFFIEnvSetDLPackManagedTensorAllocator(SimpleAllocator, 0, &before) == 0 &&
        before == NULL);
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == SimpleAllocator);
  CHECK(TVMFFIEnvTensorAlloc(&proto, &t) == 0);
  CHECK(TVMFFITensorGetDLTensorPtr(t)->shape[1] == 5 && TVMFFITensorGetDLTensorPtr(t)->data);
  TVMFFIObjectDecRef(t);
  CHECK(g_alloc_frees == 1);
  proto.ndim = 5;
  CHECK(TVMFFIEnvTensorAlloc(&proto, &t) == -1 && TakeError("ValueError", "at most 4"));
  CHECK(TVMFFIEnvTensorAlloc(NULL, &t) == -1 && TakeError("ValueError", "prototype"));
  CHECK(TVMFFIEnvTensorAlloc(&proto, NULL) == -1 && TakeError("ValueError", "out"));
  CHECK(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, NULL) == 0);
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == NULL);

  CHECK(TVMFFIEnvCheckSignals() == 0 && g_signal_checks == 0);
  memcpy(&hook, &(int (*)(void)){CheckSignalsHook}, sizeof(hook));
  CHECK(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", hook) == 0);
  CHECK(TVMFFIEnvCheckSignals() == 0 && g_signal_checks == 1);
  CHECK(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", NULL) == 0);
  CHECK(TVMFFIEnvCheckSignals() == 0 && g_signal_checks == 1);
  CHECK(TVMFFIEnvRegisterCAPI(NULL, hook) == -1 && TakeError("ValueError", "name"));

  {
    /* An object that is not a loaded library's module finds nothing. */
    TVMFFIObjectHandle out = NULL, not_a_module = NULL;
    CHECK(TVMFFIObjectCreateOpaque(NULL, kTVMFFIOpaquePyObject, NULL, &not_a_module) == 0);
    CHECK(TVMFFIEnvModLookupFromImports(not_a_module, "missing_fn", &out) == -1 && out == NULL);
    CHECK(!NoErrorRaised());
    CHECK(TVMFFIEnvModLookupFromImports(NULL, "f", &out) == -1 &&
          TakeError("ValueError", "library_ctx"));
    CHECK(TVMFFIEnvModLookupFromImports(not_a_module, NULL, &out) == -1 &&
          TakeError("ValueError", "func_name"));
    CHECK(TVMFFIEnvModLookupFromImports(not_a_module, "f", NULL) == -1 &&
          TakeError("ValueError", "out"));
    TVMFFIObjectDecRef(not_a_module);
  }
  CHECK(TVMFFIEnvModRegisterContextSymbol("__TVMFFICApiTestHook", &symbol_value) == 0);
  CHECK(TVMFFIEnvModRegisterContextSymbol(NULL, &symbol_value) == -1 &&
        TakeError("ValueError", "name"));
  CHECK(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_c_api_test", hook) == 0);
  CHECK(TVMFFIEnvModRegisterSystemLibSymbol(NULL, hook) == -1 && TakeError("ValueError", "name"));
}

/* TVMFFIGet/SetCustomAllocator: the built-in allocator, installing one, restoring. */
static int g_custom_allocations = 0;
static TVMFFICustomAllocator* g_builtin_allocator = NULL;
static void* CountingAllocate(size_t size, size_t alignment, int32_t type_index, void* context) {
  ++g_custom_allocations;
  CHECK(context == &g_custom_allocations);
  return g_builtin_allocator->allocate(size, alignment, type_index, g_builtin_allocator->context);
}

static void TestCustomAllocator(void) {
  TVMFFICustomAllocator* builtin = TVMFFIGetCustomAllocator();
  CHECK(builtin != NULL && builtin->allocate != NULL);
  g_builtin_allocator = builtin;
  CHECK(TVMFFIGetCustomAllocator() == builtin);
  /* The built-in allocator: aligned body, header before it, storage freed by delete_space. */
  size_t alignments[] = {1, 8, 16, 64, 4096};
  for (size_t i = 0; i < sizeof(alignments) / sizeof(alignments[0]); ++i) {
    void* body = builtin->allocate(100, alignments[i], kTVMFFIStr, builtin->context);
    CHECK(body != NULL && ((uintptr_t)body % alignments[i]) == 0);
    if (body == NULL) continue;
    memset(body, 0xab, 100);
    TVMFFIObjectAllocHeader* header = (TVMFFIObjectAllocHeader*)body - 1;
    CHECK(header->delete_space != NULL);
    header->delete_space(body);
  }
  CHECK(NoErrorRaised());
  CHECK(builtin->allocate(16, 3, kTVMFFIStr, NULL) == NULL && TakeError("ValueError", "alignment"));
  CHECK(builtin->allocate(16, 0, kTVMFFIStr, NULL) == NULL &&
        TakeError("ValueError", "power of two"));
  CHECK(builtin->allocate(SIZE_MAX - 8, 16, kTVMFFIStr, NULL) == NULL &&
        TakeError("MemoryError", "cannot allocate"));
  /* Installing one: it is handed back by pointer; NULL restores the built-in one. */
  static TVMFFICustomAllocator mine = {CountingAllocate, &g_custom_allocations};
  CHECK(TVMFFISetCustomAllocator(&mine) == 0);
  CHECK(TVMFFIGetCustomAllocator() == &mine);
  CHECK(TVMFFIGetCustomAllocator()->context == &g_custom_allocations);
  /* Objects the runtime makes do not go through it (staged as in TVM-FFI 0.1.14). */
  TVMFFIAny str = NoneAny();
  TVMFFIByteArray long_text = Bytes("a string long enough not to be a small string");
  CHECK(TVMFFIStringFromByteArray(&long_text, &str) == 0 && str.type_index == kTVMFFIStr);
  CHECK(g_custom_allocations == 0);
  ReleaseAny(&str);
  /* Through the installed entry, the storage comes back with its header. */
  void* body =
      TVMFFIGetCustomAllocator()->allocate(24, 8, kTVMFFIStr, TVMFFIGetCustomAllocator()->context);
  CHECK(body != NULL && g_custom_allocations == 1);
  if (body != NULL) ((TVMFFIObjectAllocHeader*)body - 1)->delete_space(body);
  CHECK(TVMFFISetCustomAllocator(NULL) == 0);
  CHECK(TVMFFIGetCustomAllocator() == builtin);
}

int main(void) {
  TestVersionAndTypes();
  TestObjects();
  TestTypes();
  TestFunctions();
  TestAnyViewToOwned();
  TestErrors();
  TestStrings();
  TestInlineAccessors();
  TestTensors();
  TestInitOnce();
  TestEnv();
  TestCustomAllocator();
  CHECK(NoErrorRaised());
  printf("test_c_api: %d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
