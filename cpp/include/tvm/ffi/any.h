/*
 * tvmffi C++ layer: AnyView (borrowing) and Any (owning) over TVMFFIAny.
 *
 *   as<T>()       exact type only, no conversion -> std::optional<T>
 *                 (as<ObjT>() for an Object subclass -> const ObjT* or nullptr)
 *   try_cast<T>() with the allowed conversions -> std::optional<T>
 *   cast<T>()     as try_cast, but throws TypeError
 *                 "Cannot convert from type `str` to `int`"
 *
 * Any from AnyView makes the value owned: objects gain a reference, a raw C
 * string becomes a String, a byte array Bytes; a DLTensor* cannot be owned
 * (TypeError).
 */
#ifndef TVM_FFI_ANY_H_
#define TVM_FFI_ANY_H_

#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>
#include <tvm/ffi/type_traits.h>

#include <cstring>
#include <optional>
#include <string>
#include <utility>

namespace tvm {
namespace ffi {

class Any;

namespace detail {
struct AnyUnsafe;

/*! \brief Throw "Cannot convert from type `X` to `T`" (cold). */
template <typename T>
[[noreturn]] TVM_FFI_COLD_CODE void ThrowCannotConvert(const TVMFFIAny* src) {
  TVM_FFI_THROW(TypeError) << "Cannot convert from type `"
                           << TypeTraits<T>::GetMismatchTypeInfo(src) << "` to `"
                           << TypeTraits<T>::TypeStr() << "`";
}

/*! \brief cast<T>(): the value converted to T, or the TypeError. */
template <typename T>
TVM_FFI_INLINE T CastOrThrow(const TVMFFIAny* src) {
  std::optional<T> value = TypeTraits<T>::TryCastFromAnyView(src);
  if (TVM_FFI_PREDICT_FALSE(!value.has_value())) ThrowCannotConvert<T>(src);
  return *std::move(value);
}

/*!
 * \brief CastOrThrow of a value that is not strictly a T. Out of line so that
 *        the strict test inlined at the call site is one compare.
 */
template <typename T>
TVM_FFI_NOINLINE T CastWithConversion(const TVMFFIAny* src) {
  return CastOrThrow<T>(src);
}

/*! \brief as_or_throw's TypeError: "Cannot treat type `found` as type `target`" (cold). */
[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowCannotTreatAs(const std::string& found,
                                                              const std::string& target) {
  TVM_FFI_THROW(TypeError) << "Cannot treat type `" << found << "` as type `" << target << "`";
}
}  // namespace detail

/*!
 * \brief A non-owning view of any FFI value (what arguments are passed as).
 *        Trivially copyable, as upstream's: a by-value AnyView parameter of a
 *        hook called through a function pointer (__s_visit__, a visitor's
 *        vtable) is then passed in registers the same way by every binary.
 */
class AnyView {
 public:
  AnyView() noexcept { detail::SetAnyNone(&data_); }
  AnyView(const AnyView&) noexcept = default;
  AnyView& operator=(const AnyView&) noexcept = default;
  AnyView(AnyView&&) noexcept = default;
  AnyView& operator=(AnyView&&) noexcept = default;
  /*! \brief View a value; it must outlive the view. */
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  AnyView(const T& value) {  // NOLINT(*)
    TypeTraits<T>::CopyToAnyView(value, &data_);
  }
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  AnyView& operator=(const T& value) {
    TypeTraits<T>::CopyToAnyView(value, &data_);
    return *this;
  }

  void reset() noexcept { detail::SetAnyNone(&data_); }
  void swap(AnyView& other) noexcept { std::swap(data_, other.data_); }
  int32_t type_index() const noexcept { return data_.type_index; }
  /*! \return Whether both views hold the same type and the same bits (same object for objects). */
  bool same_as(const AnyView& other) const noexcept {
    return data_.type_index == other.data_.type_index &&
           data_.zero_padding == other.data_.zero_padding && data_.v_int64 == other.data_.v_int64;
  }
  /*! \return The readable type name ("int", "str", "ffi.Function", ...). */
  std::string GetTypeKey() const { return detail::TypeIndexToTypeKey(data_.type_index); }

  template <typename T, std::enable_if_t<TypeTraits<T>::convert_enabled, int> = 0>
  TVM_FFI_INLINE std::optional<T> as() const {
    if (TypeTraits<T>::CheckAnyStrict(&data_))
      return TypeTraits<T>::CopyFromAnyViewAfterCheck(&data_);
    return std::nullopt;
  }
  template <typename T, std::enable_if_t<is_object_subclass_v<T>, int> = 0>
  TVM_FFI_INLINE const T* as() const {
    return this->as<const T*>().value_or(nullptr);
  }
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  TVM_FFI_INLINE T cast() const {
    return detail::CastOrThrow<T>(&data_);
  }
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  TVM_FFI_INLINE std::optional<T> try_cast() const {
    return TypeTraits<T>::TryCastFromAnyView(&data_);
  }
  /*!
   * \return The value as T when it is stored as a T (as as<T>(): no
   *         conversion); TypeError otherwise. A pointer or view result
   *         borrows from the viewed value's owner.
   */
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  TVM_FFI_INLINE T as_or_throw() const {
    if (TVM_FFI_PREDICT_FALSE(!TypeTraits<T>::CheckAnyStrict(&data_))) {
      detail::ThrowCannotTreatAs(TypeTraits<T>::GetMismatchTypeInfo(&data_),
                                 TypeTraits<T>::TypeStr());
    }
    return TypeTraits<T>::CopyFromAnyViewAfterCheck(&data_);
  }

  bool operator==(std::nullptr_t) const noexcept {
    return data_.type_index == TypeIndex::kTVMFFINone;
  }
  bool operator!=(std::nullptr_t) const noexcept {
    return data_.type_index != TypeIndex::kTVMFFINone;
  }

  /*! \return A copy of the raw value. */
  TVMFFIAny CopyToTVMFFIAny() const noexcept { return data_; }
  /*! \return A view of a raw value. */
  static AnyView CopyFromTVMFFIAny(TVMFFIAny data) noexcept {
    AnyView view;
    view.data_ = data;
    return view;
  }

 protected:
  TVMFFIAny data_;
  friend class Any;
  friend struct detail::AnyUnsafe;
};
static_assert(std::is_trivially_copyable_v<AnyView> && std::is_standard_layout_v<AnyView>,
              "AnyView crosses function pointers by value: keep it trivially copyable");

namespace detail {
/*!
 * \brief Make a view's value owned in place: objects gain a reference, borrowed
 *        strings/bytes are copied (TVMFFIAnyViewToOwnedAny), an rvalue object
 *        reference is taken over.
 */
TVM_FFI_NOINLINE inline void ConvertBorrowedViewToOwned(TVMFFIAny* data) {
  if (data->type_index == TypeIndex::kTVMFFIObjectRValueRef) {
    // v_ptr points at the caller's object pointer: move it out and clear it.
    TVMFFIObject** slot = static_cast<TVMFFIObject**>(data->v_ptr);
    TVMFFIObject* obj = *slot;
    *slot = nullptr;
    if (obj == nullptr) {
      SetAnyNone(data);
    } else {
      SetAnyObject(data, obj);
    }
    return;
  }
  TVMFFIAny owned;
  SetAnyNone(&owned);
  int ret = TVMFFIAnyViewToOwnedAny(data, &owned);
  SetAnyNone(data);
  if (ret != 0) ThrowRaisedError(ret);
  *data = owned;
}

TVM_FFI_INLINE void InplaceConvertAnyViewToAny(TVMFFIAny* data) {
  if (data->type_index >= TypeIndex::kTVMFFIStaticObjectBegin) {
    HeaderIncRef(data->v_obj);
  } else if (TVM_FFI_PREDICT_FALSE(data->type_index >= TypeIndex::kTVMFFIDLTensorPtr &&
                                   data->type_index <= TypeIndex::kTVMFFIObjectRValueRef)) {
    ConvertBorrowedViewToOwned(data);
  }
}
}  // namespace detail

/*! \brief An owning FFI value (holds a strong reference when it holds an object). */
class Any {
 public:
  Any() noexcept { detail::SetAnyNone(&data_); }
  ~Any() { reset(); }
  Any(const Any& other) noexcept : data_(other.data_) {
    if (data_.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) detail::HeaderIncRef(data_.v_obj);
  }
  Any(Any&& other) noexcept : data_(other.data_) { detail::SetAnyNone(&other.data_); }
  Any& operator=(const Any& other) {
    Any(other).swap(*this);
    return *this;
  }
  Any& operator=(Any&& other) {
    Any(std::move(other)).swap(*this);
    return *this;
  }
  /*! \brief Own a copy of a viewed value (throws TypeError for a DLTensor*). */
  Any(const AnyView& other) : data_(other.data_) {  // NOLINT(*)
    detail::InplaceConvertAnyViewToAny(&data_);
  }
  Any& operator=(const AnyView& other) {
    Any(other).swap(*this);
    return *this;
  }
  /*! \brief Own a value. */
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  Any(T value) {  // NOLINT(*)
    TypeTraits<T>::MoveToAny(std::move(value), &data_);
  }
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  Any& operator=(T value) {
    Any(std::move(value)).swap(*this);
    return *this;
  }
  /*! \brief Borrow as a view (no reference change). */
  operator AnyView() const noexcept { return AnyView::CopyFromTVMFFIAny(data_); }  // NOLINT(*)

  /*! \brief Drop the value (None afterwards). */
  void reset() {
    if (data_.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) {
      TVMFFIObject* obj = data_.v_obj;
      detail::SetAnyNone(&data_);
      detail::HeaderDecRef(obj);
    } else {
      detail::SetAnyNone(&data_);
    }
  }
  void swap(Any& other) noexcept { std::swap(data_, other.data_); }
  int32_t type_index() const noexcept { return data_.type_index; }
  /*! \return The readable type name ("int", "str", "ffi.Function", ...). */
  std::string GetTypeKey() const { return detail::TypeIndexToTypeKey(data_.type_index); }

  template <typename T,
            std::enable_if_t<TypeTraits<T>::convert_enabled || std::is_same_v<T, Any>, int> = 0>
  TVM_FFI_INLINE std::optional<T> as() const& {
    if constexpr (std::is_same_v<T, Any>) {
      return *this;
    } else {
      if (TypeTraits<T>::CheckAnyStrict(&data_)) {
        return TypeTraits<T>::CopyFromAnyViewAfterCheck(&data_);
      }
      return std::nullopt;
    }
  }
  template <typename T,
            std::enable_if_t<TypeTraits<T>::storage_enabled || std::is_same_v<T, Any>, int> = 0>
  TVM_FFI_INLINE std::optional<T> as() && {
    if constexpr (std::is_same_v<T, Any>) {
      return std::move(*this);
    } else {
      if (TypeTraits<T>::CheckAnyStrict(&data_))
        return TypeTraits<T>::MoveFromAnyAfterCheck(&data_);
      return std::nullopt;
    }
  }
  template <typename T, std::enable_if_t<is_object_subclass_v<T>, int> = 0>
  TVM_FFI_INLINE const T* as() const& {
    return this->as<const T*>().value_or(nullptr);
  }
  /*!
   * \return The value as T when it is stored as a T (as as<T>(): no
   *         conversion); TypeError otherwise.
   */
  template <typename T,
            typename = std::enable_if_t<TypeTraits<T>::convert_enabled || std::is_same_v<T, Any>>>
  TVM_FFI_INLINE T as_or_throw() const& {
    if constexpr (std::is_same_v<T, Any>) {
      return *this;
    } else {
      if (TVM_FFI_PREDICT_FALSE(!TypeTraits<T>::CheckAnyStrict(&data_))) {
        detail::ThrowCannotTreatAs(TypeTraits<T>::GetMismatchTypeInfo(&data_),
                                   TypeTraits<T>::TypeStr());
      }
      return TypeTraits<T>::CopyFromAnyViewAfterCheck(&data_);
    }
  }
  template <typename T,
            typename = std::enable_if_t<TypeTraits<T>::storage_enabled || std::is_same_v<T, Any>>>
  TVM_FFI_INLINE T as_or_throw() && {
    if constexpr (std::is_same_v<T, Any>) {
      return std::move(*this);
    } else {
      if (TVM_FFI_PREDICT_FALSE(!TypeTraits<T>::CheckAnyStrict(&data_))) {
        detail::ThrowCannotTreatAs(TypeTraits<T>::GetMismatchTypeInfo(&data_),
                                   TypeTraits<T>::TypeStr());
      }
      return TypeTraits<T>::MoveFromAnyAfterCheck(&data_);
    }
  }
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  TVM_FFI_INLINE T cast() const& {
    return detail::CastOrThrow<T>(&data_);
  }
  template <typename T, typename = std::enable_if_t<TypeTraits<T>::convert_enabled>>
  TVM_FFI_INLINE T cast() && {
    if constexpr (TypeTraits<T>::storage_enabled) {
      if (TVM_FFI_PREDICT_TRUE(TypeTraits<T>::CheckAnyStrict(&data_))) {
        return TypeTraits<T>::MoveFromAnyAfterCheck(&data_);
      }
      return detail::CastWithConversion<T>(&data_);
    }
    return detail::CastOrThrow<T>(&data_);
  }
  template <typename T,
            typename = std::enable_if_t<TypeTraits<T>::convert_enabled || std::is_same_v<T, Any>>>
  TVM_FFI_INLINE std::optional<T> try_cast() const {
    if constexpr (std::is_same_v<T, Any>) {
      return *this;
    } else {
      return TypeTraits<T>::TryCastFromAnyView(&data_);
    }
  }

  /*! \return Whether both hold the same type and the same bits (same object for objects). */
  bool same_as(const Any& other) const noexcept {
    return data_.type_index == other.data_.type_index &&
           data_.zero_padding == other.data_.zero_padding && data_.v_int64 == other.data_.v_int64;
  }
  /*! \return Whether this holds exactly the object of `other` (or both are None/null). */
  bool same_as(const ObjectRef& other) const noexcept {
    if (!other.defined()) return data_.type_index == TypeIndex::kTVMFFINone;
    return data_.type_index >= TypeIndex::kTVMFFIStaticObjectBegin &&
           data_.v_obj == detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(other);
  }
  bool operator==(std::nullptr_t) const noexcept {
    return data_.type_index == TypeIndex::kTVMFFINone;
  }
  bool operator!=(std::nullptr_t) const noexcept {
    return data_.type_index != TypeIndex::kTVMFFINone;
  }

 private:
  struct FillTag {};
  // The value is what `fill` writes into the raw storage; if it throws, no
  // Any was constructed (nothing to destroy).
  template <typename F>
  Any(FillTag, F&& fill) {
    fill(&data_);
  }

  TVMFFIAny data_;
  friend struct detail::AnyUnsafe;
  friend struct AnyHash;
  friend struct AnyEqual;
};

static_assert(sizeof(AnyView) == sizeof(TVMFFIAny), "AnyView must be a TVMFFIAny");
static_assert(sizeof(Any) == sizeof(TVMFFIAny), "Any must be a TVMFFIAny");

namespace detail {
/*! \brief Raw access to Any internals for the FFI layer (no checks). */
struct AnyUnsafe : public ObjectUnsafe {
  static TVMFFIAny MoveAnyToTVMFFIAny(Any&& any) noexcept {
    TVMFFIAny result = any.data_;
    SetAnyNone(&any.data_);
    return result;
  }
  /*!
   * \brief An Any whose storage `fill(TVMFFIAny*)` writes in full (built in
   *        place: a returned Any is filled where the caller keeps it).
   */
  template <typename F>
  TVM_FFI_INLINE static Any FillAny(F&& fill) {
    return Any(Any::FillTag{}, std::forward<F>(fill));
  }
  static Any MoveTVMFFIAnyToAny(TVMFFIAny* data) noexcept {
    Any any;
    any.data_ = *data;
    SetAnyNone(data);
    return any;
  }
  /*! \brief Take over an owned raw value passed by value (upstream's name). */
  TVM_FFI_INLINE static Any MoveTVMFFIAnyRawToAny(TVMFFIAny raw) noexcept {
    return MoveTVMFFIAnyToAny(&raw);
  }
  /*!
   * \brief The object a view holds, as TObject*, unchecked: the caller knows
   *        the view holds a TObject (type dispatch already matched it).
   */
  template <typename TObject = Object>
  TVM_FFI_INLINE static TObject* RawObjectPtrFromAnyViewAfterCheck(const AnyView& view) noexcept {
    // Through Object: a subclass with virtual functions starts before its Object base.
    return static_cast<TObject*>(reinterpret_cast<Object*>(view.data_.v_obj));
  }
  /*! \brief As RawObjectPtrFromAnyViewAfterCheck, for an Any (still owned by it). */
  template <typename TObject = Object>
  TVM_FFI_INLINE static TObject* RawObjectPtrFromAnyAfterCheck(const Any& any) noexcept {
    return static_cast<TObject*>(reinterpret_cast<Object*>(any.data_.v_obj));
  }
  static const TVMFFIAny* TVMFFIAnyPtrFromAny(const Any& any) noexcept { return &any.data_; }
  static TVMFFIAny* MutableTVMFFIAnyPtrFromAny(Any* any) noexcept { return &any->data_; }
  static const TVMFFIAny* TVMFFIAnyPtrFromAnyView(const AnyView& view) noexcept {
    return &view.data_;
  }
  template <typename T>
  static bool CheckAnyStrict(const Any& any) {
    return TypeTraits<T>::CheckAnyStrict(&any.data_);
  }
  template <typename T>
  static T CopyFromAnyViewAfterCheck(const Any& any) {
    if constexpr (std::is_same_v<T, Any>) {
      return any;
    } else {
      return TypeTraits<T>::CopyFromAnyViewAfterCheck(&any.data_);
    }
  }
  template <typename T>
  static T MoveFromAnyAfterCheck(Any&& any) {
    if constexpr (std::is_same_v<T, Any>) {
      return std::move(any);
    } else {
      return TypeTraits<T>::MoveFromAnyAfterCheck(&any.data_);
    }
  }
  static Object* ObjectPtrFromAnyAfterCheck(const Any& any) noexcept {
    return reinterpret_cast<Object*>(any.data_.v_obj);
  }
  template <typename T>
  static std::string GetMismatchTypeInfo(const Any& any) {
    return TypeTraits<T>::GetMismatchTypeInfo(&any.data_);
  }
};

// The hash and equality every TVM-FFI 0.1 binary uses for Any keys (a Map
// made by one binary is searched by another's inline code, so both must
// agree bit for bit). Strings and bytes hash by content, seeded with the
// heap type index (65 str, 66 bytes) whatever form they take; everything
// else hashes its type index and its 8 value bytes.

// HashMixStable / HashBytesStable: base_details.h.

// An object type may override both with the type attributes `__any_hash__`
// (int64_t(const Any&)) and `__any_equal__` (bool(const Any&, const Any&)),
// each a native hook or a Function, as upstream (type_attr::kAnyHash,
// reflection/native_function.h): a native hook is an opaque pointer to
// `TVMFFIAny (*)(const Any&...) noexcept` returning the raw storage of an
// Expected (the int or bool, or an Error). The runtime creates both columns
// up front, so the first lookup can be kept.

/*! \brief The hook the type of object cell `v` registers under `column`, or nullptr. */
TVM_FFI_INLINE const TVMFFIAny* AnyHookOf(const TVMFFITypeAttrColumn* column,
                                          const TVMFFIAny* v) noexcept {
  if (column == nullptr) return nullptr;
  // size before data, both acquire: the registry publishes data, then size.
  int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
  int64_t offset = static_cast<int64_t>(v->type_index) - column->begin_index;
  if (offset < 0 || offset >= size) return nullptr;
  const TVMFFIAny* hook = &__atomic_load_n(&column->data, __ATOMIC_ACQUIRE)[offset];
  return hook->type_index == TypeIndex::kTVMFFINone ? nullptr : hook;
}

TVM_FFI_INLINE const TVMFFITypeAttrColumn* AnyHashColumn() noexcept {
  static const TVMFFITypeAttrColumn* column = [] {
    TVMFFIByteArray name{"__any_hash__", 12};
    return TVMFFIGetTypeAttrColumn(&name);
  }();
  return column;
}

TVM_FFI_INLINE const TVMFFITypeAttrColumn* AnyEqualColumn() noexcept {
  static const TVMFFITypeAttrColumn* column = [] {
    TVMFFIByteArray name{"__any_equal__", 13};
    return TVMFFIGetTypeAttrColumn(&name);
  }();
  return column;
}

/*!
 * \brief Calls a hook Function on `num_args` cells; its result, which must be
 *        an int or a bool (read from the cell: no cast<> to instantiate here).
 */
TVM_FFI_NOINLINE inline int64_t CallAnyHook(const TVMFFIAny* hook, const TVMFFIAny* args,
                                            int32_t num_args, const char* what) {
  TVMFFIAny result;
  SetAnyNone(&result);
  TVMFFIAny in[2] = {args[0], num_args > 1 ? args[1] : args[0]};
  int ret = TVMFFIFunctionCall(hook->v_obj, in, num_args, &result);
  if (ret != 0) ThrowRaisedError(ret);
  Any owned = AnyUnsafe::MoveTVMFFIAnyToAny(&result);
  const TVMFFIAny* cell = AnyUnsafe::TVMFFIAnyPtrFromAny(owned);
  if (cell->type_index != TypeIndex::kTVMFFIInt && cell->type_index != TypeIndex::kTVMFFIBool) {
    TVM_FFI_THROW(TypeError) << "The " << what << " hook must return "
                             << (num_args > 1 ? "bool" : "int") << ", but returned `"
                             << owned.GetTypeKey() << "`";
  }
  return cell->v_int64;
}

/*!
 * \brief A native hook's result that is not the `expected` kind: throws the
 *        Error it holds, or a TypeError for any other value (released).
 */
[[noreturn]] TVM_FFI_NOINLINE inline void ThrowNativeAnyHookResult(TVMFFIAny raw,
                                                                   const char* what) {
  Any owned = AnyUnsafe::MoveTVMFFIAnyToAny(&raw);
  if (owned.type_index() == TypeIndex::kTVMFFIError) {
    throw AnyUnsafe::MoveFromAnyAfterCheck<Error>(std::move(owned));
  }
  TVM_FFI_THROW(TypeError) << "The " << what << " native hook must return "
                           << (std::strcmp(what, "__any_hash__") == 0 ? "int" : "bool")
                           << " or an Error, but returned `" << owned.GetTypeKey() << "`";
}

TVM_FFI_NOINLINE inline uint64_t CallAnyHashHook(const TVMFFIAny* hook, const TVMFFIAny* v) {
  if (hook->type_index == TypeIndex::kTVMFFIOpaquePtr) {
    auto fn = reinterpret_cast<TVMFFIAny (*)(const Any&) noexcept>(hook->v_ptr);
    TVMFFIAny result = fn(*reinterpret_cast<const Any*>(v));
    if (TVM_FFI_PREDICT_FALSE(result.type_index != TypeIndex::kTVMFFIInt)) {
      ThrowNativeAnyHookResult(result, "__any_hash__");
    }
    return static_cast<uint64_t>(result.v_int64);
  }
  return static_cast<uint64_t>(CallAnyHook(hook, v, 1, "__any_hash__"));
}

TVM_FFI_NOINLINE inline bool CallAnyEqualHook(const TVMFFIAny* hook, const TVMFFIAny* a,
                                              const TVMFFIAny* b) {
  if (hook->type_index == TypeIndex::kTVMFFIOpaquePtr) {
    auto fn = reinterpret_cast<TVMFFIAny (*)(const Any&, const Any&) noexcept>(hook->v_ptr);
    TVMFFIAny result = fn(*reinterpret_cast<const Any*>(a), *reinterpret_cast<const Any*>(b));
    if (TVM_FFI_PREDICT_FALSE(result.type_index != TypeIndex::kTVMFFIBool)) {
      ThrowNativeAnyHookResult(result, "__any_equal__");
    }
    return result.v_int64 != 0;
  }
  TVMFFIAny args[2] = {*a, *b};
  return CallAnyHook(hook, args, 2, "__any_equal__") != 0;
}

/*! \brief The standard hash of a cell (see above). */
TVM_FFI_INLINE uint64_t AnyCellHash(const TVMFFIAny* v) {
  std::string_view bytes;
  int32_t kind;
  if (StringLikeView(v, &bytes, &kind)) {
    return HashMixStable(static_cast<uint64_t>(kind), HashBytesStable(bytes.data(), bytes.size()));
  }
  if (v->type_index >= TypeIndex::kTVMFFIStaticObjectBegin) {
    if (const TVMFFIAny* hook = AnyHookOf(AnyHashColumn(), v)) {
      return HashMixStable(static_cast<uint64_t>(v->type_index), CallAnyHashHook(hook, v));
    }
  }
  return HashMixStable(static_cast<uint64_t>(v->type_index), v->v_uint64);
}

/*!
 * \brief The standard key equality: identical 16 bytes, or two strings (two
 *        bytes) with the same content whatever their forms.
 */
TVM_FFI_INLINE bool AnyCellEqual(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (a->type_index == b->type_index) {
    if (a->zero_padding == b->zero_padding && a->v_uint64 == b->v_uint64) return true;
    // Same type, other bytes: only a heap or borrowed string can still be equal
    // (a small string holds all of its content in the 16 bytes), or two objects
    // of a type with an `__any_equal__` hook.
    switch (a->type_index) {
      case TypeIndex::kTVMFFIStr:
      case TypeIndex::kTVMFFIBytes:
      case TypeIndex::kTVMFFIRawStr:
      case TypeIndex::kTVMFFIByteArrayPtr:
        break;
      default:
        if (a->type_index >= TypeIndex::kTVMFFIStaticObjectBegin) {
          if (const TVMFFIAny* hook = AnyHookOf(AnyEqualColumn(), a)) {
            return CallAnyEqualHook(hook, a, b);
          }
        }
        return false;
    }
  }
  std::string_view sa, sb;
  int32_t ka, kb;
  return StringLikeView(a, &sa, &ka) && StringLikeView(b, &sb, &kb) && ka == kb && sa == sb;
}
}  // namespace detail

/*! \brief Hash of an Any, the one Map and Dict place their keys by. */
struct AnyHash {
  uint64_t operator()(const Any& value) const { return detail::AnyCellHash(&value.data_); }
};

/*! \brief Equality of Any matching AnyHash: strings/bytes by content, other values bitwise. */
struct AnyEqual {
  bool operator()(const Any& lhs, const Any& rhs) const {
    return detail::AnyCellEqual(&lhs.data_, &rhs.data_);
  }
};

namespace detail {
template <typename U, typename Opt>
U OptionalAsOrThrow(const Opt& opt) {
  return AnyView(opt).template as_or_throw<U>();
}
}  // namespace detail

// ObjectRef::as_or_throw lives here: object.h sits below the error layer.
template <typename RefType, typename>
RefType ObjectRef::as_or_throw() const& {
  if (std::optional<RefType> ref = this->as<RefType>()) return *std::move(ref);
  detail::ThrowCannotTreatAs(defined() ? detail::TypeIndexToTypeKey(data_->type_index())
                                       : std::string(StaticTypeKey::kTVMFFINone),
                             TypeTraits<RefType>::TypeStr());
}
template <typename RefType, typename>
RefType ObjectRef::as_or_throw() && {
  RefType ref = static_cast<const ObjectRef&>(*this).as_or_throw<RefType>();
  data_.reset();
  return ref;
}

}  // namespace ffi

using ffi::Any;
using ffi::AnyView;

}  // namespace tvm
#endif  // TVM_FFI_ANY_H_
