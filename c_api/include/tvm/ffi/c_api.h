/*
 * tvmffi: the stable C ABI of TVM-FFI 0.1.
 *
 * This header is pure C11 (it also compiles as C++). It depends only on
 * <stdint.h>, <stddef.h> and <dlpack/dlpack.h>. Every layout here is fixed by
 * the TVM-FFI 0.1 ABI: code compiled against apache/tvm-ffi's c_api.h reads and
 * writes these structs with its own inline code.
 *
 * Conventions that hold for every function below unless its comment says
 * otherwise:
 *  - Return value: 0 on success, -1 on failure. On failure an Error object has
 *    been parked in the calling thread's raised-error slot; take it with
 *    TVMFFIErrorMoveFromRaised.
 *  - Ownership: a TVMFFIObjectHandle written to an `out` parameter is a new
 *    strong reference owned by the caller (release it with TVMFFIObjectDecRef).
 *    A TVMFFIAny written to an `out` parameter is owned by the caller.
 *    Pointer arguments are borrowed for the duration of the call.
 *  - Thread-safety: every function may be called from any thread at any time.
 *  - A NULL where a pointer is required is reported as a ValueError.
 */
#ifndef TVM_FFI_C_API_H_
#define TVM_FFI_C_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------- */
/* Section: versions and linkage                                             */
/* ------------------------------------------------------------------------- */

/*
 * Versioning
 * ----------
 * The ABI version is MAJOR.MINOR of the TVM_FFI_VERSION_* macros below. It
 * names the binary contract: the layouts of this header and extra/c_env_api.h,
 * the type indices and enumerators, the calling and ownership rules, and the
 * C++ records that other binaries read inline (pinned by
 * tests/c_abi/test_abi_layout.cc). The library file (libtvmffi.so, SONAME
 * libtvm_ffi.so as upstream's) does not carry it: TVMFFIGetVersion reports it.
 *
 *  - A major change breaks binaries built before it: a layout, type index,
 *    enumerator or signature changes, a function is removed or changes what
 *    it does, or a reserved word (such as __padding below) gets a new
 *    meaning. Binaries of different majors must never share a process.
 *  - A minor change only adds: new functions, new enumerators or flag bits,
 *    new type indices in the reserved ranges. A binary built for X.Y runs on
 *    any runtime X.Z with Z >= Y, never on an older one. While MAJOR is 0 the
 *    pair 0.MINOR plays the part of the major version (0.2 would not load
 *    0.1 binaries), and additions within 0.1 come in patch releases, as
 *    upstream's TVMFFIGetCustomAllocator did.
 *
 * The project version is the full MAJOR.MINOR.PATCH (CMake package,
 * pkg-config, `tvmffi --version`, `tvm-ffi-config --version`, the wheel's
 * metadata, `tvmffi.__version__`, TVMFFIGetVersion), read from these macros
 * alone. They are those of the apache/tvm-ffi release pinned as the peer
 * (tests/upstream/VERSION: 0.1.15.post2, whose c_api.h and TVMFFIGetVersion
 * say 0.1.16); .ci/upstream.sh fails when the pin moves and they do not.
 * What a library really needs is the set of TVMFFI* symbols it imports;
 * `tvmffi inspect` lists it and says whether it stays within the standard
 * TVM-FFI 0.1 set (runtime/standard_symbols.txt) or needs tvmffi extensions
 * (functions marked "tvmffi extension" below).
 *
 * TVMFFIObject::__padding is not free padding. Objects made by libtvmffi, by
 * upstream, or by C code have it 0. Function objects made by the C++ headers
 * of this project hold the tag 0x63666674 ("tffc") there, which promises the
 * two words after their TVMFFIFunctionCell (the owning library's tag and a
 * throwing C++ entry); the headers check the tag inline before they read
 * those words. Code that did not make an object must not write its
 * __padding.
 *
 * Return codes: functions return 0 on success and -1 with an error raised
 * (see below). A safe call (TVMFFISafeCallType) may also return -2: the
 * caller's environment already holds a pending error of its own (e.g. a
 * Python KeyboardInterrupt seen through TVMFFIEnvCheckSignals), nothing is
 * parked in the raised-error slot, and the caller must propagate its own
 * error unchanged. Any other nonzero value is treated like -1. (-2 also has
 * an unrelated meaning as an argument and result of
 * TVMFFITypeGetOrAllocIndex: "query only" and "not registered".)
 */

/*! \brief ABI major version. The single source of the project's version number. */
#define TVM_FFI_VERSION_MAJOR 0
/*! \brief ABI minor version. */
#define TVM_FFI_VERSION_MINOR 1
/*! \brief ABI patch version. */
#define TVM_FFI_VERSION_PATCH 16

/*! \brief Marks a declaration as exported from (or imported into) a shared library. */
#ifndef TVM_FFI_DLL
#if defined(_MSC_VER)
#ifdef TVM_FFI_EXPORTS
#define TVM_FFI_DLL __declspec(dllexport)
#else
#define TVM_FFI_DLL __declspec(dllimport)
#endif
#define TVM_FFI_DLL_EXPORT __declspec(dllexport)
#else
#define TVM_FFI_DLL __attribute__((visibility("default")))
#define TVM_FFI_DLL_EXPORT __attribute__((visibility("default")))
#endif
#endif

/*! \brief Marks a definition weak so several translation units may carry it. */
#ifndef TVM_FFI_WEAK
#if defined(_MSC_VER)
#define TVM_FFI_WEAK __declspec(selectany)
#else
#define TVM_FFI_WEAK __attribute__((weak))
#endif
#endif

/*!
 * \brief A pointer cast in the inline accessors below: reinterpret_cast when a
 *        C++ file includes this header (its -Wold-style-cast stays quiet), a C
 *        cast in C.
 */
#ifdef __cplusplus
#define TVM_FFI_C_PTR_CAST(T, x) reinterpret_cast<T>(x)
#else
#define TVM_FFI_C_PTR_CAST(T, x) ((T)(x))
#endif

/*! \brief A value cast in the inline accessors below: static_cast in C++, a C cast in C. */
#ifdef __cplusplus
#define TVM_FFI_C_VALUE_CAST(T, x) static_cast<T>(x)
#else
#define TVM_FFI_C_VALUE_CAST(T, x) ((T)(x))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief A semantic version triple, filled in by TVMFFIGetVersion. */
typedef struct {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
} TVMFFIVersion;

/* ------------------------------------------------------------------------- */
/* Section: type indices                                                     */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Type index of a value held in TVMFFIAny or of a heap object.
 *
 * Indices below kTVMFFIStaticObjectBegin are values stored inline in a
 * TVMFFIAny. Indices at or above it denote reference-counted objects whose
 * TVMFFIObject* lives in TVMFFIAny::v_obj. Indices from kTVMFFIDynObjectBegin
 * on are handed out at run time by TVMFFITypeGetOrAllocIndex.
 */
#ifdef __cplusplus
enum TVMFFITypeIndex : int32_t {
#else
typedef enum {
#endif
  /*! \brief Any type; used only in static type descriptions, never stored. */
  kTVMFFIAny = -1,
  kTVMFFINone = 0,
  kTVMFFIInt = 1,
  kTVMFFIBool = 2,
  kTVMFFIFloat = 3,
  /*! \brief void*, not owned. */
  kTVMFFIOpaquePtr = 4,
  kTVMFFIDataType = 5,
  kTVMFFIDevice = 6,
  /*! \brief DLTensor*, borrowed: only ever valid in a view (AnyView / arguments). */
  kTVMFFIDLTensorPtr = 7,
  /*! \brief NUL-terminated const char*, borrowed: only valid in a view. */
  kTVMFFIRawStr = 8,
  /*! \brief TVMFFIByteArray*, borrowed: only valid in a view. */
  kTVMFFIByteArrayPtr = 9,
  /*! \brief Pointer to an object reference that the callee may move from. */
  kTVMFFIObjectRValueRef = 10,
  /*! \brief String of at most 7 bytes stored inline (small_str_len, v_bytes). */
  kTVMFFISmallStr = 11,
  /*! \brief Bytes of at most 7 bytes stored inline (small_str_len, v_bytes). */
  kTVMFFISmallBytes = 12,
  /*!
   * \brief Structural mutation's "keep the original" marker (no payload): a
   *        mutation hook returns it instead of a replacement. Never a value of
   *        its own; every other index, None included, is a valid replacement.
   */
  kTVMFFIUnchanged = 13,
  kTVMFFIStaticObjectBegin = 64,
  kTVMFFIObject = 64,
  kTVMFFIStr = 65,
  kTVMFFIBytes = 66,
  kTVMFFIError = 67,
  kTVMFFIFunction = 68,
  kTVMFFIShape = 69,
  kTVMFFITensor = 70,
  kTVMFFIArray = 71,
  kTVMFFIMap = 72,
  kTVMFFIModule = 73,
  kTVMFFIOpaquePyObject = 74,
  kTVMFFIList = 75,
  kTVMFFIDict = 76,
  /*! \brief The object a structural visitor returns to stop a walk (carries a payload). */
  kTVMFFIVisitInterrupt = 77,
  /*!
   * \brief An integer outside the int64 range: after the object header, a
   *        `size_t` word count, then that many int64 words (two's complement,
   *        least significant first, native byte order), with no redundant
   *        sign word. A value that fits int64 is always kTVMFFIInt instead.
   */
  kTVMFFIBigInt = 78,
  kTVMFFIStaticObjectEnd,
  kTVMFFIDynObjectBegin = 128
#ifdef __cplusplus
};
#else
} TVMFFITypeIndex;
#endif

/* ------------------------------------------------------------------------- */
/* Section: object header and value cells                                    */
/* ------------------------------------------------------------------------- */

/*! \brief An untyped handle to a heap object (a TVMFFIObject*). */
typedef void* TVMFFIObjectHandle;

/*! \brief Flags passed to TVMFFIObject::deleter. */
#ifdef __cplusplus
enum TVMFFIObjectDeleterFlagBitMask : int32_t {
#else
typedef enum {
#endif
  /*! \brief The strong count reached zero: destroy the payload, keep the memory. */
  kTVMFFIObjectDeleterFlagBitMaskStrong = 1,
  /*! \brief The weak count reached zero: free the memory. */
  kTVMFFIObjectDeleterFlagBitMaskWeak = 2,
  /*! \brief Both at once: destroy and free. */
  kTVMFFIObjectDeleterFlagBitMaskBoth = 3
#ifdef __cplusplus
};
#else
} TVMFFIObjectDeleterFlagBitMask;
#endif

/*!
 * \brief Header of every heap object (24 bytes).
 *
 * combined_ref_count holds the strong count in its low 32 bits and the weak
 * count in its high 32 bits; a new object starts at (1 << 32) | 1. Other
 * binaries update it with inline atomics, see TVMFFIObjectDecRef.
 */
typedef struct {
  uint64_t combined_ref_count;
  int32_t type_index;
  uint32_t __padding;
  union {
    /*! \brief Called with TVMFFIObjectDeleterFlagBitMask flags. */
    void (*deleter)(void* self, int flags);
    int64_t __ensure_align;
  };
} TVMFFIObject;

/*!
 * \brief The 16-byte tagged value passed across the ABI.
 *
 * In an owning Any, an object index means v_obj holds one strong reference;
 * in a borrowing AnyView it holds none. zero_padding must be 0 except for
 * kTVMFFISmallStr / kTVMFFISmallBytes, where it is small_str_len.
 */
typedef struct {
  int32_t type_index;
  union {
    uint32_t zero_padding;
    uint32_t small_str_len;
  };
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    const char* v_c_str;
    TVMFFIObject* v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
    char v_bytes[8];
    uint64_t v_uint64;
  };
} TVMFFIAny;

/*! \brief A borrowed run of bytes; for String objects data[size] is NUL. */
typedef struct {
  const char* data;
  size_t size;
} TVMFFIByteArray;

/*!
 * \brief Payload of a Shape object, right after its header.
 *
 * A Shape is a tuple of int64 values; negative values are allowed (the global
 * `ffi.Shape(-1, 4)` accepts them, as upstream does: -1 marks an unknown
 * extent). Whatever makes a tensor from a shape refuses negative extents.
 */
typedef struct {
  const int64_t* data;
  size_t size;
} TVMFFIShapeCell;

/*! \brief Payload of an Array (or List) object, right after its header. Elements are TVMFFIAny. */
#ifdef __cplusplus
struct TVMFFISeqCell {
#else
typedef struct {
#endif
  void* data;
  int64_t size;
  int64_t capacity;
  /*! \brief Frees `data` when it was allocated apart from the object; NULL when inline. */
  void (*data_deleter)(void*);
#ifdef __cplusplus
};
#else
} TVMFFISeqCell;
#endif

/*! \brief How TVMFFIErrorCell::update_backtrace treats the given text. */
#ifdef __cplusplus
enum TVMFFIBacktraceUpdateMode : int32_t {
#else
typedef enum {
#endif
  kTVMFFIBacktraceUpdateModeReplace = 0,
  kTVMFFIBacktraceUpdateModeAppend = 1
#ifdef __cplusplus
};
#else
} TVMFFIBacktraceUpdateMode;
#endif

/*! \brief Payload of an Error object, right after its header (72 bytes). */
typedef struct {
  TVMFFIByteArray kind;
  TVMFFIByteArray message;
  /*! \brief Most recent frame first. */
  TVMFFIByteArray backtrace;
  /*! \brief Replaces or appends to `backtrace` (mode: TVMFFIBacktraceUpdateMode). */
  void (*update_backtrace)(TVMFFIObjectHandle self, const TVMFFIByteArray* backtrace,
                           int32_t update_mode);
  /*! \brief Optional Error that caused this one; owned by the cell (may be NULL). */
  TVMFFIObjectHandle cause_chain;
  /*! \brief Optional extra context object; owned by the cell (may be NULL). */
  TVMFFIObjectHandle extra_context;
} TVMFFIErrorCell;

/*!
 * \brief The safe-call convention of every FFI function.
 *
 * The caller sets result->type_index = kTVMFFINone first. Arguments are
 * borrowed views; on success (0) *result holds an owned value; on failure (-1)
 * the error is parked in the thread-local slot.
 */
typedef int (*TVMFFISafeCallType)(void* handle, const TVMFFIAny* args, int32_t num_args,
                                  TVMFFIAny* result);

/*! \brief Payload of a Function object, right after its header. */
typedef struct {
  TVMFFISafeCallType safe_call;
  /*! \brief Optional C++ entry that throws instead of returning -1; NULL for C functions. */
  void* cpp_call;
} TVMFFIFunctionCell;

/*! \brief Payload of an opaque object, right after its header. */
typedef struct {
  void* handle;
} TVMFFIOpaqueObjectCell;

/* ------------------------------------------------------------------------- */
/* Section: version                                                          */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Report the ABI version the library implements.
 * \param out_version Written with major/minor/patch; ignored when NULL.
 * Thread-safe; never fails.
 */
TVM_FFI_DLL void TVMFFIGetVersion(TVMFFIVersion* out_version);

/* ------------------------------------------------------------------------- */
/* Section: objects                                                          */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Add one strong reference.
 * \param obj The object; NULL is accepted and ignored.
 * \return 0. Thread-safe (atomic).
 */
TVM_FFI_DLL int TVMFFIObjectIncRef(TVMFFIObjectHandle obj);

/*!
 * \brief Drop one strong reference, running the deleter as the ABI describes.
 *
 * If the count was exactly (1<<32)|1 the deleter runs with flags 3. If only the
 * strong part was 1, the deleter runs with flag 1, then the weak reference held
 * by the strong ones is dropped and, if none is left, the deleter runs with 2.
 * \param obj The object; NULL is accepted and ignored.
 * \return 0. Thread-safe (atomic).
 */
TVM_FFI_DLL int TVMFFIObjectDecRef(TVMFFIObjectHandle obj);

/*!
 * \brief Wrap a foreign handle in a reference-counted opaque object.
 * \param handle The foreign resource (stored in TVMFFIOpaqueObjectCell).
 * \param type_index kTVMFFIOpaquePyObject or another registered opaque type.
 * \param deleter Called once with `handle` when the object dies; may be NULL.
 * \param out Receives the new object (owned by the caller).
 * \return 0 or -1 (ValueError for a NULL out).
 */
TVM_FFI_DLL int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index,
                                         void (*deleter)(void* handle), TVMFFIObjectHandle* out);

/* ------------------------------------------------------------------------- */
/* Section: custom object allocator (standard since TVM-FFI 0.1.1x)          */
/* ------------------------------------------------------------------------- */

/*!
 * \brief The word an allocator places directly before each object body it
 *        hands out: how that body's storage is given back.
 *
 * Layout (the ABI): one function pointer, 8 bytes on 64-bit targets.
 */
typedef struct {
  /*!
   * \brief Give back the storage of the body at `ptr` (the body, not this
   *        header), including any private prefix the allocator placed before
   *        it. The body's fields must not be read: the object may already be
   *        destroyed. May be NULL when the object's deleter frees the storage itself.
   */
  void (*delete_space)(void* ptr);
} TVMFFIObjectAllocHeader;

/*!
 * \brief A process-wide allocator for object storage, installed by a frontend
 *        (e.g. a language binding that keeps its own data before each object).
 *
 * Layout (the ABI): `allocate` at offset 0, `context` at offset 8 (64-bit).
 *
 * As in TVM-FFI 0.1.14 the allocator is registered and handed back, but
 * libtvmffi's own objects do not use it yet: upstream stages that step
 * (objects keep the plain layout, with nothing before the body), so a
 * frontend must not look before an object's body.
 */
typedef struct {
  /*!
   * \brief Return uninitialised storage for an object body of `size` bytes
   *        aligned to `alignment` (a power of two), preceded by an initialised
   *        TVMFFIObjectAllocHeader (and possibly more private data before it).
   *        On failure, raise an error (TVMFFIErrorSetRaised) and return NULL.
   *        May be called from several threads at once.
   * \param type_index The type of the object the storage is for.
   * \param context The `context` of this allocator, unchanged.
   */
  void* (*allocate)(size_t size, size_t alignment, int32_t type_index, void* context);
  /*! \brief Passed to `allocate` unchanged; neither read nor owned by the runtime. */
  void* context;
} TVMFFICustomAllocator;

/*!
 * \brief The current process-wide allocator.
 * \return Never NULL: the one last set with TVMFFISetCustomAllocator, else
 *         the built-in one (which frees its storage through delete_space, and
 *         raises MemoryError / ValueError and returns NULL on failure).
 * \note Reading is safe from any thread once the allocator is installed; it is
 *       not synchronised against a concurrent TVMFFISetCustomAllocator.
 */
TVM_FFI_DLL TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void);

/*!
 * \brief Install the process-wide allocator.
 * \param allocator Kept by pointer, not copied: it (and its context) must stay
 *        valid for the rest of the process. NULL restores the built-in one.
 * \return 0 (this call cannot fail).
 * \note Install it once, while the frontend initialises and before objects
 *       are created from other threads; it is not synchronised against them.
 */
TVM_FFI_DLL int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator);

/* ------------------------------------------------------------------------- */
/* Section: type registry and reflection                                     */
/* ------------------------------------------------------------------------- */

/*! \brief Reads a field at the given address into *result (owned by the caller). */
typedef int (*TVMFFIFieldGetter)(void* field, TVMFFIAny* result);
/*! \brief Writes *value into the field at the given address. */
typedef int (*TVMFFIFieldSetter)(void* field, const TVMFFIAny* value);
/*! \brief Creates a default instance of a type. */
typedef int (*TVMFFIObjectCreator)(TVMFFIObjectHandle* result);

/*! \brief Flags of TVMFFIFieldInfo::flags. */
#ifdef __cplusplus
enum TVMFFIFieldFlagBitMask : int32_t {
#else
typedef enum {
#endif
  kTVMFFIFieldFlagBitMaskWritable = 1 << 0,
  kTVMFFIFieldFlagBitMaskHasDefault = 1 << 1,
  kTVMFFIFieldFlagBitMaskIsStaticMethod = 1 << 2,
  /*! \brief Structural equality and hashing skip the field. */
  kTVMFFIFieldFlagBitMaskSEqHashIgnore = 1 << 3,
  /*! \brief The field opens a recursive def region (see TVMFFIDefRegionKind). */
  kTVMFFIFieldFlagBitMaskSEqHashDefRecursive = 1 << 4,
  /*! \brief Older name of kTVMFFIFieldFlagBitMaskSEqHashDefRecursive (same bit). */
  kTVMFFIFieldFlagBitMaskSEqHashDef = 1 << 4,
  /*! \brief Upstream 0.1.15's name of kTVMFFIFieldFlagBitMaskSEqHashDefRecursive (same bit). */
  kTVMFFIFieldFlagBitMaskSEqHashDefPattern = 1 << 4,
  kTVMFFIFieldFlagBitMaskDefaultFromFactory = 1 << 5,
  /*! \brief ReprPrint leaves the field out. */
  kTVMFFIFieldFlagBitMaskReprOff = 1 << 6,
  /*! \brief The reflection-based comparisons (RecursiveEq, RecursiveLt, ...) skip the field. */
  kTVMFFIFieldFlagBitMaskCompareOff = 1 << 7,
  /*! \brief The reflection-based RecursiveHash skips the field. */
  kTVMFFIFieldFlagBitMaskHashOff = 1 << 8,
  /*!
   * \brief The generated `__ffi_init__` takes no argument for the field; it
   *        keeps its default (or what the creator put there).
   */
  kTVMFFIFieldFlagBitMaskInitOff = 1 << 9,
  /*! \brief The generated `__ffi_init__` accepts the field only by keyword. */
  kTVMFFIFieldFlagBitMaskKwOnly = 1 << 10,
  /*!
   * \brief TVMFFIFieldInfo::setter holds a TVMFFIObjectHandle of a Function,
   *        called as (field address as an opaque pointer, value), instead of
   *        a TVMFFIFieldSetter.
   */
  kTVMFFIFieldFlagBitSetterIsFunctionObj = 1 << 11,
  /*! \brief The field opens a non-recursive def region (see TVMFFIDefRegionKind). */
  kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive = 1 << 12,
  /*! \brief Upstream 0.1.15's name of kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive (same bit). */
  kTVMFFIFieldFlagBitMaskSEqHashDefSimple = 1 << 12
#ifdef __cplusplus
};
#else
} TVMFFIFieldFlagBitMask;
#endif

/*! \brief How structural equality and hashing treat a type. */
#ifdef __cplusplus
enum TVMFFISEqHashKind : int32_t {
#else
typedef enum {
#endif
  kTVMFFISEqHashKindUnsupported = 0,
  kTVMFFISEqHashKindTreeNode = 1,
  kTVMFFISEqHashKindFreeVar = 2,
  kTVMFFISEqHashKindDAGNode = 3,
  kTVMFFISEqHashKindConstTreeNode = 4,
  kTVMFFISEqHashKindUniqueInstance = 5
#ifdef __cplusplus
};
#else
} TVMFFISEqHashKind;
#endif

/*!
 * \brief Where structural equality / hashing stands while it visits a field:
 *        decides whether a free variable met for the first time is bound.
 */
#ifdef __cplusplus
enum TVMFFIDefRegionKind : int32_t {
#else
typedef enum {
#endif
  /*! \brief Outside any def region: a free variable is a use and must already be bound. */
  kTVMFFIDefRegionKindNone = 0,
  /*!
   * \brief A recursive def region: a new free variable is bound here, and the
   *        fields of that variable (its type, shape, ...) stay in the region,
   *        so variables met inside them are bound at the same site too.
   */
  kTVMFFIDefRegionKindRecursive = 1,
  /*!
   * \brief A non-recursive def region: a new free variable is bound here, but
   *        its own fields are visited as uses that must resolve against
   *        bindings made elsewhere.
   */
  kTVMFFIDefRegionKindNonRecursive = 2,
  /*! \brief Upstream 0.1.15's name of kTVMFFIDefRegionKindRecursive (same value). */
  kTVMFFIDefRegionKindPattern = 1,
  /*! \brief Upstream 0.1.15's name of kTVMFFIDefRegionKindNonRecursive (same value). */
  kTVMFFIDefRegionKindSimple = 2
#ifdef __cplusplus
};
#else
} TVMFFIDefRegionKind;
#endif

/*! \brief A reflected field of an object type. */
typedef struct {
  TVMFFIByteArray name;
  TVMFFIByteArray doc;
  /*! \brief JSON text. */
  TVMFFIByteArray metadata;
  int64_t flags;
  int64_t size;
  int64_t alignment;
  /*! \brief Bytes from the TVMFFIObject header to the field; negative before it. */
  int64_t offset;
  TVMFFIFieldGetter getter;
  TVMFFIFieldSetter setter;
  /*! \brief Default value, or a factory Function when DefaultFromFactory is set. */
  TVMFFIAny default_value_or_factory;
  /*! \brief The declared (static) type index of the field; kTVMFFIAny when unknown. */
  int32_t field_static_type_index;
} TVMFFIFieldInfo;

/*! \brief A reflected method of an object type (or a global function). */
typedef struct {
  TVMFFIByteArray name;
  TVMFFIByteArray doc;
  /*! \brief JSON text. */
  TVMFFIByteArray metadata;
  int64_t flags;
  /*! \brief The method as a Function (a view). */
  TVMFFIAny method;
} TVMFFIMethodInfo;

/*! \brief Extra reflection data of a type. */
typedef struct {
  TVMFFIByteArray doc;
  TVMFFIObjectCreator creator;
  int32_t total_size;
  TVMFFISEqHashKind structural_eq_hash_kind;
} TVMFFITypeMetadata;

/*!
 * \brief A column of per-type attribute values.
 *
 * It covers the type indices [begin_index, begin_index + size): the value of
 * type index t is data[t - begin_index] when t is in that range, and None
 * otherwise. This runtime publishes columns with begin_index 0; readers must
 * still honour it, as other runtimes of this ABI start columns elsewhere.
 */
typedef struct {
  const TVMFFIAny* data;
  /*! \brief Number of entries in data. */
  int32_t size;
  /*! \brief The type index of data[0]. */
  int32_t begin_index;
} TVMFFITypeAttrColumn;

/*!
 * \brief Run-time information about a type. Other binaries read it inline.
 *
 * type_ancestors[d] is the ancestor at depth d (0 is the root Object), for
 * d < type_depth. The record lives as long as the process.
 */
#ifdef __cplusplus
struct TVMFFITypeInfo {
#else
typedef struct TVMFFITypeInfo {
#endif
  int32_t type_index;
  int32_t type_depth;
  TVMFFIByteArray type_key;
  const struct TVMFFITypeInfo** type_ancestors;
  uint64_t type_key_hash;
  int32_t num_fields;
  int32_t num_methods;
  const TVMFFIFieldInfo* fields;
  const TVMFFIMethodInfo* methods;
  const TVMFFITypeMetadata* metadata;
#ifdef __cplusplus
};
#else
} TVMFFITypeInfo;
#endif

/*!
 * \brief Look up the type index registered for a type key.
 * \param type_key The key, e.g. "ffi.String".
 * \param out_tindex Receives the index.
 * \return 0, or -1 with a KeyError naming the unknown key (ValueError on NULL).
 */
TVM_FFI_DLL int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex);

/*!
 * \brief Register a type key, or return the index it already has.
 *
 * Registering the same key again with the same parent returns the same
 * index (parent -2: look up only). With static_type_index >= 0 that index is
 * used; with -1 a new index from kTVMFFIDynObjectBegin on is given out. The parent must be
 * registered already (or -1 for a root). A dynamic type reserves the
 * num_child_slots indices after its own for its subclasses (upstream's headers
 * decide IsInstance by that range without asking the runtime): a subclass
 * gets an index inside its parent's range while there is room, else (when the
 * parent's child_slots_can_overflow is set) one after every reserved range.
 * \return The type index, or -1 with a raised
 * error (unknown parent, NULL key, depth that does not match the parent's depth + 1, a static index
 *         below -1, a key already registered with another parent or index, a
 *         parent whose child slots are used up and that cannot overflow).
 */
TVM_FFI_DLL int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key,
                                              int32_t static_type_index, int32_t type_depth,
                                              int32_t num_child_slots,
                                              int32_t child_slots_can_overflow,
                                              int32_t parent_type_index);

/*!
 * \brief Get the record of a registered type.
 * \return The record (valid for the life of the process), or NULL for an
 *         unregistered index (with a KeyError raised).
 */
TVM_FFI_DLL const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index);

/*!
 * \brief Add a reflected field to a type. The info's strings are copied.
 * \return 0, or -1 (KeyError for an unknown type, ValueError for NULL, for a
 *         name/doc/metadata with NULL data and a size, and for a negative
 *         size or alignment). The offset is from the object's TVMFFIObject
 *         header and may be negative: a class whose first base is not Object
 *         has that base's members before the header (upstream accepts it).
 */
TVM_FFI_DLL int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info);

/*!
 * \brief Add a reflected method to a type. The strings are copied and the
 *        method object gets a reference held for the life of the process.
 * \return 0, or -1 (KeyError for an unknown type, ValueError for NULL).
 */
TVM_FFI_DLL int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info);

/*!
 * \brief Set the reflection metadata of a type (copied).
 * \return 0, or -1 (KeyError for an unknown type, ValueError for NULL).
 */
TVM_FFI_DLL int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata);

/*!
 * \brief Set a named attribute of a type; the value is copied into an owned Any.
 * \return 0, or -1 (ValueError for NULL, or when the attribute is already set).
 */
TVM_FFI_DLL int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                                       const TVMFFIAny* attr_value);

/*!
 * \brief Get the column of a type attribute.
 *
 * Thread safety: the column struct stays at the same address for the life of
 * the process and TVMFFITypeRegisterAttr publishes each new value by swapping
 * in a new buffer (old buffers are never written again nor freed). A reader
 * that may run concurrently with registration loads `size`, then `data`, with
 * acquire atomics (e.g. `__atomic_load_n(&col->size, __ATOMIC_ACQUIRE)`); it
 * then sees a consistent buffer of at least that size. `begin_index` never
 * changes once the column is published.
 * \return The column (valid for the life of the process), or NULL when no
 *         type has it. Never raises.
 */
TVM_FFI_DLL const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name);

/* ------------------------------------------------------------------------- */
/* Section: functions                                                        */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Make a Function object from a C callback.
 *
 * The object's cell gets a trampoline as its safe_call: called with the
 * function object as handle, it calls `safe_call(self, args, num_args, result)`.
 * \param self Context handed to safe_call as its `handle` argument.
 * \param safe_call The implementation.
 * \param deleter Called once with `self` when the function dies; may be NULL.
 * \param out Receives the Function (owned by the caller).
 * \return 0 or -1 (ValueError for a NULL safe_call or out).
 */
TVM_FFI_DLL int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call,
                                     void (*deleter)(void* self), TVMFFIObjectHandle* out);

/*!
 * \brief Call a Function object.
 * \param func The Function object (kTVMFFIFunction).
 * \param args num_args borrowed argument views (may be NULL when num_args is 0).
 * \param result Set result->type_index = kTVMFFINone first; receives an owned value.
 * \return 0, or -1 with the callee's error raised (ValueError for NULL func, a
 *         NULL result, a negative num_args, or NULL args with num_args > 0,
 *         before the callee runs; TypeError when func is not a Function).
 *         Functions made by TVMFFIFunctionCreate and by the C++ headers make
 *         the same checks when their cell's safe_call is called directly.
 */
TVM_FFI_DLL int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                                   TVMFFIAny* result);

/*!
 * \brief Register a Function under a global name (the name is copied).
 * \param name The name.
 * \param f The Function; the registry takes its own reference.
 * \param allow_override Nonzero to replace an existing entry.
 * \return 0, or -1 (RuntimeError naming the function when it exists and
 *         allow_override is 0; ValueError for NULL; TypeError for a non-Function).
 */
TVM_FFI_DLL int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f,
                                        int allow_override);

/*!
 * \brief Register a global Function described by a method info (name, doc,
 *        metadata are kept for introspection).
 * \return As TVMFFIFunctionSetGlobal.
 */
TVM_FFI_DLL int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info,
                                                      int allow_override);

/*!
 * \brief Look up a global Function.
 * \param name The name.
 * \param out Receives a new reference, or NULL when no such function exists
 *        (that is not an error).
 * \return 0, or -1 (ValueError for NULL arguments).
 */
TVM_FFI_DLL int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out);

/*!
 * \brief Remove a global Function (tvmffi extension).
 * \return 0 whether or not it existed, -1 for NULL.
 */
TVM_FFI_DLL int TVMFFIFunctionRemoveGlobal(const TVMFFIByteArray* name);

/*!
 * \brief Visit the names of all global functions, sorted (tvmffi extension).
 * \param visit Called once per name with a name valid only during the call;
 *        a nonzero return stops the walk.
 * \param ctx Passed through to visit.
 * \return 0, or -1 (ValueError for a NULL visit).
 * \note The registry may change concurrently; the walk is over a snapshot.
 */
TVM_FFI_DLL int TVMFFIFunctionListGlobalNames(int (*visit)(void* ctx, const TVMFFIByteArray* name),
                                              void* ctx);

/*!
 * \brief Turn a borrowed view into an owned value.
 *
 * kTVMFFIRawStr and kTVMFFIByteArrayPtr become String / Bytes (small form when
 * they fit); objects gain a reference; POD values are copied. A
 * kTVMFFIDLTensorPtr cannot be owned: TypeError.
 * \param any_view The view.
 * \param out Receives the owned value.
 * \return 0 or -1.
 */
TVM_FFI_DLL int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out);

/* ------------------------------------------------------------------------- */
/* Section: errors                                                           */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Take the calling thread's raised error.
 * \param result Receives the Error (owned by the caller), or NULL when none is
 *        raised. The slot is cleared. Each thread has its own slot.
 */
TVM_FFI_DLL void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result);

/*!
 * \brief Park an Error in the calling thread's slot, replacing any earlier one.
 * \param error The Error; the slot takes its own reference (the caller keeps its).
 */
TVM_FFI_DLL void TVMFFIErrorSetRaised(TVMFFIObjectHandle error);

/*!
 * \brief Create an Error from C strings, with a backtrace, and park it.
 * \param kind E.g. "ValueError"; NULL means "RuntimeError".
 * \param message The message; NULL means "".
 */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message);

/*!
 * \brief As TVMFFIErrorSetRaisedFromCStr, with the message given as parts that
 *        are concatenated; NULL parts are skipped.
 */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                                   int32_t num_parts);

/*!
 * \brief Create an Error object (strings are copied).
 * \param kind, message, backtrace The texts; backtrace may be NULL (empty).
 * \param out Receives the Error.
 * \return 0, or nonzero without raising anything (this is used on the error path).
 */
TVM_FFI_DLL int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                                  const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out);

/*!
 * \brief Create an Error with a cause and extra context; the cell takes a
 *        reference to each non-NULL handle.
 * \param cause_chain NULL or an Error object (its real type is checked).
 * \param extra_context NULL or any object.
 * \return 0, or nonzero (as TVMFFIErrorCreate; also when cause_chain is not an Error).
 */
TVM_FFI_DLL int TVMFFIErrorCreateWithCauseAndExtraContext(
    const TVMFFIByteArray* kind, const TVMFFIByteArray* message, const TVMFFIByteArray* backtrace,
    TVMFFIObjectHandle cause_chain, TVMFFIObjectHandle extra_context, TVMFFIObjectHandle* out);

/*!
 * \brief Capture the calling thread's stack as text, most recent frame first.
 * \param filename, lineno, func Where the capture was asked for (a first line); may be NULL/0.
 * \param cross_ffi_boundary Zero: stop at the FFI entry (a libtvmffi frame, or the first
 *        frame that catches a C++ tvm::ffi::Error, e.g. a safe-call function); nonzero: go on.
 * \return A thread-local buffer valid until the next call on this thread. Never NULL.
 */
TVM_FFI_DLL const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno,
                                                   const char* func, int cross_ffi_boundary);

/*! \brief Codes of the error kinds the runtime knows (tvmffi extension). */
#ifdef __cplusplus
enum TVMFFIErrorKindCode : int32_t {
#else
typedef enum {
#endif
  kTVMFFIErrorKindUnknown = -1,
  kTVMFFIErrorKindRuntimeError = 0,
  kTVMFFIErrorKindValueError = 1,
  kTVMFFIErrorKindTypeError = 2,
  kTVMFFIErrorKindAttributeError = 3,
  kTVMFFIErrorKindKeyError = 4,
  kTVMFFIErrorKindIndexError = 5,
  kTVMFFIErrorKindNotImplementedError = 6,
  kTVMFFIErrorKindMemoryError = 7,
  kTVMFFIErrorKindInternalError = 8,
  /*! \brief Codes handed out by TVMFFIErrorKindRegister start here. */
  kTVMFFIErrorKindCustomBegin = 64
#ifdef __cplusplus
};
#else
} TVMFFIErrorKindCode;
#endif

/*!
 * \brief Register an error kind a host translates (tvmffi extension).
 * \param kind The kind's name (copied). Registering a name again returns its code.
 * \param out_code Receives the code (a standard kind keeps its standard code).
 * \return 0 or -1 (ValueError for NULL or an empty name).
 */
TVM_FFI_DLL int TVMFFIErrorKindRegister(const TVMFFIByteArray* kind, int32_t* out_code);

/*!
 * \brief Look up the code of an error kind (tvmffi extension).
 * \param kind The kind's name, e.g. the `kind` of an Error cell.
 * \return The code, or kTVMFFIErrorKindUnknown for a kind nobody registered
 *         (and for NULL). Never raises.
 */
TVM_FFI_DLL int32_t TVMFFIErrorKindLookup(const TVMFFIByteArray* kind);

/* ------------------------------------------------------------------------- */
/* Section: DLPack                                                           */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Wrap a legacy DLPack tensor in a Tensor object, without copying.
 *
 * On success the Tensor owns `from` and calls its deleter exactly once, when
 * its last reference goes. On failure the deleter is called before returning.
 * \param from The producer's tensor (ownership passes to this call).
 * \param require_alignment If > 0, data + byte_offset must be a multiple of it;
 *        0 or negative: no requirement.
 * \param require_contiguous Nonzero to require a compact row-major layout.
 * \param out Receives the Tensor.
 * \return 0 or -1 (ValueError for bad ndim, NULL shape, negative extents,
 *         oversized tensors, misalignment, non-contiguity, and for: shape,
 *         stride, size or byte_offset arithmetic that overflows int64; NULL
 *         data with one or more elements; a dtype with 0 bits or 0 lanes; a
 *         type code DLPack does not assign (18..128); a device type outside
 *         DLPack's 1..18; a negative device id).
 *         Accepted: negative strides (DLPack allows them), type codes >= 129
 *         (user-defined `custom[...]` types), NULL data with no elements.
 */
TVM_FFI_DLL int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                                       int32_t require_contiguous, TVMFFIObjectHandle* out);

/*!
 * \brief Export a Tensor as a legacy DLManagedTensor sharing its data.
 * \param from The Tensor; the export holds its own reference until the
 *        consumer calls the deleter.
 * \param out Receives the managed tensor (the consumer must call its deleter once).
 * \return 0 or -1 (TypeError for a non-Tensor, ValueError for NULL, and
 *         ValueError for a read-only tensor (imported with DLPack's read-only
 *         flag): legacy DLPack cannot mark it so, and its consumer would take
 *         the memory as writable; use TVMFFITensorToDLPackVersioned).
 */
TVM_FFI_DLL int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out);

/*!
 * \brief As TVMFFITensorFromDLPack for a versioned DLPack tensor. The major
 *        version must be 1 (DLPACK_MAJOR_VERSION); the read-only flag is kept.
 */
TVM_FFI_DLL int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from,
                                                int32_t require_alignment,
                                                int32_t require_contiguous,
                                                TVMFFIObjectHandle* out);

/*!
 * \brief As TVMFFITensorToDLPack, producing a versioned tensor; flags carry
 *        over from an imported tensor (read-only stays read-only).
 */
TVM_FFI_DLL int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from,
                                              DLManagedTensorVersioned** out);

/*!
 * \brief Make a Tensor that views the memory of `source` with the metadata of
 *        `prototype` (shape and strides are copied). The view holds a reference
 *        to `source`. Unsafe: the caller vouches that the prototype's data lies
 *        inside the source's memory.
 * \return 0 or -1 (ValueError for NULL or malformed prototype, TypeError for a
 *         non-Tensor source).
 */
TVM_FFI_DLL int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                             TVMFFIObjectHandle* out);

/* ------------------------------------------------------------------------- */
/* Section: strings, bytes and data types                                    */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Make an owned String from bytes (copied): a small string when it
 *        has at most 7 bytes, else a String object whose data is NUL-terminated.
 * \return 0 or -1 (ValueError for NULL).
 */
TVM_FFI_DLL int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*! \brief As TVMFFIStringFromByteArray, producing Bytes. */
TVM_FFI_DLL int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*!
 * \brief Make an owned integer from its words (copied): two's complement int64
 *        words, least significant first, each in native byte order. Redundant
 *        sign words are dropped; the empty array is 0.
 * \param input The words; `size` must be a multiple of 8 (NULL data only with
 *        size 0).
 * \param out Receives kTVMFFIInt when the value fits int64, else an owned
 *        kTVMFFIBigInt object (release it with TVMFFIObjectDecRef).
 * \return 0, or -1 with ValueError when input or out is NULL, data is NULL
 *         with a nonzero size, or the size is not a multiple of 8; out is then
 *         None. Thread-safe.
 */
TVM_FFI_DLL int TVMFFIBigIntFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*!
 * \brief Borrow the words of an integer: for kTVMFFIInt the 8 bytes of
 *        `value->v_int64` itself, for kTVMFFIBigInt the object's words (the
 *        format TVMFFIBigIntFromByteArray reads, always canonical). Not
 *        little-endian everywhere: each word is in native byte order.
 * \param value A kTVMFFIInt or kTVMFFIBigInt cell; the view lives as long as
 *        that cell and the object it holds.
 * \return The words (size a nonzero multiple of 8), or {NULL, 0} with a
 *         TypeError (ValueError for NULL) set as the raised error when value
 *         holds no integer. Thread-safe; allocates nothing on success.
 */
TVM_FFI_DLL TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value);

/*!
 * \brief Parse a data type: "int8".."int64", "uint..", "float16/32/64",
 *        "bfloat16", "bool", "handle" (64 bits) / "handle32", lanes as
 *        "float32x4" (1..32767), scalable vectors as "float32xvscalex4"
 *        (1..32768, stored as negative int16 lanes), DLPack's float8/6/4 names
 *        (e.g. "float8_e4m3fn"), "custom[name]" (through the global
 *        `dtype.get_custom_type_code`, called with a str), and the void type
 *        {kDLOpaqueHandle, 0, 0} as "void".
 * \return 0 or -1 (ValueError naming the text for anything else, the empty
 *         string included, which upstream reads as void; "x40000" is refused:
 *         such a lanes field is a scalable vector).
 */
TVM_FFI_DLL int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out);

/*!
 * \brief Format a data type as text (the inverse of TVMFFIDataTypeFromString:
 *        every string it returns parses back to the same value, except void,
 *        which prints as "" as upstream's does and parses from "void").
 * \param out Receives an owned String (small or object).
 * \return 0 or -1 (ValueError for NULL, an unknown type code, 0 bits or 0
 *         lanes other than void, and a float8/6/4 code with another bit width:
 *         no string spells those).
 */
TVM_FFI_DLL int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out);

/* ------------------------------------------------------------------------- */
/* Section: one-time initialisation of handles                               */
/* ------------------------------------------------------------------------- */

/*!
 * \brief If *handle_addr is NULL, call init_func once (under a lock) and store
 *        its result there. Concurrent callers wait for the first.
 * \return 0, or the nonzero value init_func returned (its error stays raised),
 *         or -1 with a RuntimeError when init_func succeeded but gave NULL.
 */
TVM_FFI_DLL int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result));

/*!
 * \brief If *handle_addr is not NULL, set it to NULL and call deinit_func on
 *        the old value, once (under a lock). The handle is NULL afterwards even
 *        when deinit_func fails.
 * \return 0, or the nonzero value deinit_func returned.
 */
TVM_FFI_DLL int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle));

/* ------------------------------------------------------------------------- */
/* Section: inline accessors (pure address arithmetic, no library call)      */
/* ------------------------------------------------------------------------- */

/*! \brief The type index of an object. */
static inline int32_t TVMFFIObjectGetTypeIndex(TVMFFIObjectHandle obj) {
  return TVM_FFI_C_PTR_CAST(TVMFFIObject*, obj)->type_index;
}

/*! \brief The bytes of a small string or small bytes value. */
static inline TVMFFIByteArray TVMFFISmallBytesGetContentByteArray(const TVMFFIAny* value) {
  TVMFFIByteArray r;
  r.data = value->v_bytes;
  r.size = TVM_FFI_C_VALUE_CAST(size_t, value->small_str_len);
  return r;
}

/*! \brief The byte array of a String or Bytes object. */
static inline TVMFFIByteArray* TVMFFIBytesGetByteArrayPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_C_PTR_CAST(TVMFFIByteArray*,
                            TVM_FFI_C_PTR_CAST(char*, obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of an Error object. */
static inline TVMFFIErrorCell* TVMFFIErrorGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_C_PTR_CAST(TVMFFIErrorCell*,
                            TVM_FFI_C_PTR_CAST(char*, obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of a Function object. */
static inline TVMFFIFunctionCell* TVMFFIFunctionGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_C_PTR_CAST(TVMFFIFunctionCell*,
                            TVM_FFI_C_PTR_CAST(char*, obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of an opaque object. */
static inline TVMFFIOpaqueObjectCell* TVMFFIOpaqueObjectGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_C_PTR_CAST(TVMFFIOpaqueObjectCell*,
                            TVM_FFI_C_PTR_CAST(char*, obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of a Shape object. */
static inline TVMFFIShapeCell* TVMFFIShapeGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_C_PTR_CAST(TVMFFIShapeCell*,
                            TVM_FFI_C_PTR_CAST(char*, obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of an Array object. */
static inline TVMFFISeqCell* TVMFFISeqGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_C_PTR_CAST(TVMFFISeqCell*, TVM_FFI_C_PTR_CAST(char*, obj) + sizeof(TVMFFIObject));
}

/*! \brief The DLTensor inside a Tensor object. */
static inline DLTensor* TVMFFITensorGetDLTensorPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_C_PTR_CAST(DLTensor*, TVM_FFI_C_PTR_CAST(char*, obj) + sizeof(TVMFFIObject));
}

/*! \brief A DLDevice from a (device_type, device_id) pair. */
static inline DLDevice TVMFFIDLDeviceFromIntPair(int32_t device_type, int32_t device_id) {
  DLDevice d;
  d.device_type = TVM_FFI_C_VALUE_CAST(DLDeviceType, device_type);
  d.device_id = device_id;
  return d;
}

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* TVM_FFI_C_API_H_ */
