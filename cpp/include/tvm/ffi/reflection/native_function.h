/*
 * tvmffi C++ layer: typed hooks kept in type attribute columns, called
 * natively when they can be (upstream's reflection/native_function.h).
 *
 *   Expected<int64_t> MyHash(const Any& v) noexcept { ... }
 *   refl::TypeAttrDef<MyObj>().native_fn_attr<&MyHash>(type_attr::kAnyHash);
 *   auto hook = refl::NativeFunctionView<int64_t(const Any&)>::FromNative<&MyHash>();
 *   int64_t h = hook(value);                              // throws the hook's Error
 *   Expected<int64_t> checked = hook.CallExpected(value);  // never throws
 *
 * The binary form, shared with upstream (a library built against either
 * side's headers registers hooks the other side calls): a hook is one
 * TVMFFIAny cell, either
 *  - an opaque pointer (kTVMFFIOpaquePtr) to a context-free C++ function
 *    `TVMFFIAny (*)(Args...) noexcept` returning the raw storage of an
 *    Expected<R>: the value, or an Error (type index kTVMFFIError), owned by
 *    the caller; or
 *  - an ffi.Function (kTVMFFIFunction) called packed, which returns R or
 *    raises (a returned Error counts as raised).
 * FromNative<&Fn> makes the adapter of the first form for `Fn`, a function
 * returning R or Expected<R>; an exception it throws becomes the Error
 * (std::exception: InternalError with its what()).
 *
 * NativeFunctionView borrows (it holds the cell as is: a packed function must
 * outlive it); NativeFunction owns (one Any). Both convert to and from Any as
 * that cell; a null pointer or any other value is no hook.
 */
#ifndef TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_
#define TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/function_metadata.h>

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {
namespace reflection {

template <typename Signature>
class NativeFunctionView;
template <typename Signature>
class NativeFunction;

namespace detail {
template <typename T>
struct IsExpected : std::false_type {};
template <typename T>
struct IsExpected<Expected<T>> : std::true_type {};

/*! \brief The raw storage of an Expected<R> holding `error`. */
template <typename R>
TVMFFIAny RawExpectedError(Error error) noexcept {
  return ::tvm::ffi::detail::ExpectedUnsafe::MoveToTVMFFIAny(
      Expected<R>(Unexpected(std::move(error))));
}
}  // namespace detail

/*!
 * \brief A borrowed hook of signature R(Args...): a native adapter pointer or
 *        a packed Function (see the top of this file). Never empty.
 * \note Thread-safe to call from several threads when the target is.
 */
template <typename R, typename... Args>
class NativeFunctionView<R(Args...)> {
  static_assert(((std::is_lvalue_reference_v<Args> ||
                  (std::is_standard_layout_v<Args> && std::is_trivially_copyable_v<Args>)) &&
                 ...),
                "NativeFunctionView: each parameter must be an lvalue reference or a "
                "standard-layout, trivially copyable value (it crosses a C-callable boundary)");

 public:
  /*! \brief The adapter pointer type kept in the cell (upstream's name). */
  using ABIType = TVMFFIAny (*)(Args...) noexcept;

  NativeFunctionView() = delete;
  NativeFunctionView(std::nullptr_t) = delete;  // NOLINT(*)

  /*!
   * \brief Borrow a typed packed function (no reference taken: it must
   *        outlive the view). Its result may be R or Expected<R>.
   * \throws ValueError when `packed` is null.
   */
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunctionView(const TypedFunction<PackedR(Args...)>& packed)  // NOLINT(*)
      : cell_(AnyView(packed.packed()).CopyToTVMFFIAny()) {
    if (packed == nullptr) {
      TVM_FFI_THROW(ValueError) << "NativeFunctionView: cannot borrow a null TypedFunction";
    }
  }
  /*! \brief A temporary would leave the view dangling. */
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunctionView(const TypedFunction<PackedR(Args...)>&&) = delete;

  /*!
   * \brief The view of the static adapter of `Fn`, a function (pointer)
   *        callable with Args... that returns R or Expected<R>.
   */
  template <auto Fn>
  static NativeFunctionView FromNative() {
    static_assert(!std::is_same_v<decltype(Fn), std::nullptr_t>,
                  "NativeFunctionView::FromNative needs a function");
    TVMFFIAny cell;
    cell.type_index = TypeIndex::kTVMFFIOpaquePtr;
    cell.zero_padding = 0;
    cell.v_uint64 = 0;
    cell.v_ptr = reinterpret_cast<void*>(&Adapter<Fn>);
    return NativeFunctionView(UnsafeInit{}, cell);
  }

  /*! \return The hook's value, or its Error; never throws. */
  TVM_FFI_INLINE Expected<R> CallExpected(Args... args) const noexcept {
    return ::tvm::ffi::detail::ExpectedUnsafe::MoveFromTVMFFIAny<R>(
        CallRaw(std::forward<Args>(args)...));
  }

  /*! \return The hook's value; throws its Error. */
  TVM_FFI_INLINE R operator()(Args... args) const {
    return CallExpected(std::forward<Args>(args)...).value();
  }

 private:
  NativeFunctionView(UnsafeInit, TVMFFIAny cell) noexcept : cell_(cell) {}

  template <auto Fn>
  static TVMFFIAny Adapter(Args... args) noexcept {
    using Ret = decltype(Fn(std::forward<Args>(args)...));
    try {
      if constexpr (detail::IsExpected<std::remove_cv_t<std::remove_reference_t<Ret>>>::value) {
        return ::tvm::ffi::detail::ExpectedUnsafe::MoveToTVMFFIAny(
            Expected<R>(Fn(std::forward<Args>(args)...)));
      } else if constexpr (std::is_void_v<R>) {
        Fn(std::forward<Args>(args)...);
        return ::tvm::ffi::detail::ExpectedUnsafe::MoveToTVMFFIAny(Expected<void>());
      } else {
        return ::tvm::ffi::detail::ExpectedUnsafe::MoveToTVMFFIAny(
            Expected<R>(R(Fn(std::forward<Args>(args)...))));
      }
    } catch (const Error& error) {
      return detail::RawExpectedError<R>(error);
    } catch (const std::exception& error) {
      return detail::RawExpectedError<R>(Error("InternalError", error.what(), ""));
    } catch (...) {
      ::tvm::ffi::detail::RethrowIfForcedUnwind();
      return detail::RawExpectedError<R>(
          Error("InternalError", "a native hook threw a non-standard exception", ""));
    }
  }

  TVM_FFI_INLINE TVMFFIAny CallRaw(Args... args) const noexcept {
    if (TVM_FFI_PREDICT_TRUE(cell_.type_index == TypeIndex::kTVMFFIOpaquePtr)) {
      return reinterpret_cast<ABIType>(cell_.v_ptr)(std::forward<Args>(args)...);
    }
    return CallPacked(std::forward<Args>(args)...);
  }

  // The packed form: arguments as AnyView, the result checked against R.
  TVM_FFI_NOINLINE TVMFFIAny CallPacked(Args... args) const noexcept {
    try {
      AnyView packed_args[sizeof...(Args) > 0 ? sizeof...(Args) : 1];
      PackedArgs::Fill(packed_args, args...);
      TVMFFIAny raw;
      raw.type_index = TypeIndex::kTVMFFINone;
      raw.zero_padding = 0;
      raw.v_int64 = 0;
      int ret = TVMFFIFunctionCall(cell_.v_obj, reinterpret_cast<TVMFFIAny*>(packed_args),
                                   static_cast<int32_t>(sizeof...(Args)), &raw);
      if (TVM_FFI_PREDICT_FALSE(ret != 0)) {
        return detail::RawExpectedError<R>(::tvm::ffi::detail::MoveFromSafeCallRaised());
      }
      Any result = ::tvm::ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(&raw);
      if (result.type_index() == TypeIndex::kTVMFFIError) {
        return ::tvm::ffi::detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(result));
      }
      if constexpr (std::is_same_v<R, Any>) {
        return ::tvm::ffi::detail::ExpectedUnsafe::MoveToTVMFFIAny(Expected<R>(std::move(result)));
      } else if constexpr (std::is_void_v<R>) {
        if (result.type_index() == TypeIndex::kTVMFFINone) {
          return ::tvm::ffi::detail::ExpectedUnsafe::MoveToTVMFFIAny(Expected<void>());
        }
      } else {
        if (std::optional<R> value = result.template try_cast<R>()) {
          return ::tvm::ffi::detail::ExpectedUnsafe::MoveToTVMFFIAny(
              Expected<R>(*std::move(value)));
        }
      }
      return detail::RawExpectedError<R>(
          Error("TypeError",
                "a packed hook of type " + TypeTraits<TypedFunction<R(Args...)>>::TypeStr() +
                    " returned `" + result.GetTypeKey() + "`",
                ""));
    } catch (const Error& error) {
      return detail::RawExpectedError<R>(error);
    } catch (const std::exception& error) {
      return detail::RawExpectedError<R>(Error("InternalError", error.what(), ""));
    }
  }

  template <typename, typename>
  friend struct ::tvm::ffi::TypeTraits;
  template <typename>
  friend class NativeFunction;

  TVMFFIAny cell_;
};

/*!
 * \brief The owning form of NativeFunctionView: one Any (a packed function
 *        is kept alive; an adapter pointer is static).
 */
template <typename R, typename... Args>
class NativeFunction<R(Args...)> {
 public:
  /*! \brief The borrowed form. */
  using View = NativeFunctionView<R(Args...)>;

  /*! \brief Own what `view` refers to (a packed function gains a reference). */
  explicit NativeFunction(View view) : data_(AnyView::CopyFromTVMFFIAny(view.cell_)) {}

  /*! \brief Own a typed packed function; ValueError when it is null. */
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunction(const TypedFunction<PackedR(Args...)>& packed)  // NOLINT(*)
      : NativeFunction(View(packed)) {}

  /*! \return An owner of what `view` refers to. */
  static NativeFunction From(View view) { return NativeFunction(view); }

  /*! \return An owner of the adapter of `Fn` (see View::FromNative). */
  template <auto Fn>
  static NativeFunction FromNative() {
    return NativeFunction(View::template FromNative<Fn>());
  }

  /*! \return The hook's value, or its Error; never throws. */
  TVM_FFI_INLINE Expected<R> CallExpected(Args... args) const noexcept {
    return AsView().CallExpected(std::forward<Args>(args)...);
  }

  /*! \return The hook's value; throws its Error. */
  TVM_FFI_INLINE R operator()(Args... args) const {
    return CallExpected(std::forward<Args>(args)...).value();
  }

 private:
  NativeFunction(UnsafeInit, Any data) noexcept : data_(std::move(data)) {}
  View AsView() const noexcept { return View(UnsafeInit{}, AnyView(data_).CopyToTVMFFIAny()); }

  template <typename, typename>
  friend struct ::tvm::ffi::TypeTraits;

  Any data_;
};

}  // namespace reflection

namespace detail {
/*! \brief A hook cell: a non-null opaque pointer or a Function. */
TVM_FFI_INLINE bool IsNativeHookCell(const TVMFFIAny* src) noexcept {
  return (src->type_index == TypeIndex::kTVMFFIOpaquePtr && src->v_ptr != nullptr) ||
         src->type_index == TypeIndex::kTVMFFIFunction;
}
template <typename Signature>
std::string NativeHookTypeStr() {
  return "Variant<" + TypeTraits<void*>::TypeStr() + ", " +
         TypeTraits<TypedFunction<Signature>>::TypeStr() + ">";
}
template <typename Signature>
std::string NativeHookTypeSchema() {
  return "{\"type\":\"Variant\",\"args\":[" + MetadataTypeSchema<void*>() + "," +
         TypeTraits<TypedFunction<Signature>>::TypeSchema() + "]}";
}
}  // namespace detail

template <typename Signature>
inline constexpr bool use_default_type_traits_v<reflection::NativeFunctionView<Signature>> = false;
template <typename Signature>
inline constexpr bool use_default_type_traits_v<reflection::NativeFunction<Signature>> = false;

/*! \brief A view converts as its cell, as is (a borrowed Function gains a reference in an Any). */
template <typename Signature>
struct TypeTraits<reflection::NativeFunctionView<Signature>> : public TypeTraitsBase {
  using View = reflection::NativeFunctionView<Signature>;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIAny;

  static void CopyToAnyView(const View& src, TVMFFIAny* result) { *result = src.cell_; }
  static void MoveToAny(View src, TVMFFIAny* result) {
    *result = detail::AnyUnsafe::MoveAnyToTVMFFIAny(Any(AnyView::CopyFromTVMFFIAny(src.cell_)));
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) { return detail::IsNativeHookCell(src); }
  static View CopyFromAnyViewAfterCheck(const TVMFFIAny* src) { return View(UnsafeInit{}, *src); }
  static View MoveFromAnyAfterCheck(TVMFFIAny* src) { return View(UnsafeInit{}, *src); }
  static std::optional<View> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return View(UnsafeInit{}, *src);
    return std::nullopt;
  }
  static std::string TypeStr() { return detail::NativeHookTypeStr<Signature>(); }
  static std::string TypeSchema() { return detail::NativeHookTypeSchema<Signature>(); }
};

/*! \brief An owner converts as its cell, keeping the reference it holds. */
template <typename Signature>
struct TypeTraits<reflection::NativeFunction<Signature>> : public TypeTraitsBase {
  using Owner = reflection::NativeFunction<Signature>;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIAny;

  static void CopyToAnyView(const Owner& src, TVMFFIAny* result) {
    *result = AnyView(src.data_).CopyToTVMFFIAny();
  }
  static void MoveToAny(Owner src, TVMFFIAny* result) {
    *result = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(src.data_));
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) { return detail::IsNativeHookCell(src); }
  static Owner CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return Owner(UnsafeInit{}, Any(AnyView::CopyFromTVMFFIAny(*src)));
  }
  static Owner MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return Owner(UnsafeInit{}, detail::AnyUnsafe::MoveTVMFFIAnyToAny(src));
  }
  static std::optional<Owner> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return detail::NativeHookTypeStr<Signature>(); }
  static std::string TypeSchema() { return detail::NativeHookTypeSchema<Signature>(); }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_
