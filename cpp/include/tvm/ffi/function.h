/*
 * tvmffi C++ layer: Function, the type-erased FFI callable.
 *
 * A FunctionObj is the ABI header followed by TVMFFIFunctionCell
 * { safe_call, cpp_call }. Functions made by these headers have a safe_call
 * that catches every exception, and keep their throwing C++ entry after the
 * cell (FunctionObjCppBase, a frozen layout); the cell's cpp_call stays NULL,
 * so C++ exceptions never leave the library that threw them, even when the
 * caller was built against other headers (e.g. upstream's, whose CallPacked
 * would otherwise call cpp_call directly).
 *
 * A C++ call takes the direct (throwing) path only for functions made by this
 * very library: their header's padding holds kCppFunctionMagic (other makers
 * leave it 0) and FunctionObjCppBase::owner is this library's hidden tag.
 * This library's own calls test one equivalent word: the header's deleter is
 * this library's hidden CppFunctionDeleter (it forwards to the type's own).
 * Every other function (C callbacks, other libraries) is called through
 * safe_call, and a nonzero return is rethrown as the raised Error.
 */
#ifndef TVM_FFI_FUNCTION_H_
#define TVM_FFI_FUNCTION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function_detail.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

class FunctionObj;

namespace detail {
/*! \brief Header padding of Functions made by these headers (runtime/upstream objects have 0). */
constexpr uint32_t kCppFunctionMagic = 0x63666674u;  // "tffc"
/*! \brief Hidden, so one per library: its address says "made by this library". */
TVM_FFI_HIDDEN inline const char kFunctionOwnerTag = 0;
}  // namespace detail

/*! \brief The Function object. Use Function, not this class. */
class FunctionObj : public Object, public TVMFFIFunctionCell {
 public:
  /*!
   * \brief A C++ entry that throws instead of returning -1. `result` is
   *        storage holding no object (uninitialised, or a released value):
   *        the entry fills it in full when it returns and leaves no object
   *        in it when it throws.
   */
  using FCall = void (*)(const FunctionObj*, const AnyView*, int32_t, Any*);

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIFunction;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIFunction, FunctionObj, Object);

  /*! \brief Call with packed arguments; throws the callee's error. */
  TVM_FFI_INLINE void CallPacked(const AnyView* args, int32_t num_args, Any* result) const;
  /*!
   * \brief As CallPacked into uninitialised storage, which holds the result
   *        once this returns (and nothing to release if it throws).
   */
  TVM_FFI_INLINE void CallPackedInto(const AnyView* args, int32_t num_args,
                                     TVMFFIAny* result) const;

 protected:
  FunctionObj() noexcept {
    this->safe_call = nullptr;
    this->cpp_call = nullptr;
  }

 private:
  void CallThroughSafeCall(const AnyView* args, int32_t num_args, Any* result) const {
    result->reset();  // the callee writes without releasing
    int ret = this->safe_call(detail::ObjectUnsafe::GetHeader(this),
                              reinterpret_cast<const TVMFFIAny*>(args), num_args,
                              detail::AnyUnsafe::MutableTVMFFIAnyPtrFromAny(result));
    if (TVM_FFI_PREDICT_FALSE(ret != 0)) detail::ThrowRaisedError(ret);
  }
};

namespace detail {
/*!
 * \brief The layout of every Function made by these headers: the cell, then
 *        the owning library's tag and the C++ entry. Frozen (other libraries
 *        built from these headers check `owner` of this layout).
 */
class FunctionObjCppBase : public FunctionObj {
 public:
  const void* owner;
  FCall cpp_entry;
};

/*!
 * \brief Made by this library, after the frozen part: the type's own deleter,
 *        which the header's deleter (CppFunctionDeleter) forwards to.
 */
class FunctionObjCppOwned : public FunctionObjCppBase {
 public:
  void (*type_deleter)(void* self, int flags);
};

/*!
 * \brief The header deleter of every Function this library makes. Hidden, so
 *        one per library: a header holding it says "made here" in one compare.
 */
TVM_FFI_HIDDEN inline void CppFunctionDeleter(void* self, int flags) {
  static_cast<FunctionObjCppOwned*>(
      ObjectUnsafe::RawObjectPtrFromUnowned<FunctionObjCppOwned>(static_cast<TVMFFIObject*>(self)))
      ->type_deleter(self, flags);
}

/*!
 * \brief The ValueError of a C call with a NULL `result`, a negative
 *        `num_args` or NULL `args` with arguments (out of line: not on the call path).
 */
[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowBadCallArguments(const TVMFFIAny* result,
                                                                 int32_t num_args) {
  if (result == nullptr) TVM_FFI_THROW(ValueError) << "Function call: argument `result` is NULL";
  if (num_args < 0) TVM_FFI_THROW(ValueError) << "Function call: argument `num_args` is negative";
  TVM_FFI_THROW(ValueError) << "Function call: argument `args` is NULL with num_args " << num_args;
}

/*!
 * \brief A typed function's packed entry (Function::FromTyped): converts the
 *        arguments and calls `f`. Always inlined into the function's entries.
 */
template <typename F>
struct TypedPackedCall {
  F f;
  TVM_FFI_INLINE void operator()(const AnyView* args, int32_t num_args, Any* rv) {
    unpack_call(nullptr, f, args, num_args, rv);
  }
  /*! \brief A successful call of a function with a result writes all of `*rv`. */
  static constexpr bool kStoresResult =
      !std::is_void_v<typename FunctionInfo<remove_cvref_t<F>>::RetType>;
  /*! \brief The number of arguments a call must pass. */
  static constexpr int32_t kNumArgs =
      static_cast<int32_t>(FunctionInfo<remove_cvref_t<F>>::num_args);
};
/*! \brief As TypedPackedCall, with a name for argument errors. */
template <typename F>
struct NamedTypedPackedCall {
  F f;
  std::string name;
  TVM_FFI_INLINE void operator()(const AnyView* args, int32_t num_args, Any* rv) {
    unpack_call(name.c_str(), f, args, num_args, rv);
  }
  static constexpr bool kStoresResult = TypedPackedCall<F>::kStoresResult;
  static constexpr int32_t kNumArgs = TypedPackedCall<F>::kNumArgs;
};

/*! \brief Whether a packed callable writes `*rv` in full whenever it returns. */
template <typename T, typename = void>
struct StoresResult : std::false_type {};
template <typename T>
struct StoresResult<T, std::enable_if_t<T::kStoresResult>> : std::true_type {};
/*! \brief The argument count a packed callable requires, or -1 (any). */
template <typename T, typename = void>
struct FixedNumArgs : std::integral_constant<int32_t, -1> {};
template <typename T>
struct FixedNumArgs<T, std::void_t<decltype(T::kNumArgs)>>
    : std::integral_constant<int32_t, T::kNumArgs> {};

/*! \brief A FunctionObj running a C++ callable `void(const AnyView*, int32_t, Any*)`. */
template <typename TCallable>
class FunctionObjImpl : public FunctionObjCppOwned {
 public:
  explicit FunctionObjImpl(TCallable callable) : callable_(std::move(callable)) {
    this->safe_call = &SafeCall;
    this->cpp_call = nullptr;  // see the file comment
    this->owner = &kFunctionOwnerTag;
    this->cpp_entry = &CppCall;
  }

 private:
  static void CppCall(const FunctionObj* self, const AnyView* args, int32_t num_args, Any* rv) {
    if constexpr (StoresResult<TCallable>::value) {
      // Writes `*rv` in full after the last point where it can throw.
      static_cast<const FunctionObjImpl*>(self)->callable_(args, num_args, rv);
    } else if constexpr (kTypedCallable) {
      // A typed function without a result never writes `*rv`.
      SetAnyNone(AnyUnsafe::MutableTVMFFIAnyPtrFromAny(rv));
      static_cast<const FunctionObjImpl*>(self)->callable_(args, num_args, rv);
    } else {
      SetAnyNone(AnyUnsafe::MutableTVMFFIAnyPtrFromAny(rv));
      try {
        static_cast<const FunctionObjImpl*>(self)->callable_(args, num_args, rv);
      } catch (...) {
        rv->reset();  // a packed callable may have set it before throwing
        throw;
      }
    }
  }
  static constexpr bool kTypedCallable = FixedNumArgs<TCallable>::value >= 0;
  // The C ABI entry: the callable inlined, every exception caught.
  static int SafeCall(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    constexpr int32_t kNumArgs = FixedNumArgs<TCallable>::value;
    if constexpr (kNumArgs >= 0) {
      // A fixed arity: one test passes every well-formed call (result present,
      // the count right, args present when there are any); IrregularSafeCall
      // reports what is wrong with the others.
      // (Separate tests: merged, they compile to flag arithmetic.)
      if (TVM_FFI_PREDICT_FALSE(num_args != kNumArgs)) {
        return IrregularSafeCall(handle, args, num_args, result);
      }
      if constexpr (kNumArgs != 0) {
        if (TVM_FFI_PREDICT_FALSE(args == nullptr)) {
          return IrregularSafeCall(handle, args, num_args, result);
        }
      }
      if (TVM_FFI_PREDICT_FALSE(result == nullptr)) {
        return IrregularSafeCall(handle, args, num_args, result);
      }
      return InvokeSafe(handle, args, kNumArgs, result);
    } else {
      return CheckedSafeCall(handle, args, num_args, result);
    }
  }
  // Every argument check, then the call (TVMFFIFunctionCall leaves the checks
  // to this entry, which C callers may also reach through the cell).
  TVM_FFI_INLINE static int CheckedSafeCall(void* handle, const TVMFFIAny* args, int32_t num_args,
                                            TVMFFIAny* result) {
    TVM_FFI_SAFE_CALL_BEGIN();
    if (TVM_FFI_PREDICT_FALSE(result == nullptr || num_args < 0 ||
                              (args == nullptr && num_args != 0))) {
      ThrowBadCallArguments(result, num_args);
    }
    Invoke(handle, args, num_args, result);
    TVM_FFI_SAFE_CALL_END();
  }
  TVM_FFI_COLD_CODE static int IrregularSafeCall(void* handle, const TVMFFIAny* args,
                                                 int32_t num_args, TVMFFIAny* result) {
    return CheckedSafeCall(handle, args, num_args, result);
  }
  TVM_FFI_INLINE static int InvokeSafe(void* handle, const TVMFFIAny* args, int32_t num_args,
                                       TVMFFIAny* result) {
    TVM_FFI_SAFE_CALL_BEGIN();
    Invoke(handle, args, num_args, result);
    TVM_FFI_SAFE_CALL_END();
  }
  TVM_FFI_INLINE static void Invoke(void* handle, const TVMFFIAny* args, int32_t num_args,
                                    TVMFFIAny* result) {
    const FunctionObjImpl* self =
        ObjectUnsafe::RawObjectPtrFromUnowned<FunctionObjImpl>(static_cast<TVMFFIObject*>(handle));
    // The caller leaves a non-object value in `result` (the C contract); a
    // typed function with a result overwrites it whole on success.
    if constexpr (!StoresResult<TCallable>::value) SetAnyNone(result);
    self->callable_(reinterpret_cast<const AnyView*>(args), num_args,
                    reinterpret_cast<Any*>(result));
  }
  mutable TCallable callable_;
};

/*!
 * \brief Call through the C entry (safe_call), so nothing is thrown.
 * \return None, or the raised Error if the call failed (a null function is a
 *         ValueError). An Any rather than a std::optional<Error>, which every
 *         file including this header would otherwise instantiate.
 */
TVM_FFI_NOINLINE inline Any CallExpectedRaw(const FunctionObj* func, const AnyView* args,
                                            int32_t num_args, Any* result) {
  if (func == nullptr) return Error("ValueError", "cannot call a null Function");
  int ret = func->safe_call(ObjectUnsafe::GetHeader(func), reinterpret_cast<const TVMFFIAny*>(args),
                            num_args, AnyUnsafe::MutableTVMFFIAnyPtrFromAny(result));
  if (TVM_FFI_PREDICT_TRUE(ret == 0)) return Any();
  // -2: the host (e.g. Python) already holds its own error; nothing was raised here.
  if (ret == -2) return Error("EnvErrorAlreadySet", "an error is already set in the host");
  return MoveFromSafeCallRaised();
}

/*! \brief The TypeError of CallExpected when the result has another type. */
TVM_FFI_COLD_CODE inline Error CallExpectedTypeMismatch(const std::string& expected,
                                                        const Any& result) {
  return Error("TypeError", "CallExpected: result type mismatch, expected " + expected +
                                ", but got " + result.GetTypeKey());
}

/*! \brief Accepts any string-like name without overload ambiguity. */
struct NameRef {
  TVMFFIByteArray bytes;
  NameRef(const char* s) : bytes{s, std::char_traits<char>::length(s)} {}  // NOLINT(*)
  NameRef(const std::string& s) : bytes{s.data(), s.size()} {}             // NOLINT(*)
  NameRef(std::string_view s) : bytes{s.data(), s.size()} {}               // NOLINT(*)
  NameRef(const String& s) : bytes{s.data(), s.size()} {}                  // NOLINT(*)
  std::string_view view() const { return std::string_view(bytes.data, bytes.size); }
};
}  // namespace detail

TVM_FFI_INLINE void FunctionObj::CallPacked(const AnyView* args, int32_t num_args,
                                            Any* result) const {
  const auto* cpp = static_cast<const detail::FunctionObjCppBase*>(this);
  // Made by this library (see the file comment): the C++ entry exists.
  if (TVM_FFI_PREDICT_TRUE(header_.deleter == &detail::CppFunctionDeleter)) {
    // Made by this library: call the C++ entry directly (exceptions propagate).
    result->reset();
    cpp->cpp_entry(this, args, num_args, result);
  } else {
    CallThroughSafeCall(args, num_args, result);
  }
}

TVM_FFI_INLINE void FunctionObj::CallPackedInto(const AnyView* args, int32_t num_args,
                                                TVMFFIAny* result) const {
  if (TVM_FFI_PREDICT_TRUE(header_.deleter == &detail::CppFunctionDeleter)) {
    // The C++ entry fills the storage in full (FCall).
    static_cast<const detail::FunctionObjCppBase*>(this)->cpp_entry(this, args, num_args,
                                                                    reinterpret_cast<Any*>(result));
  } else {
    detail::SetAnyNone(result);
    CallThroughSafeCall(args, num_args, reinterpret_cast<Any*>(result));
  }
}

/*! \brief Packed arguments: a borrowed array of AnyView. */
class PackedArgs {
 public:
  PackedArgs(const AnyView* data, int32_t size) noexcept : data_(data), size_(size) {}
  int size() const noexcept { return size_; }
  const AnyView* data() const noexcept { return data_; }
  AnyView operator[](int i) const noexcept { return data_[i]; }
  /*! \return Arguments [begin, end); end -1 means size(). */
  PackedArgs Slice(int begin, int end = -1) const noexcept {
    if (end == -1) end = size_;
    return PackedArgs(data_ + begin, end - begin);
  }
  /*! \brief View each argument into data[i] (the arguments must outlive data). */
  template <typename... Args>
  TVM_FFI_INLINE static void Fill(AnyView* data, Args&&... args) {
    size_t i = 0;
    ((data[i++] = AnyView(args)), ...);
  }

 private:
  const AnyView* data_;
  int32_t size_;
};

/*! \brief A reference-counted, type-erased FFI function (nullable). */
class Function : public ObjectRef {
 public:
  Function(std::nullptr_t) noexcept {}  // NOLINT(*)

  /*!
   * \brief A function from a packed callable: `void(PackedArgs args, Any* rv)`
   *        or `void(const AnyView* args, int32_t num_args, Any* rv)`.
   */
  template <typename TCallable>
  static Function FromPacked(TCallable packed_call) {
    if constexpr (std::is_invocable_v<TCallable&, PackedArgs, Any*>) {
      return FromPackedInternal(
          [f = std::move(packed_call)](const AnyView* args, int32_t num_args, Any* rv) mutable {
            f(PackedArgs(args, num_args), rv);
          });
    } else {
      static_assert(
          std::is_invocable_v<TCallable&, const AnyView*, int32_t, Any*>,
          "FromPacked needs void(PackedArgs, Any*) or void(const AnyView*, int32_t, Any*)");
      return FromPackedInternal(std::move(packed_call));
    }
  }

  /*!
   * \brief A function from a typed callable; arguments are converted with
   *        TypeTraits and mismatches raise TypeError naming the argument.
   */
  template <typename TCallable>
  static Function FromTyped(TCallable callable) {
    return FromPackedInternal(detail::TypedPackedCall<TCallable>{std::move(callable)});
  }
  /*! \brief As FromTyped; `name` appears in argument error messages. */
  template <typename TCallable>
  static Function FromTyped(TCallable callable, std::string name) {
    return FromPackedInternal(
        detail::NamedTypedPackedCall<TCallable>{std::move(callable), std::move(name)});
  }

  /*!
   * \brief A function around a C callback (TVMFFIFunctionCreate): `safe_call`
   *        receives `self`; `deleter(self)` runs when the function dies.
   */
  static Function FromExternC(void* self, TVMFFISafeCallType safe_call,
                              void (*deleter)(void* self)) {
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionCreate(self, safe_call, deleter, &out));
    return Function(
        detail::ObjectUnsafe::ObjectPtrFromOwned<FunctionObj>(static_cast<TVMFFIObject*>(out)));
  }

  /*! \return The global function registered under name, or an empty Optional. */
  static Optional<Function> GetGlobal(detail::NameRef name);
  /*! \return The global function; ValueError naming it if it is not registered. */
  static Function GetGlobalRequired(detail::NameRef name);
  /*! \brief Register a global function; RuntimeError if it exists and !override. */
  static void SetGlobal(detail::NameRef name, Function func, bool override = false) {
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionSetGlobal(
        &name.bytes, detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(func), override ? 1 : 0));
  }
  /*!
   * \brief Remove a global function (no error if absent).
   * \note Goes through the standard global `ffi.FunctionRemoveGlobal`, so the
   *       library needs no C entry point beyond the standard TVM-FFI 0.1 set.
   */
  static void RemoveGlobal(detail::NameRef name) {
    // A borrowed view, not a String: removal needs no memory, so cleanup cannot fail.
    GetGlobalRequired("ffi.FunctionRemoveGlobal")(&name.bytes);
  }
  /*!
   * \return The names of all global functions, sorted.
   * \note Goes through the standard global `ffi.FunctionListGlobalNamesFunctor`
   *       (f(-1) is the count, f(i) the i-th name), as RemoveGlobal does.
   */
  template <typename Name = String>  // a template: vector instantiated only if used
  static std::vector<Name> ListGlobalNames() {
    Function names = GetGlobalRequired("ffi.FunctionListGlobalNamesFunctor")().cast<Function>();
    int64_t n = names(-1).cast<int64_t>();
    std::vector<Name> out;
    out.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out.push_back(names(i).template cast<Name>());
    return out;
  }

  /*!
   * \brief Call an extern "C" safe-call function directly (e.g. an exported
   *        `__tvm_ffi_<name>` symbol, with handle nullptr).
   */
  template <typename... Args>
  TVM_FFI_INLINE static Any InvokeExternC(void* handle, TVMFFISafeCallType safe_call,
                                          Args&&... args) {
    constexpr size_t kNumArgs = sizeof...(Args);
    AnyView packed[kNumArgs > 0 ? kNumArgs : 1] = {AnyView(args)...};
    Any result;
    TVM_FFI_CHECK_SAFE_CALL(safe_call(handle, reinterpret_cast<const TVMFFIAny*>(packed),
                                      static_cast<int32_t>(kNumArgs),
                                      detail::AnyUnsafe::MutableTVMFFIAnyPtrFromAny(&result)));
    return result;
  }

  /*!
   * \brief Call with C++ arguments (viewed, not copied); returns the result.
   * \code
   *   int sum = f(1, 2).cast<int>();
   * \endcode
   */
  template <typename... Args>
  TVM_FFI_INLINE Any operator()(Args&&... args) const {
    constexpr size_t kNumArgs = sizeof...(Args);
    AnyView packed[kNumArgs > 0 ? kNumArgs : 1] = {AnyView(args)...};
    const FunctionObj* obj = static_cast<const FunctionObj*>(data_.get());
    if (TVM_FFI_PREDICT_FALSE(obj == nullptr)) ThrowNullCall();
    // The result is filled in place (no Any exists if the call throws).
    const AnyView* packed_args = packed;
    return detail::AnyUnsafe::FillAny([obj, packed_args](TVMFFIAny* result) {
      obj->CallPackedInto(packed_args, static_cast<int32_t>(kNumArgs), result);
    });
  }
  /*! \brief Call with packed arguments. */
  TVM_FFI_INLINE void CallPacked(const AnyView* args, int32_t num_args, Any* result) const {
    const FunctionObj* obj = static_cast<const FunctionObj*>(data_.get());
    if (TVM_FFI_PREDICT_FALSE(obj == nullptr)) ThrowNullCall();
    obj->CallPacked(args, num_args, result);
  }
  TVM_FFI_INLINE void CallPacked(PackedArgs args, Any* result) const {
    CallPacked(args.data(), args.size(), result);
  }

  /*!
   * \brief Call without throwing: the result converted to T, or the Error the
   *        callee raised (or returned), or a TypeError when the result is not a T.
   * \code
   *   Expected<int> r = f.CallExpected<int>(1, 2);
   * \endcode
   */
  template <typename T = Any, typename... Args>
  Expected<T> CallExpected(Args&&... args) const {
    constexpr size_t kNumArgs = sizeof...(Args);
    AnyView packed[kNumArgs > 0 ? kNumArgs : 1] = {AnyView(args)...};
    Any result;
    Any err = detail::CallExpectedRaw(static_cast<const FunctionObj*>(data_.get()), packed,
                                      static_cast<int32_t>(kNumArgs), &result);
    if (err != nullptr) return Unexpected(std::move(err).cast<Error>());
    if constexpr (std::is_same_v<T, Any>) {
      return result;
    } else {
      using ValueTraits = detail::ExpectedValueTraits<T>;
      const TVMFFIAny* raw = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(result);
      if (raw->type_index == TypeIndex::kTVMFFIError) {
        return Unexpected(std::move(result).cast<Error>());
      }
      if constexpr (std::is_void_v<T>) {
        if (raw->type_index == TypeIndex::kTVMFFINone) return Expected<void>();
      } else {
        if (std::optional<T> value = ValueTraits::TryCastFromAnyView(raw)) {
          return *std::move(value);
        }
      }
      return Unexpected(detail::CallExpectedTypeMismatch(ValueTraits::TypeStr(), result));
    }
  }

  bool operator==(std::nullptr_t) const noexcept { return data_ == nullptr; }
  bool operator!=(std::nullptr_t) const noexcept { return data_ != nullptr; }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Function, ObjectRef, FunctionObj);

 private:
  template <typename TCallable>
  static Function FromPackedInternal(TCallable packed_call) {
    ObjectPtr<detail::FunctionObjImpl<TCallable>> obj =
        make_object<detail::FunctionObjImpl<TCallable>>(std::move(packed_call));
    TVMFFIObject* header = detail::ObjectUnsafe::GetHeader(obj.get());
    header->__padding = detail::kCppFunctionMagic;
    obj->type_deleter = header->deleter;
    header->deleter = &detail::CppFunctionDeleter;
    return Function(std::move(obj));
  }
  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowNullCall() {
    TVM_FFI_THROW(ValueError) << "cannot call a null Function";
  }
};

inline Optional<Function> Function::GetGlobal(detail::NameRef name) {
  TVMFFIObjectHandle handle = nullptr;
  TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionGetGlobal(&name.bytes, &handle));
  if (handle == nullptr) return std::nullopt;
  return Function(
      detail::ObjectUnsafe::ObjectPtrFromOwned<FunctionObj>(static_cast<TVMFFIObject*>(handle)));
}

inline Function Function::GetGlobalRequired(detail::NameRef name) {
  Optional<Function> func = GetGlobal(name);
  if (TVM_FFI_PREDICT_FALSE(!func.has_value())) {
    TVM_FFI_THROW(ValueError) << "Function `" << name.view() << "` is not registered as a global";
  }
  return *std::move(func);
}

/*!
 * \brief (Internal) The runtime's global function `Name` (a string literal),
 *        looked up on first use at this call site and kept for the life of the
 *        process (never released: no exit-order hazard). For header wrappers
 *        over the runtime's built-ins (module.h, extra/json.h). The lambda
 *        returns a pointer: a reference returned by a temporary lambda trips
 *        GCC 13's -Wdangling-reference where the result is bound to a reference.
 */
#define TVM_FFI_RUNTIME_GLOBAL_(Name)                                            \
  (*[]() -> const ::tvm::ffi::Function* {                                        \
    static const ::tvm::ffi::Function* f =                                       \
        new ::tvm::ffi::Function(::tvm::ffi::Function::GetGlobalRequired(Name)); \
    return f;                                                                    \
  }())

/*!
 * \brief A Function with a static signature: arguments are checked at
 *        compile time and the result is cast to R.
 * \code
 *   TypedFunction<int(int, int)> add = [](int a, int b) { return a + b; };
 *   int three = add(1, 2);
 * \endcode
 */
namespace detail {
template <typename T>
inline std::string MetadataTypeSchema();  // function_metadata.h
template <typename R, typename... Args>
inline std::string CallableTypeSchema(std::string_view type_key);  // function_metadata.h
}  // namespace detail

template <typename FType>
class TypedFunction;

template <typename R, typename... Args>
class TypedFunction<R(Args...)> {
 public:
  using TSelf = TypedFunction<R(Args...)>;
  TypedFunction() = default;
  TypedFunction(std::nullptr_t) {}                                // NOLINT(*)
  TypedFunction(Function packed) : packed_(std::move(packed)) {}  // NOLINT(*)

  /*!
   * \brief The signature as upstream 0.1.15 writes it:
   *        {"type":"ffi.Function","named_args":{"return":[<R>],"params":[<Args>...]}}.
   */
  static std::string TypeSchema() {
    return detail::CallableTypeSchema<R, Args...>(StaticTypeKey::kTVMFFIFunction);
  }
  template <typename FLambda,
            typename = std::enable_if_t<std::is_invocable_r_v<R, FLambda&, Args...> &&
                                        !std::is_same_v<std::decay_t<FLambda>, Function> &&
                                        !std::is_same_v<std::decay_t<FLambda>, TSelf>>>
  TypedFunction(FLambda typed_lambda) {  // NOLINT(*)
    packed_ = Function::FromTyped(std::move(typed_lambda));
  }
  template <typename FLambda,
            typename = std::enable_if_t<std::is_invocable_r_v<R, FLambda&, Args...>>>
  TypedFunction(FLambda typed_lambda, std::string name) {
    packed_ = Function::FromTyped(std::move(typed_lambda), std::move(name));
  }
  TSelf& operator=(Function packed) {
    packed_ = std::move(packed);
    return *this;
  }

  TVM_FFI_INLINE R operator()(Args... args) const {
    if constexpr (std::is_void_v<R>) {
      packed_(std::forward<Args>(args)...);
    } else {
      Any result = packed_(std::forward<Args>(args)...);
      if constexpr (std::is_same_v<R, Any>) {
        return result;
      } else {
        return std::move(result).template cast<R>();
      }
    }
  }
  operator Function() const { return packed_; }  // NOLINT(*)
  const Function& packed() const& noexcept { return packed_; }
  Function&& packed() && noexcept { return std::move(packed_); }
  bool operator==(std::nullptr_t) const noexcept { return packed_ == nullptr; }
  bool operator!=(std::nullptr_t) const noexcept { return packed_ != nullptr; }

 private:
  Function packed_;
};

template <typename FType>
inline constexpr bool use_default_type_traits_v<TypedFunction<FType>> = false;

template <typename R, typename... Args>
struct TypeTraits<TypedFunction<R(Args...)>> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIFunction;
  using TFunc = TypedFunction<R(Args...)>;
  TVM_FFI_INLINE static void CopyToAnyView(const TFunc& src, TVMFFIAny* result) {
    TypeTraits<Function>::CopyToAnyView(src.packed(), result);
  }
  TVM_FFI_INLINE static void MoveToAny(TFunc src, TVMFFIAny* result) {
    TypeTraits<Function>::MoveToAny(std::move(src).packed(), result);
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return TypeTraits<Function>::CheckAnyStrict(src);
  }
  TVM_FFI_INLINE static TFunc CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return TFunc(TypeTraits<Function>::CopyFromAnyViewAfterCheck(src));
  }
  TVM_FFI_INLINE static TFunc MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return TFunc(TypeTraits<Function>::MoveFromAnyAfterCheck(src));
  }
  TVM_FFI_INLINE static std::optional<TFunc> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return detail::SignatureString<R, Args...>(); }
  /*! \brief As TypedFunction<R(Args...)>::TypeSchema(). */
  static std::string TypeSchema() { return TFunc::TypeSchema(); }
};

/*! \return The type index registered for a type key; KeyError if unknown. */
inline int32_t TypeKeyToIndex(std::string_view type_key) {
  int32_t type_index = -1;
  TVMFFIByteArray key{type_key.data(), type_key.size()};
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeKeyToIndex(&key, &type_index));
  return type_index;
}

namespace detail {
/*! \brief The body of a safe-call function calling a typed callable. */
template <typename F>
TVM_FFI_INLINE int InvokeExportedTyped(const char* name, F&& f, const TVMFFIAny* args,
                                       int32_t num_args, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  unpack_call(name, f, reinterpret_cast<const AnyView*>(args), num_args,
              reinterpret_cast<Any*>(result));
  TVM_FFI_SAFE_CALL_END();
}
/*!
 * \brief The body of the exported symbol `self` (see TVM_FFI_DLL_EXPORT_TYPED_FUNC):
 *        arguments that need converting are passed to `self` again, converted
 *        (FuncFunctorImpl::UnpackExported).
 */
template <typename F>
TVM_FFI_INLINE int InvokeExportedTyped(const char* name, F&& f, const TVMFFIAny* args,
                                       int32_t num_args, TVMFFIAny* result,
                                       int (*self)(void*, const TVMFFIAny*, int32_t, TVMFFIAny*)) {
  TVM_FFI_SAFE_CALL_BEGIN();
  return FunctionInfo<remove_cvref_t<F>>::UnpackExported(
      name, f, reinterpret_cast<const AnyView*>(args), num_args, reinterpret_cast<Any*>(result),
      self);
  TVM_FFI_SAFE_CALL_END();
}
}  // namespace detail

}  // namespace ffi
}  // namespace tvm

/*!
 * \brief Export a typed function as `extern "C" int __tvm_ffi_<ExportName>(void* self,
 *        const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result)`, with the
 *        argument checks and messages of Function::FromTyped (named ExportName).
 * \code
 *   int AddOne(int x) { return x + 1; }
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(sub_one, [](int x) { return x - 1; });
 * \endcode
 */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC(ExportName, ...)         \
  TVM_FFI_DLL_EXPORT_TYPED_FUNC_IMPL_(ExportName, __VA_ARGS__) \
  TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_(ExportName, __VA_ARGS__)

/*! \brief The safe-call symbol `__tvm_ffi_<ExportName>`. */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_IMPL_(ExportName, ...)                                      \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_##ExportName(void* self, const TVMFFIAny* args,     \
                                                           int32_t num_args, TVMFFIAny* result) { \
    (void)self;                                                                                   \
    return ::tvm::ffi::detail::InvokeExportedTyped(#ExportName, __VA_ARGS__, args, num_args,      \
                                                   result, __tvm_ffi_##ExportName);               \
  }

/*!
 * \brief Hook for the metadata symbol `__tvm_ffi__metadata_<ExportName>` (the
 *        module layer defines it); define TVM_FFI_DLL_EXPORT_NO_METADATA to opt out.
 */
#include <tvm/ffi/function_metadata.h>  // defines the hook and TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC
#ifndef TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_(ExportName, ...)
#endif

#endif  // TVM_FFI_FUNCTION_H_
