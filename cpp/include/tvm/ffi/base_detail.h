/*
 * tvmffi C++ layer: compiler helpers shared by every header.
 *
 * Internal: the macros here are stable (kernel libraries use some of them),
 * but the contents of namespace tvm::ffi::detail are not an API.
 */
#ifndef TVM_FFI_BASE_DETAIL_H_
#define TVM_FFI_BASE_DETAIL_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/endian.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <type_traits>
#include <utility>

#if defined(__GLIBCXX__)
#include <cxxabi.h>  // abi::__forced_unwind
#endif

#if defined(_MSC_VER)
#define TVM_FFI_INLINE [[msvc::forceinline]] inline
#define TVM_FFI_NOINLINE __declspec(noinline)
#define TVM_FFI_COLD
#define TVM_FFI_PREDICT_TRUE(x) (x)
#define TVM_FFI_PREDICT_FALSE(x) (x)
#define TVM_FFI_UNREACHABLE() __assume(false)
#define TVM_FFI_FUNC_SIG __FUNCSIG__
#define TVM_FFI_HIDDEN
#else
/*! \brief Force inlining (hot paths). */
#define TVM_FFI_INLINE [[gnu::always_inline]] inline
/*! \brief Keep a function out of line (cold paths, error builders). */
#define TVM_FFI_NOINLINE [[gnu::noinline]]
/*! \brief Mark a function as rarely executed. */
#define TVM_FFI_COLD [[gnu::cold]]
#define TVM_FFI_PREDICT_TRUE(x) __builtin_expect(!!(x), 1)
#define TVM_FFI_PREDICT_FALSE(x) __builtin_expect(!!(x), 0)
#define TVM_FFI_UNREACHABLE() __builtin_unreachable()
#define TVM_FFI_FUNC_SIG __PRETTY_FUNCTION__
/*! \brief One copy per shared object, never interposed across libraries. */
#define TVM_FFI_HIDDEN __attribute__((visibility("hidden")))
#endif

/*! \brief Upstream spelling of TVM_FFI_NOINLINE. */
#define TVM_FFI_NO_INLINE TVM_FFI_NOINLINE
/*! \brief Upstream spelling for cold, out-of-line helpers. */
#define TVM_FFI_COLD_CODE TVM_FFI_NOINLINE TVM_FFI_COLD

/*!
 * \brief 1 when built with ThreadSanitizer (-fsanitize=thread), else 0.
 *
 * TSan does not model a standalone atomic_thread_fence, so the refcount
 * protocol (release decrement, then an acquire fence before destruction)
 * would hide real races from it. Under TSan the decrement is acq_rel instead
 * and there is no fence: the same ordering, visible to the sanitizer. Normal
 * builds keep the ABI's fast protocol.
 */
#if defined(__SANITIZE_THREAD__)
#define TVM_FFI_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TVM_FFI_TSAN 1
#endif
#endif
#ifndef TVM_FFI_TSAN
#define TVM_FFI_TSAN 0
#endif
/*! \brief Memory order of a reference-count decrement (see TVM_FFI_TSAN). */
#if TVM_FFI_TSAN
#define TVM_FFI_REFCOUNT_DEC_ORDER __ATOMIC_ACQ_REL
#define TVM_FFI_REFCOUNT_ACQUIRE_FENCE() ((void)0)
#else
#define TVM_FFI_REFCOUNT_DEC_ORDER __ATOMIC_RELEASE
/*! \brief The acquire fence after the last decrement (none under TSan). */
#define TVM_FFI_REFCOUNT_ACQUIRE_FENCE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

#define TVM_FFI_STR_CONCAT_(x, y) x##y
#define TVM_FFI_STR_CONCAT(x, y) TVM_FFI_STR_CONCAT_(x, y)

/*!
 * \brief Zero the upper half of the 8-byte value slot on 32-bit targets, so
 *        that pointer-holding values compare and hash as 64-bit integers.
 */
#define TVM_FFI_CLEAR_PTR_PADDING_IN_FFI_ANY(result) \
  if constexpr (sizeof(void*) != sizeof(int64_t)) {  \
    (result)->v_int64 = 0;                           \
  }

/*!
 * \brief Define a block of code that runs when the library (or program) is loaded.
 *
 * \code
 * TVM_FFI_STATIC_INIT_BLOCK() {
 *   tvm::ffi::reflection::GlobalDef().def("my.add", [](int a, int b) { return a + b; });
 * }
 * \endcode
 */
/*
 * An exception never escapes the block: it would terminate the host while the
 * host loads the library. It is reported instead (detail::RunStaticInitBlock).
 */
#if defined(__GNUC__) || defined(__clang__)
#define TVM_FFI_STATIC_INIT_BLOCK_DEF_(Fn, Runner)                  \
  static void Fn();                                                 \
  __attribute__((constructor)) static void Runner() {               \
    ::tvm::ffi::detail::RunStaticInitBlock(Fn, __FILE__, __LINE__); \
  }                                                                 \
  static void Fn()
#define TVM_FFI_STATIC_INIT_BLOCK()                                                       \
  TVM_FFI_STATIC_INIT_BLOCK_DEF_(TVM_FFI_STR_CONCAT(__TVMFFIStaticInitFunc, __COUNTER__), \
                                 TVM_FFI_STR_CONCAT(__TVMFFIStaticInitRun, __COUNTER__))
#else
#define TVM_FFI_STATIC_INIT_BLOCK_DEF_(Fn, Var)                            \
  static void Fn();                                                        \
  [[maybe_unused]] static const int Var =                                  \
      (::tvm::ffi::detail::RunStaticInitBlock(Fn, __FILE__, __LINE__), 0); \
  static void Fn()
#define TVM_FFI_STATIC_INIT_BLOCK()                                                       \
  TVM_FFI_STATIC_INIT_BLOCK_DEF_(TVM_FFI_STR_CONCAT(__TVMFFIStaticInitFunc, __COUNTER__), \
                                 TVM_FFI_STR_CONCAT(__TVMFFIStaticInitVar, __COUNTER__))
#endif

/*! \brief Declare defaulted copy/move constructors and assignments for TypeName. */
#define TVM_FFI_DEFINE_DEFAULT_COPY_MOVE_AND_ASSIGN(TypeName) \
  TypeName(const TypeName& other) = default;                  \
  TypeName(TypeName&& other) noexcept = default;              \
  TypeName& operator=(const TypeName& other) = default;       \
  TypeName& operator=(TypeName&& other) noexcept = default;

namespace tvm {
namespace ffi {

// DLPack types are used unqualified as ffi::DLDevice etc. in kernel code.
using ::DLDataType;
using ::DLDevice;
using ::DLTensor;

namespace detail {

/*! \brief Set a TVMFFIAny to None: the one way to write it by hand. */
TVM_FFI_INLINE void SetAnyNone(TVMFFIAny* result) noexcept {
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
}
/*!
 * \brief Call first in every `catch (...)` block that does not rethrow: lets a
 *        thread's cancellation through.
 *
 * glibc cancels a thread (pthread_cancel at a cancellation point, pthread_exit)
 * by unwinding its stack with abi::__forced_unwind; a handler that swallows it
 * aborts the process ("FATAL: exception not rethrown"). This rethrows that one
 * exception and returns for every other. (Not a second catch clause: binding
 * the forced unwind, which has no object, to a reference is a null reference
 * to UndefinedBehaviorSanitizer.) A handler that cleans up and rethrows needs
 * nothing: its cleanup runs on cancellation too. In a noexcept function a
 * cancellation terminates anyway: keep cancellation points out of those.
 */
#if defined(__GLIBCXX__)
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
__attribute__((no_sanitize("null")))
#endif
inline void
RethrowIfForcedUnwind() {
  try {
    throw;
  } catch (::abi::__forced_unwind&) {
    throw;
  } catch (...) {
  }
}
#else
inline void RethrowIfForcedUnwind() noexcept {}
#endif

/*! \brief A dependent false, for static_assert in templates that must not be instantiated. */
template <typename...>
inline constexpr bool always_false_v = false;

/*! \brief T, in a context where template argument deduction does not look (std::type_identity_t).
 */
template <typename T>
struct TypeIdentityOf {
  using type = T;
};
template <typename T>
using TypeIdentity = typename TypeIdentityOf<T>::type;

/*! \brief The I-th of Ts (std::tuple_element_t without <tuple>). */
template <size_t I, typename T0, typename... Ts>
struct TypeAtOf {
  using type = typename TypeAtOf<I - 1, Ts...>::type;
};
template <typename T0, typename... Ts>
struct TypeAtOf<0, T0, Ts...> {
  using type = T0;
};
template <size_t I, typename... Ts>
using TypeAt = typename TypeAtOf<I, Ts...>::type;

/*!
 * \brief Report a failed TVM_FFI_STATIC_INIT_BLOCK, once: to the runtime's list
 *        of load failures when it keeps one (tvmffi's `ffi.LoadFailures`, fed
 *        through the global `ffi.RecordLoadFailure`, which also prints it),
 *        else as a line on stderr. Uses standard TVM-FFI 0.1 C functions only.
 */
inline void ReportStaticInitFailure(const char* file, int line, const char* what) noexcept {
  // An error's text ends with its "Kind: message" line, after its backtrace.
  const char* last_line = std::strrchr(what, '\n');
  if (last_line != nullptr && last_line[1] != '\0') what = last_line + 1;
  char text[1024];
  std::snprintf(text, sizeof(text), "static initialisation at %s:%d failed: %s", file, line, what);
  auto drop_raised = [] {
    TVMFFIObjectHandle raised = nullptr;
    TVMFFIErrorMoveFromRaised(&raised);
    if (raised != nullptr) TVMFFIObjectDecRef(raised);
  };
  bool recorded = false;
  static const char kRecord[] = "ffi.RecordLoadFailure";
  TVMFFIByteArray name{kRecord, sizeof(kRecord) - 1};
  TVMFFIObjectHandle record = nullptr;
  if (TVMFFIFunctionGetGlobal(&name, &record) != 0) drop_raised();
  if (record != nullptr) {
    TVMFFIAny arg;
    arg.type_index = kTVMFFIRawStr;
    arg.zero_padding = 0;
    arg.v_c_str = text;
    TVMFFIAny result;
    SetAnyNone(&result);
    if (TVMFFIFunctionCall(record, &arg, 1, &result) != 0) {
      drop_raised();
    } else {
      recorded = true;
      if (result.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(result.v_obj);
    }
    TVMFFIObjectDecRef(record);
  }
  if (!recorded) std::fprintf(stderr, "tvm-ffi: %s\n", text);
}

/*! \brief Run the body of a TVM_FFI_STATIC_INIT_BLOCK; an exception is reported, not rethrown. */
inline void RunStaticInitBlock(void (*fn)(), const char* file, int line) noexcept {
  try {
    fn();
  } catch (const std::exception& e) {
    ReportStaticInitFailure(file, line, e.what());
  } catch (...) {
    ReportStaticInitFailure(file, line, "an exception that is not a std::exception");
  }
}

// Stable hashes: the same value on every platform and in every binary (the
// hash of Map keys, any.h, is built on them).

/*! \brief Mixes v into seed (the classic boost-style combine, 64-bit). */
TVM_FFI_INLINE uint64_t HashMixStable(uint64_t seed, uint64_t v) noexcept {
  return seed ^ (v + 0x9e3779b9ULL + (seed << 6) + (seed >> 2));
}

/*!
 * \brief Content hash of a byte range: little-endian 8-byte words (the last
 *        one zero-filled) folded as h = (h * 1099511628211 + w) mod (2^31 - 1),
 *        the product wrapping at 64 bits.
 */
TVM_FFI_INLINE uint64_t HashBytesStable(const char* data, size_t size) noexcept {
  constexpr uint64_t kMul = 1099511628211ULL;
  constexpr uint64_t kMod = 2147483647ULL;
  uint64_t h = 0;
  size_t i = 0;
  uint64_t w;
  for (; i + 8 <= size; i += 8) {
    std::memcpy(&w, data + i, 8);
    h = (h * kMul + w) % kMod;
  }
  const size_t rest = size - i;
  if (rest == 0) return h;
  // The last 1-7 bytes, zero-extended, with fixed-size loads only (never
  // reading outside [data, data + size)).
  if (size >= 8) {
    std::memcpy(&w, data + size - 8, 8);
    w >>= 8 * (8 - rest);
  } else if (rest >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, data, 4);
    std::memcpy(&hi, data + rest - 4, 4);
    w = static_cast<uint64_t>(lo) | (static_cast<uint64_t>(hi) << (8 * (rest - 4)));
  } else {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(data);
    w = static_cast<uint64_t>(p[0]) | (static_cast<uint64_t>(p[rest >> 1]) << (8 * (rest >> 1))) |
        (static_cast<uint64_t>(p[rest - 1]) << (8 * (rest - 1)));
  }
  return (h * kMul + w) % kMod;
}

/*! \brief Upstream's name of HashMixStable: combines `value` into `key`. */
template <typename T, std::enable_if_t<std::is_convertible_v<T, uint64_t>, bool> = true>
TVM_FFI_INLINE uint64_t StableHashCombine(uint64_t key, const T& value) noexcept {
  return HashMixStable(key, static_cast<uint64_t>(value));
}

/*! \brief Upstream's name of HashBytesStable (any alignment gives the same hash). */
TVM_FFI_INLINE uint64_t StableHashBytes(const void* data, size_t size) noexcept {
  return HashBytesStable(static_cast<const char*>(data), size);
}

/*! \brief T without const/volatile/reference. */
template <typename T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

}  // namespace detail

// Upstream renamed its implementation namespace `details` to `detail` in
// 0.1.15; both spellings name the same namespace here (code written for either
// release compiles).
namespace details = detail;

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_BASE_DETAIL_H_
