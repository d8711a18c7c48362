/*
 * tvmffi C++ layer: signature introspection and argument unpacking for typed
 * functions (Function::FromTyped, TVM_FFI_DLL_EXPORT_TYPED_FUNC).
 *
 * Argument errors (TypeError), with the function's name when it has one:
 *   Mismatched type on argument #1 when calling: `add(0: int, 1: int) -> int`. Expected `int` but
 * got `str` Mismatched number of arguments when calling: `add(0: int, 1: int) -> int`. Expected 2
 * but got 3 arguments
 */
#ifndef TVM_FFI_FUNCTION_DETAIL_H_
#define TVM_FFI_FUNCTION_DETAIL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/error.h>

#include <string>
#include <utility>

namespace tvm {
namespace ffi {
namespace detail {

/*! \brief The name of a C++ type in signatures ("int", "str", "Any", "None" for void). */
template <typename T>
inline std::string TypeName() {
  using U = remove_cvref_t<T>;
  if constexpr (std::is_void_v<U>) {
    return StaticTypeKey::kTVMFFINone;
  } else if constexpr (std::is_same_v<U, Any>) {
    return "Any";
  } else if constexpr (std::is_same_v<U, AnyView>) {
    return "AnyView";
  } else {
    return TypeTraits<U>::TypeStr();
  }
}

/*! \brief Compatibility spelling of TypeName<T>(). */
template <typename T>
struct Type2Str {
  static std::string v() { return TypeName<T>(); }
};

/*! \brief Parameters may be T, const T, const T& or T&& (not a mutable lvalue reference). */
template <typename T>
inline constexpr bool kArgTypeSupported =
    !std::is_reference_v<T> ||
    (std::is_lvalue_reference_v<T> && std::is_const_v<std::remove_reference_t<T>>) ||
    (std::is_rvalue_reference_v<T> && !std::is_const_v<std::remove_reference_t<T>>);

template <typename T>
inline constexpr bool kArgConvertible =
    std::is_same_v<remove_cvref_t<T>, Any> || std::is_same_v<remove_cvref_t<T>, AnyView> ||
    TypeTraits<remove_cvref_t<T>>::convert_enabled;

template <typename T>
inline constexpr bool kRetConvertible =
    std::is_void_v<T> || std::is_same_v<remove_cvref_t<T>, Any> ||
    TypeTraits<remove_cvref_t<T>>::convert_enabled;

/*!
 * \brief Whether TypeTraits<U> checks and reads a strict argument in one step:
 *        `StrictPeek(arg)` returns a non-null handle when arg is strictly a U
 *        (null otherwise) and `FromPeek(handle)` makes the U. The fast call path
 *        then decides and reads each argument once (TensorView: the DLTensor).
 */
template <typename U, typename = void>
struct StrictPeekOf {
  static constexpr bool value = false;
  using Slot = const TVMFFIAny*;
};
template <typename U>
struct StrictPeekOf<U, std::void_t<decltype(TypeTraits<U>::StrictPeek(nullptr))>> {
  static constexpr bool value = true;
  using Slot = decltype(TypeTraits<U>::StrictPeek(nullptr));
};
template <typename U>
inline constexpr bool kHasStrictPeek = StrictPeekOf<U>::value;

/*!
 * \brief Whether U accepts nothing but its strict forms (TryCastFromAnyView is
 *        CheckAnyStrict): a non-strict argument of this type is an error, never
 *        a conversion. TypeTraits<U> says so with `converts_only_strict = true`.
 */
template <typename U, typename = void>
inline constexpr bool kConvertsOnlyStrict = false;
template <typename U>
inline constexpr bool
    kConvertsOnlyStrict<U, std::void_t<decltype(TypeTraits<U>::converts_only_strict)>> =
        TypeTraits<U>::converts_only_strict;

/*! \brief Whether a converted argument of declared type T can be held strictly in an Any. */
template <typename T>
constexpr bool ArgReenterable() {
  using U = remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, Any> || std::is_same_v<U, AnyView> || kConvertsOnlyStrict<U>) {
    return true;
  } else {
    return TypeTraits<U>::storage_enabled;
  }
}

/*! \brief Conversion of one argument (declared type T) from the packed view. */
template <typename T>
struct ArgConverter {
  using U = remove_cvref_t<T>;
  /*! \brief What the fast path keeps of a strict argument: the peeked handle, or the cell. */
  using Slot = typename StrictPeekOf<U>::Slot;
  /*! \return Whether arg is strictly a U; if so, *slot is what FromSlot needs. */
  TVM_FFI_INLINE static bool Fetch(const TVMFFIAny* arg, Slot* slot) {
    if constexpr (kHasStrictPeek<U>) {
      *slot = TypeTraits<U>::StrictPeek(arg);
      return *slot != nullptr;
    } else {
      *slot = arg;
      return Strict(arg);
    }
  }
  TVM_FFI_INLINE static U FromSlot(Slot slot) {
    if constexpr (kHasStrictPeek<U>) {
      return TypeTraits<U>::FromPeek(slot);
    } else {
      return FromStrict(slot);
    }
  }
  TVM_FFI_INLINE static bool Strict(const TVMFFIAny* arg) {
    if constexpr (std::is_same_v<U, AnyView> || std::is_same_v<U, Any>) {
      return true;
    } else {
      return TypeTraits<U>::CheckAnyStrict(arg);
    }
  }
  TVM_FFI_INLINE static U FromStrict(const TVMFFIAny* arg) {
    if constexpr (std::is_same_v<U, AnyView>) {
      return AnyView::CopyFromTVMFFIAny(*arg);
    } else if constexpr (std::is_same_v<U, Any>) {
      return Any(AnyView::CopyFromTVMFFIAny(*arg));
    } else {
      return TypeTraits<U>::CopyFromAnyViewAfterCheck(arg);
    }
  }
};

template <size_t I, typename T>
struct ArgSlot {
  T value;
};
/*! \brief The I-th value of an ArgPack (its type deduced from the pack's base). */
template <size_t I, typename T>
TVM_FFI_INLINE T& SlotOf(ArgSlot<I, T>& slot) {
  return slot.value;
}
template <typename Seq, typename... Ts>
struct ArgPack;
/*! \brief Converted arguments, built in order by aggregate initialisation. */
template <size_t... Is, typename... Ts>
struct ArgPack<std::index_sequence<Is...>, Ts...> : ArgSlot<Is, Ts>... {};

/*! \brief "(0: int, 1: str) -> None" */
template <typename R, typename... Args>
inline std::string SignatureString() {
  std::string sig = "(";
  size_t index = 0;
  ((sig += (index == 0 ? "" : ", "), sig += std::to_string(index) + ": " + TypeName<Args>(),
    ++index),
   ...);
  sig += ") -> ";
  sig += TypeName<R>();
  return sig;
}

template <typename R, typename... Args>
[[noreturn]] TVM_FFI_COLD_CODE void ThrowArgCountMismatch(const char* name, int32_t num_args) {
  TVM_FFI_THROW(TypeError) << "Mismatched number of arguments when calling: `"
                           << (name != nullptr ? name : "") << SignatureString<R, Args...>()
                           << "`. Expected " << sizeof...(Args) << " but got " << num_args
                           << " arguments";
}

template <typename U, typename R, typename... Args>
[[noreturn]] TVM_FFI_COLD_CODE void ThrowArgTypeMismatch(const char* name, int32_t index,
                                                         const TVMFFIAny* arg) {
  TVM_FFI_THROW(TypeError) << "Mismatched type on argument #" << index << " when calling: `"
                           << (name != nullptr ? name : "") << SignatureString<R, Args...>()
                           << "`. Expected `" << TypeName<U>() << "` but got `"
                           << TypeTraits<U>::GetMismatchTypeInfo(arg) << "`";
}

/*! \brief Store a call's result into *rv, which is None on entry (so nothing to release). */
template <typename R, typename V>
TVM_FFI_INLINE void StoreResult(Any* rv, V&& value) {
  using U = remove_cvref_t<R>;
  TVMFFIAny* raw = AnyUnsafe::MutableTVMFFIAnyPtrFromAny(rv);
  if constexpr (std::is_same_v<U, Any>) {
    *raw = AnyUnsafe::MoveAnyToTVMFFIAny(Any(std::forward<V>(value)));
  } else {
    TypeTraits<U>::MoveToAny(U(std::forward<V>(value)), raw);
  }
}

/*! \brief Signature facts of R(Args...) and the unpacking of packed arguments. */
template <typename R, typename... Args>
struct FuncFunctorImpl {
  using FType = R(Args...);
  using RetType = R;
  static constexpr size_t num_args = sizeof...(Args);
  static constexpr bool unpacked_supported =
      ((kArgTypeSupported<Args> && kArgConvertible<Args>)&&...) && kRetConvertible<R>;

  /*! \return "(0: int, 1: int) -> int" */
  static std::string Sig() { return SignatureString<R, Args...>(); }

  /*!
   * \brief Convert args, call f, store the result.
   * \param name Function name for error messages (may be nullptr).
   * \param rv Receives the result; must be None on entry.
   */
  template <typename F>
  TVM_FFI_INLINE static void Unpack(const char* name, F& f, const AnyView* args, int32_t num_packed,
                                    Any* rv) {
    CheckSignature();
    if (TVM_FFI_PREDICT_FALSE(num_packed != static_cast<int32_t>(sizeof...(Args)))) {
      ThrowArgCountMismatch<R, Args...>(name, num_packed);
    }
    UnpackImpl(std::index_sequence_for<Args...>{}, name, f,
               reinterpret_cast<const TVMFFIAny*>(args), rv);
  }

  /*! \brief A safe-call symbol: `int (void*, const TVMFFIAny*, int32_t, TVMFFIAny*)`. */
  using SafeCallSymbol = int (*)(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);

  /*!
   * \brief As Unpack, for the exported symbol `self` whose body this is: when
   *        an argument needs converting, the converted arguments are passed
   *        to `self` again (where every one is strict) instead of to f from a
   *        second place. f is then called from one place and its address is
   *        never taken, so a kernel local to its file is inlined into its
   *        exported symbol (a call would copy each by-value argument, 48 bytes
   *        for a TensorView). Signatures with a type that cannot be held in
   *        an Any (std::string, STL containers, ...) take Unpack's path.
   * \return 0, or the return code of the call through `self`.
   */
  template <typename F>
  TVM_FFI_INLINE static int UnpackExported(const char* name, F& f, const AnyView* args,
                                           int32_t num_packed, Any* rv,
                                           [[maybe_unused]] SafeCallSymbol self) {
    if constexpr (sizeof...(Args) == 0 || !(ArgReenterable<Args>() && ...)) {
      Unpack(name, f, args, num_packed, rv);
      return 0;
    } else {
      CheckSignature();
      if (TVM_FFI_PREDICT_FALSE(num_packed != static_cast<int32_t>(sizeof...(Args)))) {
        ThrowArgCountMismatch<R, Args...>(name, num_packed);
      }
      const TVMFFIAny* raw = reinterpret_cast<const TVMFFIAny*>(args);
      if (TVM_FFI_PREDICT_TRUE(CallIfStrict(std::index_sequence_for<Args...>{}, f, raw, rv))) {
        return 0;
      }
      return ConvertAndReenter(std::index_sequence_for<Args...>{}, name, raw,
                               AnyUnsafe::MutableTVMFFIAnyPtrFromAny(rv), self);
    }
  }

 private:
  TVM_FFI_INLINE static void CheckSignature() {
    static_assert((kArgTypeSupported<Args> && ...),
                  "typed function parameters must be T, const T& or T&& (no mutable references)");
    static_assert((kArgConvertible<Args> && ...),
                  "a typed function parameter type has no TypeTraits (not an FFI type)");
    static_assert(kRetConvertible<R>, "the return type has no TypeTraits (not an FFI type)");
  }

  template <typename F, size_t... Is>
  TVM_FFI_INLINE static void UnpackImpl(std::index_sequence<Is...>, const char* name, F& f,
                                        [[maybe_unused]] const TVMFFIAny* args,
                                        [[maybe_unused]] Any* rv) {
    if (TVM_FFI_PREDICT_FALSE(!CallIfStrict(std::index_sequence<Is...>{}, f, args, rv))) {
      CallWithConversion(std::index_sequence<Is...>{}, name, f, args, rv);
    }
  }

  /*! \return Whether every argument was strictly its declared type (f was then called). */
  template <typename F, size_t... Is>
  TVM_FFI_INLINE static bool CallIfStrict(std::index_sequence<Is...>, F& f,
                                          [[maybe_unused]] const TVMFFIAny* args,
                                          [[maybe_unused]] Any* rv) {
    // Each argument is checked and read in one step, left to right, stopping
    // at the first that is not strictly its declared type.
    ArgPack<std::index_sequence<Is...>, typename ArgConverter<Args>::Slot...> slots;
    if (TVM_FFI_PREDICT_TRUE((ArgConverter<Args>::Fetch(args + Is, &SlotOf<Is>(slots)) && ...))) {
      // Fast path: every argument already has the declared type.
      if constexpr (std::is_void_v<R>) {
        f(ArgConverter<Args>::FromSlot(SlotOf<Is>(slots))...);
      } else {
        StoreResult<R>(rv, f(ArgConverter<Args>::FromSlot(SlotOf<Is>(slots))...));
      }
      return true;
    }
    return false;
  }

  /*!
   * \brief UnpackExported's slow path: each argument in its strict form (as
   *        passed, or converted and held here), left to right so that the
   *        first bad one is reported, then one call through `self`.
   */
  template <size_t... Is>
  TVM_FFI_NOINLINE static int ConvertAndReenter(std::index_sequence<Is...>, const char* name,
                                                const TVMFFIAny* args, TVMFFIAny* result,
                                                SafeCallSymbol self) {
    Any held[sizeof...(Is)];
    TVMFFIAny strict[sizeof...(Is)];
    (StrictForm<Args, Is>(name, args + Is, &held[Is], &strict[Is]), ...);
    return self(nullptr, strict, static_cast<int32_t>(sizeof...(Is)), result);
  }

  template <typename T, size_t I>
  TVM_FFI_INLINE static void StrictForm(const char* name, const TVMFFIAny* arg, Any* held,
                                        TVMFFIAny* out) {
    using U = remove_cvref_t<T>;
    if constexpr (std::is_same_v<U, Any> || std::is_same_v<U, AnyView>) {
      *out = *arg;  // every value is one
    } else if (ArgConverter<T>::Strict(arg)) {
      *out = *arg;
    } else if constexpr (kConvertsOnlyStrict<U>) {
      ThrowArgTypeMismatch<U, R, Args...>(name, static_cast<int32_t>(I), arg);
    } else {
      *held = Any(ConvertArg<U, I>(name, arg));
      const TVMFFIAny* cell = AnyUnsafe::TVMFFIAnyPtrFromAny(*held);
      // A conversion's result is strict by design; were it not, the call
      // through `self` would convert again without end.
      if (TVM_FFI_PREDICT_FALSE(!ArgConverter<T>::Strict(cell))) {
        ThrowArgTypeMismatch<U, R, Args...>(name, static_cast<int32_t>(I), arg);
      }
      *out = *cell;
    }
  }

  template <typename U, size_t I>
  static U ConvertArg(const char* name, const TVMFFIAny* arg) {
    if constexpr (std::is_same_v<U, AnyView> || std::is_same_v<U, Any>) {
      return ArgConverter<U>::FromStrict(arg);
    } else {
      std::optional<U> value = TypeTraits<U>::TryCastFromAnyView(arg);
      if (TVM_FFI_PREDICT_FALSE(!value.has_value())) {
        ThrowArgTypeMismatch<U, R, Args...>(name, static_cast<int32_t>(I), arg);
      }
      return *std::move(value);
    }
  }

  // Converted left to right (a braced list is evaluated in order), so the
  // first bad argument is the one reported.
  template <typename F, size_t... Is>
  TVM_FFI_NOINLINE static void CallWithConversion(std::index_sequence<Is...>,
                                                  [[maybe_unused]] const char* name, F& f,
                                                  [[maybe_unused]] const TVMFFIAny* args,
                                                  [[maybe_unused]] Any* rv) {
    ArgPack<std::index_sequence<Is...>, remove_cvref_t<Args>...> pack{
        {ConvertArg<remove_cvref_t<Args>, Is>(name, args + Is)}...};
    if constexpr (std::is_void_v<R>) {
      f(std::move(SlotOf<Is>(pack))...);
    } else {
      StoreResult<R>(rv, f(std::move(SlotOf<Is>(pack))...));
    }
  }
};

template <typename T>
struct FunctionInfoHelper;
template <typename T, typename R, typename... Args>
struct FunctionInfoHelper<R (T::*)(Args...)> : FuncFunctorImpl<R, Args...> {};
template <typename T, typename R, typename... Args>
struct FunctionInfoHelper<R (T::*)(Args...) const> : FuncFunctorImpl<R, Args...> {};
template <typename T, typename R, typename... Args>
struct FunctionInfoHelper<R (T::*)(Args...) noexcept> : FuncFunctorImpl<R, Args...> {};
template <typename T, typename R, typename... Args>
struct FunctionInfoHelper<R (T::*)(Args...) const noexcept> : FuncFunctorImpl<R, Args...> {};

/*! \brief Signature facts of a function, function pointer or functor (lambda). */
template <typename T, typename = void>
struct FunctionInfo : FunctionInfoHelper<decltype(&T::operator())> {};
template <typename R, typename... Args>
struct FunctionInfo<R(Args...), void> : FuncFunctorImpl<R, Args...> {};
template <typename R, typename... Args>
struct FunctionInfo<R (*)(Args...), void> : FuncFunctorImpl<R, Args...> {};
template <typename R, typename... Args>
struct FunctionInfo<R(Args...) noexcept, void> : FuncFunctorImpl<R, Args...> {};
template <typename R, typename... Args>
struct FunctionInfo<R (*)(Args...) noexcept, void> : FuncFunctorImpl<R, Args...> {};

/*! \brief Unpack packed arguments into a typed callable (upstream-compatible entry). */
template <typename F>
TVM_FFI_INLINE void unpack_call(const char* name, F& f, const AnyView* args, int32_t num_args,
                                Any* rv) {
  FunctionInfo<remove_cvref_t<F>>::Unpack(name, f, args, num_args, rv);
}

}  // namespace detail
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_FUNCTION_DETAIL_H_
