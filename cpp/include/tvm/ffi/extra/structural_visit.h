/*
 * tvmffi C++ layer: structural visiting, upstream's extra/structural_visit.h.
 *
 * A StructuralVisitor walks a value the way structural equality and hashing
 * see it: the reflected fields of an object (skipping SEqHashIgnore fields),
 * the items of an Array/List, the values of a Map/Dict (keys are not
 * visited, as upstream 0.1.15), or what a
 * type's `__s_visit__` attribute says (type_attr::kStructuralVisit: a native
 * hook, `native_fn_attr<&Fn>(type_attr::kStructuralVisit)`, or a Function
 * (visitor, value) -> None | VisitInterrupt; reflection/native_function.h). While it is inside a
 * SEqHashDefRecursive / SEqHashDefNonRecursive field it reports the def
 * region (def_region_kind()); a non-recursive region ends at the fields of
 * the free variable it binds.
 *
 * A visit returns None to go on, or a VisitInterrupt (type index
 * kTVMFFIVisitInterrupt, with a payload) that stops the whole walk and comes
 * back to the caller; errors travel as the Error of an Expected, never as a
 * C++ exception across the visit callbacks.
 *
 * StructuralWalk<WalkOrder::kPreOrder>(root, callbacks...) is the usual entry:
 * each callback takes a value of one type (AnyView, Any, an ObjectRef or
 * object pointer, or any convertible type), optionally the def region kind,
 * and returns Expected<WalkResult>: Advance(), Skip() (pre-order: do not visit
 * the children) or Interrupt(payload). The first callback whose type matches
 * is called; values no callback matches are walked through.
 *
 *   int adds = 0;
 *   StructuralWalk<WalkOrder::kPreOrder>(root, [&](const Add& a) -> Expected<WalkResult> {
 *     ++adds;
 *     return WalkResult::Advance();
 *   });
 *
 * An error that stops a walk comes back with a VisitErrorContext listing the
 * object values it passed through, innermost first
 * (extra/visit_error_context.h: FindAccessPaths(root, ctx) places it).
 *
 * The runtime registers the container visits, ffi.VisitInterrupt and the
 * ffi.StructuralVisitor* / ffi.StructuralWalk globals (runtime/structural_visit.cc).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_
#define TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/details/stack_guard.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/native_function.h>

#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief What stops a structural visit, with an optional payload (None by default). */
class VisitInterruptObj : public Object {
 public:
  Any value;

  VisitInterruptObj() = default;
  explicit VisitInterruptObj(Any result) : value(std::move(result)) {}

  static constexpr const int32_t _type_index = TypeIndex::kTVMFFIVisitInterrupt;
  static constexpr const bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIVisitInterrupt, VisitInterruptObj,
                                     Object);
};

/*! \brief Reference to a VisitInterruptObj (never null). */
class VisitInterrupt : public ObjectRef {
 public:
  VisitInterrupt() : VisitInterrupt(Any(nullptr)) {}
  explicit VisitInterrupt(Any value)
      : ObjectRef(make_object<VisitInterruptObj>(std::move(value))) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(VisitInterrupt, ObjectRef, VisitInterruptObj);
};

class StructuralVisitorObj;

/*!
 * \brief The C-callable form of a visit (a native `__s_visit__` hook's adapter,
 *        and the visitor's vtable entry): returns the raw storage of an
 *        Expected<Optional<VisitInterrupt>>, owned by the caller.
 */
using FStructuralVisitABI = TVMFFIAny (*)(StructuralVisitorObj* visitor, AnyView value) noexcept;

/*! \brief A `__s_visit__` hook as stored: native adapter or Function (borrowed). */
using FStructuralVisit =
    reflection::NativeFunctionView<Optional<VisitInterrupt>(StructuralVisitorObj*, AnyView)>;

namespace type_attr {
/*! \brief The typed key of a type's own structural visit (upstream's name). */
inline constexpr reflection::AttrKey<FStructuralVisit> kStructuralVisit{"__s_visit__"};
}  // namespace type_attr

namespace detail {
inline Expected<Optional<VisitInterrupt>> VisitReflectedFieldsExpected(
    StructuralVisitorObj* visitor, const Object* obj) noexcept;
}  // namespace detail

/*! \brief The dispatch table of a visitor (one function; it must outlive the visitor). */
struct StructuralVisitorVTable {
  FStructuralVisitABI visit = nullptr;
};

/*!
 * \brief One traversal in progress: its dispatch table and the def region it
 *        stands in. Reference counted to cross the ABI, but one visitor serves
 *        one traversal at a time.
 */
class StructuralVisitorObj : public Object {
 public:
  /*!
   * \brief The visitor type a StructuralVisitEngine hands its callbacks; a
   *        layer deriving from this one may name itself here.
   */
  using VisitorObjType = StructuralVisitorObj;
  /*!
   * \brief The state a layer hands each StructuralWalkEngine callback after the
   *        value (const references, from StateTuple()); none here.
   */
  using StateTupleType = std::tuple<>;

  /*! \return None to continue, or the interrupt that stops the walk; throws an error. */
  Optional<VisitInterrupt> Visit(AnyView value) { return VisitExpected(value).value(); }

  /*! \brief Visit through the vtable; never throws. */
  Expected<Optional<VisitInterrupt>> VisitExpected(AnyView value) noexcept {
    // Each level checks the stack: a cycle (through objects' fields) or a
    // value too deep is a ValueError, not a crash (stack_guard.h).
    if (TVM_FFI_PREDICT_FALSE(detail::stack::NearlyExhausted(detail::kWalkerStackReserve))) {
      return Unexpected(Error("ValueError",
                              "StructuralVisitor: the value is nested too deeply for this "
                              "thread's stack (a cycle, or a chain thousands of levels deep)",
                              ""));
    }
    return detail::ExpectedUnsafe::MoveFromTVMFFIAny<Optional<VisitInterrupt>>(
        (*vtable_->visit)(this, value));
  }

  /*! \brief The def region the current value is visited in. */
  TVMFFIDefRegionKind def_region_kind() const { return def_region_mode_; }

  /*! \brief Run `callback()` with the def region set to `kind`, restored afterwards. */
  template <typename Callback>
  auto WithDefRegionKind(TVMFFIDefRegionKind kind, Callback&& callback) {
    struct Restore {
      StructuralVisitorObj* self;
      TVMFFIDefRegionKind saved;
      ~Restore() { self->def_region_mode_ = saved; }
    } restore{this, def_region_mode_};
    def_region_mode_ = kind;
    return std::forward<Callback>(callback)();
  }

  /*!
   * \brief The standard visit of a value's children: the type's `__s_visit__`
   *        when it has one, else its reflected fields; nothing for POD values.
   */
  Expected<Optional<VisitInterrupt>> DefaultVisitExpected(AnyView value) noexcept {
    const int32_t type_index = value.type_index();
    static const reflection::TypeAttrColumn column(reflection::type_attr::kStructuralVisit);
    AnyView attr = column[type_index];
    switch (attr.type_index()) {
      case TypeIndex::kTVMFFIOpaquePtr: {
        auto fn = reinterpret_cast<FStructuralVisitABI>(attr.cast<void*>());
        return detail::ExpectedUnsafe::MoveFromTVMFFIAny<Optional<VisitInterrupt>>(
            (*fn)(this, value));
      }
      case TypeIndex::kTVMFFIFunction:
        return attr.cast<Function>().CallExpected<Optional<VisitInterrupt>>(this, value);
      case TypeIndex::kTVMFFINone:
        break;
      default:
        return Unexpected(Error("TypeError",
                                std::string(reflection::type_attr::kStructuralVisit) +
                                    " must be an opaque function pointer or an ffi.Function, not " +
                                    attr.GetTypeKey(),
                                ""));
    }
    if (type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
      return Optional<VisitInterrupt>(std::nullopt);
    }
    return detail::VisitReflectedFieldsExpected(this, value.cast<const Object*>());
  }

  static constexpr const bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.StructuralVisitor", StructuralVisitorObj, Object);

 protected:
  /*! \param vtable Must not be null and must outlive the visitor. */
  explicit StructuralVisitorObj(const StructuralVisitorVTable* vtable) : vtable_(vtable) {}

  /*! \brief This layer's callback state (see StateTupleType). */
  StateTupleType StateTuple() const noexcept { return {}; }

  const StructuralVisitorVTable* vtable_ = nullptr;
  TVMFFIDefRegionKind def_region_mode_ = kTVMFFIDefRegionKindNone;
};

/*! \brief Reference to a StructuralVisitorObj (never null). */
class StructuralVisitor : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(StructuralVisitor, ObjectRef, StructuralVisitorObj);
};

namespace detail {

/*!
 * \brief Whether a value of type index `actual` is handled by a callback
 *        registered for `target`: Any matches all, str/bytes also their small
 *        forms, Object every object, otherwise the type or a subclass.
 */
inline bool RuntimeTypeIndexMatch(int32_t actual, int32_t target) noexcept {
  if (actual == target || target == TypeIndex::kTVMFFIAny) return true;
  if (target == TypeIndex::kTVMFFIStr) return actual == TypeIndex::kTVMFFISmallStr;
  if (target == TypeIndex::kTVMFFIBytes) return actual == TypeIndex::kTVMFFISmallBytes;
  if (actual < TypeIndex::kTVMFFIStaticObjectBegin ||
      target < TypeIndex::kTVMFFIStaticObjectBegin) {
    return false;
  }
  if (target == TypeIndex::kTVMFFIObject) return true;
  const TVMFFITypeInfo* a = TVMFFIGetTypeInfo(actual);
  const TVMFFITypeInfo* t = TVMFFIGetTypeInfo(target);
  return a != nullptr && t != nullptr && t->type_depth < a->type_depth &&
         a->type_ancestors[t->type_depth]->type_index == target;
}

/*! \brief Whether a visit result stops the walk: an Error or a VisitInterrupt. */
template <typename T>
inline bool StructuralVisitNeedEarlyReturn(const Expected<T>& result) noexcept {
  const int32_t type_index = result.type_index();
  return type_index == TypeIndex::kTVMFFIError || type_index == TypeIndex::kTVMFFIVisitInterrupt;
}

/*!
 * \brief Visit an object's reflected fields in order, skipping SEqHashIgnore
 *        fields; a def-region field flag sets the region for that field.
 */
inline Expected<Optional<VisitInterrupt>> VisitReflectedFieldsExpected(
    StructuralVisitorObj* visitor, const Object* obj) noexcept {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(obj->type_index());
  // A non-recursive region binds the free variable itself; its own fields
  // are uses again.
  TVMFFIDefRegionKind inherited = visitor->def_region_kind();
  const TVMFFITypeMetadata* md = ::tvm::ffi::detail::TypeMetadataOf(info);
  if (inherited == kTVMFFIDefRegionKindNonRecursive && md != nullptr &&
      md->structural_eq_hash_kind == kTVMFFISEqHashKindFreeVar) {
    inherited = kTVMFFIDefRegionKindNone;
  }
  Expected<Optional<VisitInterrupt>> result = Optional<VisitInterrupt>(std::nullopt);
  reflection::ForEachFieldInfoWithEarlyStop(info, [&](const TVMFFIFieldInfo* field) -> bool {
    if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return false;
    TVMFFIAny raw{};
    void* addr = const_cast<char*>(reinterpret_cast<const char*>(obj)) + field->offset;
    if (TVM_FFI_PREDICT_FALSE(field->getter(addr, &raw) != 0)) {
      result = Unexpected(MoveFromSafeCallRaised());
      return true;
    }
    Any field_value = AnyUnsafe::MoveTVMFFIAnyToAny(&raw);
    TVMFFIDefRegionKind kind = inherited;
    if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive) {
      kind = kTVMFFIDefRegionKindNonRecursive;
    } else if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashDefRecursive) {
      kind = kTVMFFIDefRegionKindRecursive;
    }
    result = visitor->WithDefRegionKind(kind, [&] { return visitor->VisitExpected(field_value); });
    return StructuralVisitNeedEarlyReturn(result);
  });
  return result;
}

}  // namespace detail

/*!
 * \brief What a walk callback asks for: Advance() (go on, children included),
 *        Skip() (go on, without this value's children; pre-order only has
 *        children left to skip) or Interrupt(signal) (stop the walk).
 *        Converts as an int (the tag) or a VisitInterrupt; None reads as Advance.
 */
class WalkResult : public Variant<VisitInterrupt, int32_t> {
 public:
  static constexpr int32_t kAdvanceTag = 0;
  static constexpr int32_t kSkipTag = 1;
  using Storage = Variant<VisitInterrupt, int32_t>;

  static WalkResult Advance() { return WalkResult(kAdvanceTag); }
  static WalkResult Skip() { return WalkResult(kSkipTag); }
  static WalkResult Interrupt(VisitInterrupt signal = VisitInterrupt()) {
    return WalkResult(Storage(std::move(signal)));
  }

 private:
  explicit WalkResult(int32_t tag) : Storage(tag) {}
  explicit WalkResult(Storage storage) : Storage(std::move(storage)) {}
  friend struct TypeTraits<WalkResult>;
};

template <>
inline constexpr bool use_default_type_traits_v<WalkResult> = false;

template <>
struct TypeTraits<WalkResult> : public TypeTraits<WalkResult::Storage> {
  using Base = TypeTraits<WalkResult::Storage>;

  // Handed over as the Variant itself (Variant's converting constructor would
  // otherwise take the WalkResult as a new alternative).
  static void CopyToAnyView(const WalkResult& src, TVMFFIAny* result) {
    Base::CopyToAnyView(static_cast<const WalkResult::Storage&>(src), result);
  }
  static void MoveToAny(WalkResult src, TVMFFIAny* result) {
    Base::MoveToAny(static_cast<WalkResult::Storage&&>(src), result);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFINone || Base::CheckAnyStrict(src);
  }
  static WalkResult CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFINone) return WalkResult::Advance();
    return WalkResult(Base::CopyFromAnyViewAfterCheck(src));
  }
  static WalkResult MoveFromAnyAfterCheck(TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFINone) return WalkResult::Advance();
    return WalkResult(Base::MoveFromAnyAfterCheck(src));
  }
  static std::optional<WalkResult> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFINone) return WalkResult::Advance();
    if (std::optional<WalkResult::Storage> v = Base::TryCastFromAnyView(src)) {
      return WalkResult(*std::move(v));
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "WalkResult"; }
};

/*! \brief Whether a walk calls back before (pre) or after (post) a value's children. */
enum class WalkOrder : int32_t {
  kPreOrder = 0,
  kPostOrder = 1,
};

namespace detail {
/*!
 * \brief A stopping visit result (an Error or a VisitInterrupt) on its way
 *        out of a hook, which may return an Expected<Optional<VisitInterrupt>>
 *        (a native hook, upstream's form) or its raw storage (an
 *        FStructuralVisitABI function).
 */
template <typename T>
class VisitEarlyResult {
 public:
  explicit VisitEarlyResult(Expected<T>& result) noexcept : result_(result) {}
  operator TVMFFIAny() && noexcept {  // NOLINT(*)
    return ExpectedUnsafe::MoveToTVMFFIAny(std::move(result_));
  }
  template <typename U>
  operator Expected<U>() && noexcept {  // NOLINT(*)
    return ExpectedUnsafe::MoveFromTVMFFIAny<U>(
        ExpectedUnsafe::MoveToTVMFFIAny(std::move(result_)));
  }

 private:
  Expected<T>& result_;
};
template <typename T>
VisitEarlyResult<T> VisitEarlyReturn(Expected<T>& result) noexcept {
  return VisitEarlyResult<T>(result);
}
/*! \brief A plain visit result (no error possible) stops the walk when it is an interrupt. */
inline bool StructuralVisitNeedEarlyReturn(const Optional<VisitInterrupt>& result) noexcept {
  return result.has_value();
}
inline Optional<VisitInterrupt> VisitEarlyReturn(Optional<VisitInterrupt>& result) noexcept {
  return std::move(result);
}
inline void UpdateVisitErrorContextNoThrow(const Optional<VisitInterrupt>&, AnyView) noexcept {}
}  // namespace detail

/*!
 * \brief In a visit hook (returning Expected<Optional<VisitInterrupt>>, or
 *        its raw storage as an FStructuralVisitABI function), return `Result`
 *        (an Expected) when it stops the walk: an Error or a VisitInterrupt.
 */
#define TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(Result)                                       \
  do {                                                                                   \
    auto&& tvm_ffi_s_visit_res_ = (Result);                                              \
    if (TVM_FFI_PREDICT_FALSE(                                                           \
            ::tvm::ffi::detail::StructuralVisitNeedEarlyReturn(tvm_ffi_s_visit_res_))) { \
      return ::tvm::ffi::detail::VisitEarlyReturn(tvm_ffi_s_visit_res_);                 \
    }                                                                                    \
  } while (0)

/*!
 * \brief As TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN; an error also gets `Node` (when
 *        it is an object) appended to its VisitErrorContext
 *        (extra/visit_error_context.h), so that the error of a walk can be
 *        placed with VisitErrorContext::FindAccessPaths.
 */
#define TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN_WITH_ERROR_CONTEXT(Result, Node)              \
  do {                                                                                   \
    auto&& tvm_ffi_s_visit_res_ = (Result);                                              \
    if (TVM_FFI_PREDICT_FALSE(                                                           \
            ::tvm::ffi::detail::StructuralVisitNeedEarlyReturn(tvm_ffi_s_visit_res_))) { \
      ::tvm::ffi::detail::UpdateVisitErrorContextNoThrow(tvm_ffi_s_visit_res_, (Node));  \
      return ::tvm::ffi::detail::VisitEarlyReturn(tvm_ffi_s_visit_res_);                 \
    }                                                                                    \
  } while (0)

namespace detail {

/*! \brief The no-interrupt result, as raw storage. */
inline TVMFFIAny VisitContinueRaw() noexcept {
  return ExpectedUnsafe::MoveToTVMFFIAny(Expected<Optional<VisitInterrupt>>(std::nullopt));
}

/*!
 * \brief The visitor behind StructuralWalk: calls `dispatch(value, kind)`
 *        (-> Expected<WalkResult>) before or after the standard visit of
 *        each non-None value.
 */
template <WalkOrder order, typename Dispatch>
class StructuralWalkCallbackVisitorObj : public StructuralVisitorObj {
 public:
  explicit StructuralWalkCallbackVisitorObj(Dispatch dispatch)
      : StructuralVisitorObj(VTable()), dispatch_(std::move(dispatch)) {}

 private:
  static const StructuralVisitorVTable* VTable() {
    static const StructuralVisitorVTable vtable{&StructuralWalkCallbackVisitorObj::Trampoline};
    return &vtable;
  }
  static TVMFFIAny Trampoline(StructuralVisitorObj* self, AnyView value) noexcept {
    return static_cast<StructuralWalkCallbackVisitorObj*>(self)->VisitOne(value);
  }

  TVMFFIAny VisitOne(AnyView value) noexcept {
    if (value.type_index() == TypeIndex::kTVMFFINone) return VisitContinueRaw();
    if constexpr (order == WalkOrder::kPreOrder) {
      Expected<WalkResult> r = dispatch_(value, def_region_kind());
      TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN_WITH_ERROR_CONTEXT(r, value);
      if (r.type_index() == TypeIndex::kTVMFFIInt &&
          ExpectedUnsafe::ValueAs<int32_t>(r) == WalkResult::kSkipTag) {
        return VisitContinueRaw();
      }
    }
    TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN_WITH_ERROR_CONTEXT(DefaultVisitExpected(value), value);
    if constexpr (order == WalkOrder::kPostOrder) {
      TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN_WITH_ERROR_CONTEXT(dispatch_(value, def_region_kind()),
                                                            value);
    }
    return VisitContinueRaw();
  }

  Dispatch dispatch_;
};

/*! \brief The parameter types of a walk callback (a lambda or other functor). */
template <typename F>
struct WalkCallbackArgs : WalkCallbackArgs<decltype(&F::operator())> {};
template <typename C, typename R, typename A0, typename... Rest>
struct WalkCallbackArgs<R (C::*)(A0, Rest...) const> {
  using First = remove_cvref_t<A0>;
  using All = std::tuple<A0, Rest...>;
  static constexpr size_t kNumArgs = 1 + sizeof...(Rest);
};
template <typename C, typename R, typename A0, typename... Rest>
struct WalkCallbackArgs<R (C::*)(A0, Rest...)> : WalkCallbackArgs<R (C::*)(A0, Rest...) const> {};
template <typename R, typename A0, typename... Rest>
struct WalkCallbackArgs<R (*)(A0, Rest...)> {
  using First = remove_cvref_t<A0>;
  using All = std::tuple<A0, Rest...>;
  static constexpr size_t kNumArgs = 1 + sizeof...(Rest);
};
template <typename R, typename A0, typename... Rest>
struct WalkCallbackArgs<R (*)(A0, Rest...) noexcept> : WalkCallbackArgs<R (*)(A0, Rest...)> {};
template <typename C, typename R, typename A0, typename... Rest>
struct WalkCallbackArgs<R (C::*)(A0, Rest...) const noexcept>
    : WalkCallbackArgs<R (C::*)(A0, Rest...) const> {};
template <typename C, typename R, typename A0, typename... Rest>
struct WalkCallbackArgs<R (C::*)(A0, Rest...) noexcept>
    : WalkCallbackArgs<R (C::*)(A0, Rest...) const> {};

/*! \brief Chains typed callbacks into one dispatch: the first one whose type matches runs. */
struct StructuralWalkCallbackChain {
  template <typename... Callbacks>
  static auto FromChain(Callbacks... callbacks) {
    return [=](AnyView x, TVMFFIDefRegionKind kind) mutable -> Expected<WalkResult> {
      try {
        std::optional<Expected<WalkResult>> result;
        (void)(... || (result = TryOne(callbacks, x, kind)).has_value());
        if (result.has_value()) return *std::move(result);
        return WalkResult::Advance();
      } catch (const Error& err) {
        return Unexpected(err);
      }
    };
  }

 private:
  template <typename Callback>
  static std::optional<Expected<WalkResult>> TryOne(Callback& callback, AnyView x,
                                                    TVMFFIDefRegionKind kind) {
    using Args = WalkCallbackArgs<std::decay_t<Callback>>;
    static_assert(Args::kNumArgs == 1 || Args::kNumArgs == 2,
                  "StructuralWalk callbacks take (value) or (value, TVMFFIDefRegionKind)");
    using T = typename Args::First;
    if constexpr (std::is_same_v<T, AnyView>) {
      return Invoke<Args::kNumArgs>(callback, x, kind);
    } else if constexpr (std::is_same_v<T, Any>) {
      return Invoke<Args::kNumArgs>(callback, Any(x), kind);
    } else {
      if (std::optional<T> v = x.as<T>())
        return Invoke<Args::kNumArgs>(callback, *std::move(v), kind);
      return std::nullopt;
    }
  }

  template <size_t kNumArgs, typename Callback, typename Value>
  static Expected<WalkResult> Invoke(Callback& callback, Value&& value, TVMFFIDefRegionKind kind) {
    if constexpr (kNumArgs == 1) {
      return callback(std::forward<Value>(value));
    } else {
      return callback(std::forward<Value>(value), kind);
    }
  }
};

}  // namespace detail

/*!
 * \brief Walk `root` structurally, calling the first matching callback on
 *        each value (see the file comment).
 * \return None when the walk completed, the interrupt a callback returned, or
 *         the Error a callback or a visit raised.
 */
template <WalkOrder order, typename... Callbacks>
Expected<Optional<VisitInterrupt>> StructuralWalkExpected(AnyView root,
                                                          Callbacks&&... callbacks) noexcept {
  static_assert(sizeof...(Callbacks) != 0, "StructuralWalk needs at least one callback");
  try {
    auto dispatch =
        detail::StructuralWalkCallbackChain::FromChain(std::forward<Callbacks>(callbacks)...);
    using Visitor = detail::StructuralWalkCallbackVisitorObj<order, decltype(dispatch)>;
    StructuralVisitor visitor(make_object<Visitor>(std::move(dispatch)));
    return visitor->VisitExpected(root);
  } catch (const Error& err) {
    return Unexpected(err);
  } catch (const std::bad_alloc&) {
    return Unexpected(Error("MemoryError", "StructuralWalk: out of memory", ""));
  }
}

/*!
 * \brief StructuralWalkExpected that throws the error.
 * \return None when the walk completed, or the interrupt a callback returned.
 */
template <WalkOrder order, typename... Callbacks>
Optional<VisitInterrupt> StructuralWalk(AnyView root, Callbacks&&... callbacks) {
  return StructuralWalkExpected<order>(root, std::forward<Callbacks>(callbacks)...).value();
}

/*!
 * \brief StructuralWalk's visitor as a template over a visitor layer `Parent`
 *        (StructuralVisitorObj, or a class deriving from it that adds state):
 *        each callback takes (value, the layer's state..., optionally the def
 *        region kind) and returns Expected<WalkResult>; the first whose value
 *        type matches runs, before (kPreOrder) or after (kPostOrder) the
 *        layer's DefaultVisitExpected of the value.
 *
 * A layer names its state as `using StateTupleType = std::tuple<const S&...>`
 * and hands it out from a `StateTuple() const noexcept` (it may be protected).
 */
template <typename Parent, WalkOrder order, typename... Callbacks>
class StructuralWalkEngine : public Parent {
 public:
  static_assert(std::is_base_of_v<StructuralVisitorObj, Parent>,
                "StructuralWalkEngine: Parent must derive from StructuralVisitorObj");
  /*! \brief The state the Parent layer hands each callback. */
  using StateTupleType = typename Parent::StateTupleType;

  /*! \param callbacks Tried in this order on each value. */
  explicit StructuralWalkEngine(Callbacks... callbacks)
      : Parent(VTable()), callbacks_(std::move(callbacks)...) {}

 private:
  static const StructuralVisitorVTable* VTable() {
    static const StructuralVisitorVTable vtable{&StructuralWalkEngine::Trampoline};
    return &vtable;
  }
  static TVMFFIAny Trampoline(StructuralVisitorObj* self, AnyView value) noexcept {
    return static_cast<StructuralWalkEngine*>(self)->VisitOne(value);
  }

  TVMFFIAny VisitOne(AnyView value) noexcept {
    if (value.type_index() == TypeIndex::kTVMFFINone) return detail::VisitContinueRaw();
    if constexpr (order == WalkOrder::kPreOrder) {
      Expected<WalkResult> r = Dispatch(value);
      TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN_WITH_ERROR_CONTEXT(r, value);
      if (r.type_index() == TypeIndex::kTVMFFIInt &&
          detail::ExpectedUnsafe::ValueAs<int32_t>(r) == WalkResult::kSkipTag) {
        return detail::VisitContinueRaw();
      }
    }
    TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN_WITH_ERROR_CONTEXT(Parent::DefaultVisitExpected(value),
                                                          value);
    if constexpr (order == WalkOrder::kPostOrder) {
      TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN_WITH_ERROR_CONTEXT(Dispatch(value), value);
    }
    return detail::VisitContinueRaw();
  }

  /*! \brief The first matching callback's answer; Advance() when none matches. */
  Expected<WalkResult> Dispatch(AnyView value) noexcept {
    try {
      std::optional<Expected<WalkResult>> result;
      std::apply(
          [&](auto&... callback) { (void)(... || (result = TryOne(callback, value)).has_value()); },
          callbacks_);
      if (result.has_value()) return *std::move(result);
      return WalkResult::Advance();
    } catch (const Error& err) {
      return Unexpected(err);
    } catch (const std::bad_alloc&) {
      return Unexpected(Error("MemoryError", "StructuralWalk: out of memory", ""));
    }
  }

  template <typename Callback>
  std::optional<Expected<WalkResult>> TryOne(Callback& callback, AnyView value) {
    using Args = detail::WalkCallbackArgs<std::decay_t<Callback>>;
    constexpr size_t kNumStates = std::tuple_size_v<StateTupleType>;
    static_assert(Args::kNumArgs == 1 + kNumStates || Args::kNumArgs == 2 + kNumStates,
                  "StructuralWalkEngine callbacks take (value, the layer's state..., "
                  "optionally TVMFFIDefRegionKind)");
    using T = typename Args::First;
    if constexpr (std::is_same_v<T, AnyView>) {
      return Invoke<Args::kNumArgs>(callback, value);
    } else if constexpr (std::is_same_v<T, Any>) {
      return Invoke<Args::kNumArgs>(callback, Any(value));
    } else {
      if (std::optional<T> v = value.as<T>()) {
        return Invoke<Args::kNumArgs>(callback, *std::move(v));
      }
      return std::nullopt;
    }
  }

  template <size_t kNumArgs, typename Callback, typename Value>
  Expected<WalkResult> Invoke(Callback& callback, Value&& value) {
    return InvokeWithStates<kNumArgs>(
        callback, std::forward<Value>(value),
        std::make_index_sequence<std::tuple_size_v<StateTupleType>>{});
  }

  template <size_t kNumArgs, typename Callback, typename Value, size_t... Is>
  Expected<WalkResult> InvokeWithStates(Callback& callback, Value&& value,
                                        std::index_sequence<Is...>) {
    StateTupleType states = Parent::StateTuple();
    if constexpr (kNumArgs == 1 + sizeof...(Is)) {
      return callback(std::forward<Value>(value), std::get<Is>(states)...);
    } else {
      return callback(std::forward<Value>(value), std::get<Is>(states)...,
                      Parent::def_region_kind());
    }
  }

  std::tuple<Callbacks...> callbacks_;
};

/*!
 * \brief A visitor whose callbacks replace the standard visit of the values
 *        they match: each takes (value, Parent::VisitorObjType*) and returns
 *        Expected<Optional<VisitInterrupt>> (or Optional<VisitInterrupt>),
 *        visiting the children it wants through the visitor; the first whose
 *        value type matches runs, and a value none matches gets the Parent
 *        layer's DefaultVisitExpected.
 */
template <typename Parent, typename... Callbacks>
class StructuralVisitEngine : public Parent {
 public:
  static_assert(std::is_base_of_v<StructuralVisitorObj, Parent>,
                "StructuralVisitEngine: Parent must derive from StructuralVisitorObj");

  /*! \param callbacks Tried in this order on each value. */
  explicit StructuralVisitEngine(Callbacks... callbacks)
      : Parent(VTable()), callbacks_(std::move(callbacks)...) {}

 private:
  using Result = Expected<Optional<VisitInterrupt>>;

  static const StructuralVisitorVTable* VTable() {
    static const StructuralVisitorVTable vtable{&StructuralVisitEngine::Trampoline};
    return &vtable;
  }
  static TVMFFIAny Trampoline(StructuralVisitorObj* self, AnyView value) noexcept {
    return static_cast<StructuralVisitEngine*>(self)->VisitOne(value);
  }

  TVMFFIAny VisitOne(AnyView value) noexcept {
    if (value.type_index() == TypeIndex::kTVMFFINone) return detail::VisitContinueRaw();
    Result result = Optional<VisitInterrupt>(std::nullopt);
    bool matched = false;
    try {
      matched = std::apply(
          [&](auto&... callback) { return (... || TryOne(callback, value, &result)); }, callbacks_);
    } catch (const Error& err) {
      result = Unexpected(err);
      matched = true;
    } catch (const std::bad_alloc&) {
      result = Unexpected(Error("MemoryError", "StructuralVisit: out of memory", ""));
      matched = true;
    }
    if (!matched) result = Parent::DefaultVisitExpected(value);
    detail::UpdateVisitErrorContextNoThrow(result, value);
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(std::move(result));
  }

  template <typename Callback>
  bool TryOne(Callback& callback, AnyView value, Result* out) {
    using Args = detail::WalkCallbackArgs<std::decay_t<Callback>>;
    static_assert(Args::kNumArgs == 2, "StructuralVisitEngine callbacks take (value, visitor)");
    using VisitorArg = std::decay_t<std::tuple_element_t<1, typename Args::All>>;
    using VisitorObj = typename Parent::VisitorObjType;
    static_assert(std::is_pointer_v<VisitorArg> &&
                      std::is_base_of_v<std::remove_pointer_t<VisitorArg>, VisitorObj>,
                  "StructuralVisitEngine: a callback's second argument must be a pointer to "
                  "Parent::VisitorObjType (or a base of it)");
    VisitorObj* self = this;
    using T = typename Args::First;
    if constexpr (std::is_same_v<T, AnyView>) {
      *out = Result(callback(value, self));
      return true;
    } else if constexpr (std::is_same_v<T, Any>) {
      *out = Result(callback(Any(value), self));
      return true;
    } else {
      if (std::optional<T> v = value.as<T>()) {
        *out = Result(callback(*std::move(v), self));
        return true;
      }
      return false;
    }
  }

  std::tuple<Callbacks...> callbacks_;
};

/*!
 * \brief Visit `root` with typed callbacks (see StructuralVisitEngine): each
 *        matched value is the callback's to descend into.
 * \return None when the visit completed, the interrupt a callback returned, or
 *         the Error a callback or a visit raised.
 */
template <typename... Callbacks>
Expected<Optional<VisitInterrupt>> StructuralVisitExpected(AnyView root,
                                                           Callbacks&&... callbacks) noexcept {
  static_assert(sizeof...(Callbacks) != 0, "StructuralVisit needs at least one callback");
  try {
    using Engine = StructuralVisitEngine<StructuralVisitorObj, std::decay_t<Callbacks>...>;
    StructuralVisitor visitor(make_object<Engine>(std::forward<Callbacks>(callbacks)...));
    return visitor->VisitExpected(root);
  } catch (const Error& err) {
    return Unexpected(err);
  } catch (const std::bad_alloc&) {
    return Unexpected(Error("MemoryError", "StructuralVisit: out of memory", ""));
  }
}

/*!
 * \brief StructuralVisitExpected that throws the error.
 * \return None when the visit completed, or the interrupt a callback returned.
 */
template <typename... Callbacks>
Optional<VisitInterrupt> StructuralVisit(AnyView root, Callbacks&&... callbacks) {
  return StructuralVisitExpected(root, std::forward<Callbacks>(callbacks)...).value();
}

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_
