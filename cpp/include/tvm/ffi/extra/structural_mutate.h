/*
 * tvmffi C++ layer: structural mutation, upstream's extra/structural_mutate.h.
 *
 * A StructuralMutator rewrites a value the way structural equality sees it
 * (the same children as StructuralVisitor: reflected fields without
 * SEqHashIgnore, Array/List items, Map/Dict values) and returns either a
 * replacement or the marker Unchanged (type index kTVMFFIUnchanged: "keep the
 * original"). Copy-on-write: a node is copied (its type's
 * `__ffi_shallow_copy__`) only when a child changed; with InplaceMode::kAllow
 * a uniquely owned node may be changed in place instead.
 *
 *   // every int in `root` plus one; shared parts of `root` are left as they are
 *   Any out = StructuralMap<WalkOrder::kPostOrder>(
 *       root, [](int64_t x) -> Expected<Any> { return Any(x + 1); });
 *
 * Entry points:
 *  - StructuralMap<order>(root, callbacks...): each callback takes a value of
 *    one type (plus the engine's state and, optionally, the def region kind)
 *    and returns a replacement, Unchanged or an error; pre-order callbacks run
 *    before the children are mapped (and the children of what they return
 *    are mapped), post-order ones after, on what descent produced.
 *  - StructuralMutate(root, callbacks...): each callback takes (value,
 *    mutator[, inplace_mode]) and owns the mutation of the values it matches
 *    (it calls mutator->MutateExpected on the children it wants mapped).
 *  - A type customises its mutation with the type attributes
 *    type_attr::kStructuralMutate / kStructuralMaybeInplaceMutate: a native
 *    hook `Expected<UnchangedOr<Any>>(StructuralMutatorObj*, AnyView) noexcept`
 *    (refl::TypeAttrDef<T>().native_fn_attr<&Hook>(...)) or an ffi.Function.
 *
 * Variables: a type of kind kTVMFFISEqHashKindFreeVar or DAGNode is mapped
 * once per walk; later uses get the same result (the mutator's var remap).
 * Errors travel as the Error of an Expected (with a VisitErrorContext naming
 * the nodes passed, innermost first), never as exceptions across hooks.
 *
 * The runtime registers the container hooks and the ffi.StructuralMutator* /
 * ffi.StructuralMap / ffi.StructuralMutate globals (runtime/structural_mutate.cc).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_
#define TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/details/stack_guard.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/structural_visit.h>
#include <tvm/ffi/extra/unchanged_or.h>
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/native_function.h>

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace tvm {
namespace ffi {

/*!
 * \brief Whether a mutation may change the value in place (when it is
 *        uniquely owned). 0 and 1 as integers (Python's InplaceMode).
 */
enum class InplaceMode : int32_t {
  kDisallow = 0,
  kAllow = 1,
};

class StructuralMutatorObj;
template <typename T>
class UnchangedOr;

/*!
 * \brief The C-callable form of a mutation (a vtable entry, a hook stored as
 *        an opaque pointer): the raw storage of an Expected<UnchangedOr<Any>>
 *        (a replacement, the Unchanged marker, or an Error), owned by the caller.
 */
using FStructuralMutateABI = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView value) noexcept;
/*! \brief The var remap lookup: the mapped value (owned), None when unmapped, or an Error. */
using FStructuralVarRemapGet = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView var) noexcept;
/*! \brief The var remap insertion: None, or an Error. */
using FStructuralVarRemapSet = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView var,
                                             AnyView mapped_value) noexcept;

/*! \brief A mutator's dispatch table (must outlive the mutator). */
struct StructuralMutatorVTable {
  /*! \brief Mutate without changing the source. */
  FStructuralMutateABI mutate = nullptr;
  /*! \brief Mutate; a uniquely owned value may be changed in place (and returned). */
  FStructuralMutateABI maybe_inplace_mutate = nullptr;
  FStructuralVarRemapGet var_remap_get = nullptr;
  FStructuralVarRemapSet var_remap_set = nullptr;
};

namespace detail {

/*! \brief TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN's error: the result is not of the declared type. */
TVM_FFI_COLD_CODE inline Unexpected<Error> SMutateDeclaredTypeError() noexcept {
  return Unexpected(
      Error("TypeError", "structural mutate result does not match the declared type", ""));
}

inline Expected<Any> MutateReflectedFieldsExpected(StructuralMutatorObj* mutator,
                                                   AnyView value) noexcept;

/*! \brief Name `node` (when an object) in the context of the raw Error `*raw`. */
TVM_FFI_COLD_CODE inline void UpdateVisitErrorContextRaw(TVMFFIAny* raw, AnyView node) noexcept {
  Expected<Any> failed = ExpectedUnsafe::MoveFromTVMFFIAny<Any>(*raw);
  UpdateVisitErrorContextNoThrow(failed, node);
  *raw = ExpectedUnsafe::MoveToTVMFFIAny(std::move(failed));
}
}  // namespace detail

/*! \brief A type's mutation hook: (mutator, value) -> replacement | Unchanged | Error. */
using FStructuralMutate =
    reflection::NativeFunctionView<UnchangedOr<Any>(StructuralMutatorObj*, AnyView)>;

namespace type_attr {
/*! \brief A type's copy-on-write mutation (what a mutator does with its values). */
inline constexpr reflection::AttrKey<FStructuralMutate> kStructuralMutate{"__s_mutate__"};
/*!
 * \brief A type's mutation of a uniquely owned value, which it may change in
 *        place (returning it); without one, kStructuralMutate is used.
 */
inline constexpr reflection::AttrKey<FStructuralMutate> kStructuralMaybeInplaceMutate{
    "__s_maybe_inplace_mutate__"};
}  // namespace type_attr

/*!
 * \brief One mutation in progress: its dispatch table, var remap and the def
 *        region it stands in. Reference counted to cross the ABI; one
 *        mutator serves one traversal at a time (not thread-safe).
 */
class StructuralMutatorObj : public Object {
 public:
  /*! \brief The mutator type callbacks of a StructuralMutateEngine receive. */
  using MutatorObjType = StructuralMutatorObj;

  /*! \return MutateExpected's result; throws its error. */
  UnchangedOr<Any> Mutate(AnyView value, InplaceMode inplace_mode = InplaceMode::kDisallow) {
    return MutateExpected(value, inplace_mode).value();
  }

  /*!
   * \brief Mutate `value` through the vtable; with kAllow and a uniquely
   *        owned object, the in-place entry. Never throws.
   */
  Expected<UnchangedOr<Any>> MutateExpected(
      AnyView value, InplaceMode inplace_mode = InplaceMode::kDisallow) noexcept {
    if (TVM_FFI_PREDICT_FALSE(detail::stack::NearlyExhausted(detail::kWalkerStackReserve))) {
      return TooDeep();
    }
    // Uniqueness is read on the borrowed view, before a callback takes a reference.
    const bool unique = value.type_index() >= TypeIndex::kTVMFFIStaticObjectBegin &&
                        detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck(value)->unique();
    FStructuralMutateABI fn = inplace_mode == InplaceMode::kAllow && unique
                                  ? vtable_->maybe_inplace_mutate
                                  : vtable_->mutate;
    return detail::ExpectedUnsafe::MoveFromTVMFFIAny<UnchangedOr<Any>>((*fn)(this, value));
  }

  /*!
   * \brief The standard mutation of `value` (what happens when no callback
   *        takes it): its type's hook, else its reflected fields, copy-on-write;
   *        POD values are kept.
   */
  Expected<UnchangedOr<Any>> DefaultMutateExpected(
      AnyView value, InplaceMode inplace_mode = InplaceMode::kDisallow) noexcept {
    return detail::ExpectedUnsafe::MoveFromTVMFFIAny<UnchangedOr<Any>>(
        inplace_mode == InplaceMode::kAllow ? DefaultMaybeInplaceMutateRaw(value)
                                            : DefaultMutateRaw(value));
  }

  /*! \return What `var` maps to in this walk, None when unmapped; TypeError for a non-object. */
  Expected<Any> VarRemapGetExpected(AnyView var) noexcept {
    return detail::ExpectedUnsafe::MoveFromTVMFFIAny<Any>((*vtable_->var_remap_get)(this, var));
  }
  /*! \brief Map `var` to `mapped_value` for the rest of this walk. */
  Expected<void> VarRemapSetExpected(AnyView var, AnyView mapped_value) noexcept {
    return detail::ExpectedUnsafe::MoveFromTVMFFIAny<void>(
        (*vtable_->var_remap_set)(this, var, mapped_value));
  }

  /*! \brief The def region the current value is mutated in. */
  TVMFFIDefRegionKind def_region_kind() const { return def_region_mode_; }

  /*!
   * \brief Run `callback()` in def region `kind`, restored afterwards; inside
   *        a pattern region the region stays a pattern region.
   */
  template <typename Callback>
  auto WithDefRegionKind(TVMFFIDefRegionKind kind, Callback&& callback)
      -> decltype(std::forward<Callback>(callback)()) {
    if (def_region_mode_ == kTVMFFIDefRegionKindPattern) {
      return std::forward<Callback>(callback)();
    }
    struct Restore {
      StructuralMutatorObj* self;
      TVMFFIDefRegionKind saved;
      ~Restore() { self->def_region_mode_ = saved; }
    } restore{this, def_region_mode_};
    def_region_mode_ = kind;
    return std::forward<Callback>(callback)();
  }

  static constexpr const bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.StructuralMutator", StructuralMutatorObj, Object);

 protected:
  /*! \param vtable Must not be null and must outlive the mutator. */
  explicit StructuralMutatorObj(const StructuralMutatorVTable* vtable) : vtable_(vtable) {}

  /*! \brief DefaultMutateExpected(value, kDisallow) as raw storage. */
  TVMFFIAny DefaultMutateRaw(AnyView value) noexcept {
    static const reflection::TypeAttrColumn column(type_attr::kStructuralMutate);
    AnyView attr = column[value.type_index()];
    TVMFFIAny result = attr.type_index() == TypeIndex::kTVMFFINone ? DefaultMutateWithoutHook(value)
                                                                   : CallHook(attr, value);
    if (TVM_FFI_PREDICT_FALSE(result.type_index == TypeIndex::kTVMFFIError)) {
      detail::UpdateVisitErrorContextRaw(&result, value);
    }
    return result;
  }

  /*! \brief DefaultMutateExpected(value, kAllow) as raw storage. */
  TVMFFIAny DefaultMaybeInplaceMutateRaw(AnyView value) noexcept {
    static const reflection::TypeAttrColumn column(type_attr::kStructuralMaybeInplaceMutate);
    AnyView attr = column[value.type_index()];
    if (attr.type_index() == TypeIndex::kTVMFFINone) return DefaultMutateRaw(value);
    TVMFFIAny result = CallHook(attr, value);
    if (TVM_FFI_PREDICT_FALSE(result.type_index == TypeIndex::kTVMFFIError)) {
      detail::UpdateVisitErrorContextRaw(&result, value);
    }
    return result;
  }

  const StructuralMutatorVTable* vtable_ = nullptr;
  TVMFFIDefRegionKind def_region_mode_ = kTVMFFIDefRegionKindNone;

 private:
  TVM_FFI_COLD_CODE static Expected<UnchangedOr<Any>> TooDeep() noexcept {
    return Unexpected(Error("ValueError",
                            "StructuralMutator: the value is nested too deeply for this "
                            "thread's stack (a cycle, or a chain thousands of levels deep)",
                            ""));
  }

  // A hook: an opaque pointer to an FStructuralMutateABI, or a Function (mutator, value).
  TVMFFIAny CallHook(AnyView attr, AnyView value) noexcept {
    switch (attr.type_index()) {
      case TypeIndex::kTVMFFIOpaquePtr:
        return (*reinterpret_cast<FStructuralMutateABI>(
            detail::AnyUnsafe::TVMFFIAnyPtrFromAnyView(attr)->v_ptr))(this, value);
      case TypeIndex::kTVMFFIFunction:
        return detail::ExpectedUnsafe::MoveToTVMFFIAny(
            attr.cast<Function>().CallExpected<Any>(this, value));
      default:
        return detail::ExpectedUnsafe::MoveToTVMFFIAny(Expected<Any>(
            Error("TypeError",
                  std::string(type_attr::kStructuralMutate.name) +
                      " must be a native hook (opaque pointer) or an ffi.Function, not " +
                      attr.GetTypeKey(),
                  "")));
    }
  }

  // No hook: POD values are kept; an object has its reflected fields mutated,
  // a FreeVar / DAGNode once per walk (the var remap holds its result).
  TVMFFIAny DefaultMutateWithoutHook(AnyView value) noexcept {
    using detail::ExpectedUnsafe;
    if (value.type_index() < TypeIndex::kTVMFFIStaticObjectBegin) {
      return Unchanged().CopyToTVMFFIAny();
    }
    const TVMFFITypeMetadata* md = detail::TypeMetadataOf(TVMFFIGetTypeInfo(value.type_index()));
    const int32_t kind = md == nullptr ? kTVMFFISEqHashKindUnsupported
                                       : static_cast<int32_t>(md->structural_eq_hash_kind);
    const bool is_free_var = kind == kTVMFFISEqHashKindFreeVar;
    const bool is_dag_node = kind == kTVMFFISEqHashKindDAGNode;
    if (is_free_var || is_dag_node) {
      Expected<Any> mapped = VarRemapGetExpected(value);
      if (ExpectedUnsafe::GetData(mapped).type_index() != TypeIndex::kTVMFFINone) {
        return ExpectedUnsafe::MoveToTVMFFIAny(std::move(mapped));
      }
      // A use of an unmapped variable (outside a def region) stays as it is.
      if (is_free_var && def_region_mode_ == kTVMFFIDefRegionKindNone) {
        return Unchanged().CopyToTVMFFIAny();
      }
    }
    Expected<Any> result = detail::MutateReflectedFieldsExpected(this, value);
    if (result.is_ok() &&
        (is_dag_node || (is_free_var && (def_region_mode_ == kTVMFFIDefRegionKindPattern ||
                                         ExpectedUnsafe::GetData(result).type_index() !=
                                             TypeIndex::kTVMFFIUnchanged)))) {
      // An unchanged simple definition records nothing: its uses miss and stay.
      Expected<void> set = VarRemapSetExpected(value, ExpectedUnsafe::GetData(result));
      if (set.is_err())
        return ExpectedUnsafe::MoveToTVMFFIAny(Expected<Any>(std::move(set).error()));
    }
    return ExpectedUnsafe::MoveToTVMFFIAny(std::move(result));
  }
};

/*! \brief Reference to a StructuralMutatorObj (never null). */
class StructuralMutator : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(StructuralMutator, ObjectRef, StructuralMutatorObj);
};

namespace detail {

/*!
 * \brief Copy `value` (its `__ffi_shallow_copy__`) and mutate the copy's
 *        reflected fields (SEqHashIgnore skipped; a def field opens its
 *        region). Unchanged when no field changed (the copy is dropped).
 */
inline Expected<Any> MutateReflectedFieldsExpected(StructuralMutatorObj* mutator,
                                                   AnyView value) noexcept {
  const Object* obj = AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck<const Object>(value);
  static const reflection::TypeAttrColumn column(reflection::type_attr::kShallowCopy);
  AnyView copier = column[obj->type_index()];
  if (TVM_FFI_PREDICT_FALSE(copier.type_index() != TypeIndex::kTVMFFIFunction)) {
    return Unexpected(Error("TypeError",
                            "cannot structurally mutate `" + value.GetTypeKey() +
                                "`: its type has no " + reflection::type_attr::kShallowCopy +
                                " (an ffi.Function)",
                            ""));
  }
  Expected<Any> result = copier.cast<Function>().CallExpected<Any>(value);
  if (result.is_err()) return result;
  const Any& copy = ExpectedUnsafe::GetData(result);
  // Copy-on-write needs a distinct target, so that a partial update leaves the source whole.
  if (TVM_FFI_PREDICT_FALSE(copy.type_index() != value.type_index() ||
                            AnyUnsafe::ObjectPtrFromAnyAfterCheck(copy) == obj)) {
    return Unexpected(Error("TypeError",
                            "the shallow copy of `" + value.GetTypeKey() +
                                "` must return a distinct object of the same type",
                            ""));
  }
  Object* target = AnyUnsafe::ObjectPtrFromAnyAfterCheck(copy);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(target->type_index());
  bool changed = false;
  auto mutate_fields = [&] {
    reflection::ForEachFieldInfoWithEarlyStop(info, [&](const TVMFFIFieldInfo* field) -> bool {
      if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return false;
      void* addr = reinterpret_cast<char*>(target) + field->offset;
      TVMFFIAny raw{};
      if (TVM_FFI_PREDICT_FALSE(field->getter(addr, &raw) != 0)) {
        result = Unexpected(MoveFromSafeCallRaised());
        return true;
      }
      Any field_value = AnyUnsafe::MoveTVMFFIAnyToAny(&raw);
      auto mutate = [&] { return mutator->MutateExpected(field_value, InplaceMode::kDisallow); };
      Expected<UnchangedOr<Any>> mutated =
          (field->flags & kTVMFFIFieldFlagBitMaskSEqHashDefSimple)
              ? mutator->WithDefRegionKind(kTVMFFIDefRegionKindSimple, mutate)
          : (field->flags & kTVMFFIFieldFlagBitMaskSEqHashDefPattern)
              ? mutator->WithDefRegionKind(kTVMFFIDefRegionKindPattern, mutate)
              : mutate();
      if (mutated.is_err()) {
        result = Unexpected(std::move(mutated).error());
        return true;
      }
      const Any& new_value = ExpectedUnsafe::GetData(mutated);
      if (new_value.type_index() == TypeIndex::kTVMFFIUnchanged || field_value.same_as(new_value)) {
        return false;
      }
      if (TVM_FFI_PREDICT_FALSE(field->setter == nullptr)) {
        result = Unexpected(Error("TypeError",
                                  "cannot structurally mutate field `" +
                                      std::string(field->name.data, field->name.size) + "` of `" +
                                      std::string(info->type_key.data, info->type_key.size) +
                                      "`: it has no setter",
                                  ""));
        return true;
      }
      if (reflection::CallFieldSetter(field, addr, AnyUnsafe::TVMFFIAnyPtrFromAny(new_value)) !=
          0) {
        result = Unexpected(MoveFromSafeCallRaised());
        return true;
      }
      changed = true;
      return false;
    });
  };
  // A simple definition binds the free variable itself; its own fields are uses.
  const TVMFFITypeMetadata* md = TypeMetadataOf(info);
  if (mutator->def_region_kind() == kTVMFFIDefRegionKindSimple && md != nullptr &&
      md->structural_eq_hash_kind == kTVMFFISEqHashKindFreeVar) {
    mutator->WithDefRegionKind(kTVMFFIDefRegionKindNone, mutate_fields);
  } else {
    mutate_fields();
  }
  if (result.is_err() || changed) return result;
  return Any(Unchanged());
}

}  // namespace detail

/*!
 * \brief In a function returning Expected: return the error of `Result` (an
 *        Expected) if it holds one.
 */
#define TVM_FFI_S_MUTATE_MAYBE_EARLY_RETURN(Result)                              \
  do {                                                                           \
    auto&& tvm_ffi_s_mutate_res_ = (Result);                                     \
    if (TVM_FFI_PREDICT_FALSE(tvm_ffi_s_mutate_res_.is_err())) {                 \
      return ::tvm::ffi::Unexpected(::std::move(tvm_ffi_s_mutate_res_).error()); \
    }                                                                            \
  } while (0)

#define TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(Result, Type, Name, ResultExpr, kChecked)     \
  auto Result = (ResultExpr); /* NOLINT(bugprone-macro-parentheses) */                        \
  TVM_FFI_S_MUTATE_MAYBE_EARLY_RETURN(Result);                                                \
  if constexpr (kChecked &&                                                                   \
                !::tvm::ffi::type_subsumes_v<::tvm::ffi::Expected<Type>, decltype(Result)>) { \
    if (TVM_FFI_PREDICT_FALSE(!::tvm::ffi::detail::AnyUnsafe::CheckAnyStrict<Type>(           \
            ::tvm::ffi::detail::ExpectedUnsafe::GetData(Result)))) {                          \
      return ::tvm::ffi::detail::SMutateDeclaredTypeError();                                  \
    }                                                                                         \
  }                                                                                           \
  Type Name = /* NOLINT(bugprone-macro-parentheses) */                                        \
      ::tvm::ffi::detail::AnyUnsafe::MoveFromAnyAfterCheck<Type>(                             \
          ::std::move(::tvm::ffi::detail::ExpectedUnsafe::GetData(Result)))

/*!
 * \brief `Type Name = <value of ResultExpr>`, in a function returning
 *        Expected: an error of ResultExpr (an Expected) is returned, and so is
 *        a TypeError when the value is not stored as a Type (no conversion;
 *        no check at all when ResultExpr's type already guarantees a Type).
 *        `TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(UnchangedOr<Expr>, a, mutator->MutateExpected(x));`
 */
#define TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(Type, Name, ResultExpr)                                  \
  TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(TVM_FFI_STR_CONCAT(tvm_ffi_mutate_result_, __COUNTER__), \
                                          Type, Name, ResultExpr, true)

/*! \brief As TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN without the type check (the caller vouches). */
#define TVM_FFI_UNSAFE_S_MUTATE_ASSIGN_OR_RETURN(Type, Name, ResultExpr)                           \
  TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(TVM_FFI_STR_CONCAT(tvm_ffi_mutate_result_, __COUNTER__), \
                                          Type, Name, ResultExpr, false)

/*!
 * \brief The base of the engines below: the var remap (keyed by object
 *        identity, for one walk) and the hooks a derived layer may replace
 *        (shadow DefaultMutateExpected; give StateTuple() extra arguments for
 *        StructuralMap callbacks, typed StateTupleType).
 */
class StructuralMapEngineBase : public StructuralMutatorObj {
 public:
  using StateTupleType = std::tuple<>;

  explicit StructuralMapEngineBase(const StructuralMutatorVTable* vtable)
      : StructuralMutatorObj(vtable) {}

 protected:
  StateTupleType StateTuple() const noexcept { return {}; }

  static TVMFFIAny DispatchVarRemapGet(StructuralMutatorObj* mutator, AnyView var) noexcept {
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(
        static_cast<StructuralMapEngineBase*>(mutator)->VarRemapGetImpl(var));
  }
  static TVMFFIAny DispatchVarRemapSet(StructuralMutatorObj* mutator, AnyView var,
                                       AnyView mapped_value) noexcept {
    return detail::ExpectedUnsafe::MoveToTVMFFIAny(
        static_cast<StructuralMapEngineBase*>(mutator)->VarRemapSetImpl(var, mapped_value));
  }

  /*! \brief Name `node` (when an object) in the error context of a failed result. */
  TVM_FFI_COLD_CODE static void UpdateVisitErrorContext(const Expected<Any>& result,
                                                        AnyView node) noexcept {
    detail::UpdateVisitErrorContextNoThrow(result, node);
  }

 private:
  TVM_FFI_COLD_CODE static Unexpected<Error> VarRemapKeyTypeError(AnyView var) noexcept {
    return Unexpected(Error(
        "TypeError", "a var remap key must be an object, not `" + var.GetTypeKey() + "`", ""));
  }

  Expected<Any> VarRemapGetImpl(AnyView var) noexcept {
    if (var.type_index() < TypeIndex::kTVMFFIStaticObjectBegin) return VarRemapKeyTypeError(var);
    auto it = var_remap_.find(detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck(var));
    if (it == var_remap_.end()) return Any(nullptr);
    return it->second.second;
  }

  Expected<void> VarRemapSetImpl(AnyView var, AnyView mapped_value) noexcept {
    if (var.type_index() < TypeIndex::kTVMFFIStaticObjectBegin) return VarRemapKeyTypeError(var);
    try {
      // The key is held, so that its address is not reused by another object during the walk.
      Object* key = detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck(var);
      auto& slot = var_remap_[key];
      if (slot.first == nullptr) slot.first = Any(var).cast<ObjectRef>();
      slot.second = Any(mapped_value);
    } catch (const Error& err) {
      return err;
    } catch (const std::bad_alloc&) {
      return Error("MemoryError", "StructuralMutator: out of memory", "");
    }
    return Expected<void>();
  }

  std::unordered_map<const Object*, std::pair<ObjectRef, Any>> var_remap_;
};

namespace detail {
/*! \brief The argument types of a callback (a lambda, functor or function pointer). */
template <typename F>
struct MutateCallbackTraits : MutateCallbackTraits<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct MutateCallbackTraits<R (C::*)(A...) const> {
  using RetType = R;
  using ArgType = std::tuple<A...>;
  static constexpr size_t num_args = sizeof...(A);
};
template <typename C, typename R, typename... A>
struct MutateCallbackTraits<R (C::*)(A...)> : MutateCallbackTraits<R (C::*)(A...) const> {};
template <typename C, typename R, typename... A>
struct MutateCallbackTraits<R (C::*)(A...) const noexcept>
    : MutateCallbackTraits<R (C::*)(A...) const> {};
template <typename C, typename R, typename... A>
struct MutateCallbackTraits<R (C::*)(A...) noexcept> : MutateCallbackTraits<R (C::*)(A...) const> {
};
template <typename R, typename... A>
struct MutateCallbackTraits<R (*)(A...)> {
  using RetType = R;
  using ArgType = std::tuple<A...>;
  static constexpr size_t num_args = sizeof...(A);
};
template <typename R, typename... A>
struct MutateCallbackTraits<R (*)(A...) noexcept> : MutateCallbackTraits<R (*)(A...)> {};
template <typename R, typename... A>
struct MutateCallbackTraits<R(A...)> : MutateCallbackTraits<R (*)(A...)> {};

/*! \brief The type a callback's first parameter selects. */
template <typename F>
using MutateCallbackSubject = remove_cvref_t<
    std::tuple_element_t<0, typename MutateCallbackTraits<std::decay_t<F>>::ArgType>>;
}  // namespace detail

/*!
 * \brief The StructuralMap engine over Parent (StructuralMapEngineBase or a
 *        layer derived from it): the first callback whose first parameter
 *        type matches a value runs, before (pre-order) or after (post-order)
 *        the standard mutation of its children; values no callback matches
 *        are mutated the standard way.
 */
template <typename Parent, WalkOrder order, typename... Callbacks>
class StructuralMapEngine : public Parent {
  static_assert(std::is_base_of_v<StructuralMapEngineBase, Parent>,
                "StructuralMapEngine: Parent must derive from StructuralMapEngineBase");

 public:
  using StateTupleType = typename Parent::StateTupleType;

  explicit StructuralMapEngine(Callbacks... callbacks)
      : Parent(VTable()), callbacks_(std::move(callbacks)...) {}

 private:
  using ExpectedUnsafe = detail::ExpectedUnsafe;

  static const StructuralMutatorVTable* VTable() {
    static const StructuralMutatorVTable vtable{
        &StructuralMapEngine::template Dispatch<InplaceMode::kDisallow>,
        &StructuralMapEngine::template Dispatch<InplaceMode::kAllow>,
        &StructuralMapEngine::DispatchVarRemapGet, &StructuralMapEngine::DispatchVarRemapSet};
    return &vtable;
  }

  template <InplaceMode kMode>
  static TVMFFIAny Dispatch(StructuralMutatorObj* mutator, AnyView value) noexcept {
    return ExpectedUnsafe::MoveToTVMFFIAny(
        static_cast<StructuralMapEngine*>(mutator)->Run<kMode>(value));
  }

  Expected<Any> Descend(AnyView value, InplaceMode mode) noexcept {
    Expected<UnchangedOr<Any>> r = this->DefaultMutateExpected(value, mode);
    return ExpectedUnsafe::MoveFromTVMFFIAny<Any>(ExpectedUnsafe::MoveToTVMFFIAny(std::move(r)));
  }

  template <InplaceMode kMode>
  Expected<Any> Run(AnyView value) noexcept {
    Expected<Any> out{Any()};
    if constexpr (order == WalkOrder::kPostOrder) {
      out = Descend(value, kMode);
      if (out.is_err()) return out;
      TryLinks<kMode>(value, &out, std::index_sequence_for<Callbacks...>{});
      return out;
    } else {
      if (TryLinks<kMode>(value, &out, std::index_sequence_for<Callbacks...>{})) return out;
      return Descend(value, kMode);
    }
  }

  template <InplaceMode kMode, size_t... Is>
  bool TryLinks(AnyView value, Expected<Any>* out, std::index_sequence<Is...>) noexcept {
    return (TryLink<kMode>(std::get<Is>(callbacks_), value, out) || ...);
  }

  // Calls `callback(value, state..., [kind])`; a thrown Error becomes the result.
  template <typename Callback, typename Value, size_t... Is>
  Expected<Any> Invoke(Callback& callback, Value&& value, std::index_sequence<Is...>) noexcept {
    using Traits = detail::MutateCallbackTraits<std::decay_t<Callback>>;
    static_assert(std::is_convertible_v<typename Traits::RetType, Expected<Any>>,
                  "StructuralMap callbacks return a replacement, Unchanged, an error or "
                  "Expected<Any>");
    static_assert(Traits::num_args == 1 + sizeof...(Is) || Traits::num_args == 2 + sizeof...(Is),
                  "StructuralMap callbacks take (value, state...) and optionally the def region "
                  "kind last");
    try {
      StateTupleType states = this->StateTuple();
      if constexpr (Traits::num_args == 1 + sizeof...(Is)) {
        return callback(std::forward<Value>(value), std::get<Is>(states)...);
      } else {
        return callback(std::forward<Value>(value), std::get<Is>(states)...,
                        this->def_region_kind());
      }
    } catch (const Error& err) {
      return Unexpected(err);
    } catch (const std::bad_alloc&) {
      return Unexpected(Error("MemoryError", "StructuralMap: out of memory", ""));
    }
  }

  // Runs `callback` on `subject` when its type matches; false when it does not.
  template <typename Callback>
  bool InvokeIfMatch(Callback& callback, AnyView subject, Expected<Any>* result) noexcept {
    using T = detail::MutateCallbackSubject<Callback>;
    using States = std::make_index_sequence<std::tuple_size_v<StateTupleType>>;
    if constexpr (std::is_same_v<T, AnyView>) {
      *result = Invoke(callback, subject, States{});
    } else if constexpr (std::is_same_v<T, Any>) {
      *result = Invoke(callback, Any(subject), States{});
    } else {
      std::optional<T> matched = subject.as<T>();
      if (!matched.has_value()) return false;
      *result = Invoke(callback, *std::move(matched), States{});
    }
    if (result->is_err()) this->UpdateVisitErrorContext(*result, subject);
    return true;
  }

  template <InplaceMode kMode, typename Callback>
  bool TryLink(Callback& callback, AnyView value, Expected<Any>* out) noexcept {
    if constexpr (order == WalkOrder::kPreOrder) {
      Expected<Any> mapped{Any()};
      if (!InvokeIfMatch(callback, value, &mapped)) return false;
      if (mapped.is_err()) {
        *out = std::move(mapped);
        return true;
      }
      // The children of what the callback made are mapped too.
      Any mapped_value = std::move(ExpectedUnsafe::GetData(mapped));
      const bool kept = mapped_value.type_index() == TypeIndex::kTVMFFIUnchanged;
      AnyView target = kept ? value : AnyView(mapped_value);
      InplaceMode mode = InplaceMode::kDisallow;
      if constexpr (kMode == InplaceMode::kAllow) {
        if (kept || target.same_as(value)) {
          mode = InplaceMode::kAllow;
        } else if (target.type_index() >= TypeIndex::kTVMFFIStaticObjectBegin &&
                   detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck(target)->unique()) {
          mode = InplaceMode::kAllow;
        }
      }
      *out = Descend(target, mode);
      if (out->is_ok() &&
          ExpectedUnsafe::GetData(*out).type_index() == TypeIndex::kTVMFFIUnchanged) {
        *out = std::move(mapped_value);  // the callback's result, or Unchanged
      }
      return true;
    } else {
      // Post-order: the callback sees what descent made (the original when unchanged).
      const Any& descended = ExpectedUnsafe::GetData(*out);
      AnyView subject =
          descended.type_index() == TypeIndex::kTVMFFIUnchanged ? value : AnyView(descended);
      Expected<Any> mapped{Any()};
      if (!InvokeIfMatch(callback, subject, &mapped)) return false;
      if (mapped.is_err() ||
          ExpectedUnsafe::GetData(mapped).type_index() != TypeIndex::kTVMFFIUnchanged) {
        *out = std::move(mapped);
      }
      return true;
    }
  }

  std::tuple<Callbacks...> callbacks_;
};

/*!
 * \brief StructuralMap with callbacks chosen at run time (ffi.StructuralMap):
 *        lists of (type_index, Function), called (value) or (value, kind).
 */
template <typename Parent, WalkOrder order>
class StructuralMapDynEngine : public Parent {
  static_assert(std::is_base_of_v<StructuralMapEngineBase, Parent>,
                "StructuralMapDynEngine: Parent must derive from StructuralMapEngineBase");

 public:
  StructuralMapDynEngine(Array<Tuple<int32_t, Function>> callbacks,
                         Array<Tuple<int32_t, Function>> callbacks_with_def_region_kind)
      : Parent(VTable()),
        callbacks_(std::move(callbacks)),
        callbacks_with_kind_(std::move(callbacks_with_def_region_kind)) {}

 private:
  using ExpectedUnsafe = detail::ExpectedUnsafe;

  static const StructuralMutatorVTable* VTable() {
    static const StructuralMutatorVTable vtable{
        &StructuralMapDynEngine::template Dispatch<InplaceMode::kDisallow>,
        &StructuralMapDynEngine::template Dispatch<InplaceMode::kAllow>,
        &StructuralMapDynEngine::DispatchVarRemapGet, &StructuralMapDynEngine::DispatchVarRemapSet};
    return &vtable;
  }

  template <InplaceMode kMode>
  static TVMFFIAny Dispatch(StructuralMutatorObj* mutator, AnyView value) noexcept {
    return ExpectedUnsafe::MoveToTVMFFIAny(
        static_cast<StructuralMapDynEngine*>(mutator)->Run<kMode>(value));
  }

  Expected<Any> Descend(AnyView value, InplaceMode mode) noexcept {
    Expected<UnchangedOr<Any>> r = this->DefaultMutateExpected(value, mode);
    return ExpectedUnsafe::MoveFromTVMFFIAny<Any>(ExpectedUnsafe::MoveToTVMFFIAny(std::move(r)));
  }

  // The first callback registered for the type of `subject`, called; false when none is.
  bool InvokeIfMatch(AnyView subject, Expected<Any>* result) noexcept {
    const int32_t type_index = subject.type_index();
    for (const Tuple<int32_t, Function>& entry : callbacks_) {
      if (detail::RuntimeTypeIndexMatch(type_index, entry.template get<0>())) {
        *result = entry.template get<1>().template CallExpected<Any>(subject);
        if (result->is_err()) this->UpdateVisitErrorContext(*result, subject);
        return true;
      }
    }
    for (const Tuple<int32_t, Function>& entry : callbacks_with_kind_) {
      if (detail::RuntimeTypeIndexMatch(type_index, entry.template get<0>())) {
        *result = entry.template get<1>().template CallExpected<Any>(
            subject, static_cast<int32_t>(this->def_region_kind()));
        if (result->is_err()) this->UpdateVisitErrorContext(*result, subject);
        return true;
      }
    }
    return false;
  }

  template <InplaceMode kMode>
  Expected<Any> Run(AnyView value) noexcept {
    if constexpr (order == WalkOrder::kPostOrder) {
      Expected<Any> out = Descend(value, kMode);
      if (out.is_err()) return out;
      const Any& descended = ExpectedUnsafe::GetData(out);
      AnyView subject =
          descended.type_index() == TypeIndex::kTVMFFIUnchanged ? value : AnyView(descended);
      Expected<Any> mapped{Any()};
      if (!InvokeIfMatch(subject, &mapped)) return out;
      if (mapped.is_err() ||
          ExpectedUnsafe::GetData(mapped).type_index() != TypeIndex::kTVMFFIUnchanged) {
        return mapped;
      }
      return out;
    } else {
      Expected<Any> mapped{Any()};
      if (!InvokeIfMatch(value, &mapped)) return Descend(value, kMode);
      if (mapped.is_err()) return mapped;
      Any mapped_value = std::move(ExpectedUnsafe::GetData(mapped));
      const bool kept = mapped_value.type_index() == TypeIndex::kTVMFFIUnchanged;
      AnyView target = kept ? value : AnyView(mapped_value);
      InplaceMode mode = InplaceMode::kDisallow;
      if constexpr (kMode == InplaceMode::kAllow) {
        if (kept || target.same_as(value) ||
            (target.type_index() >= TypeIndex::kTVMFFIStaticObjectBegin &&
             detail::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck(target)->unique())) {
          mode = InplaceMode::kAllow;
        }
      }
      Expected<Any> out = Descend(target, mode);
      if (out.is_ok() && ExpectedUnsafe::GetData(out).type_index() == TypeIndex::kTVMFFIUnchanged) {
        return mapped_value;
      }
      return out;
    }
  }

  Array<Tuple<int32_t, Function>> callbacks_;
  Array<Tuple<int32_t, Function>> callbacks_with_kind_;
};

/*!
 * \brief The StructuralMutate engine over Parent: the first callback whose
 *        first parameter type matches a value is called (value, mutator) or
 *        (value, mutator, inplace_mode) and owns that value's mutation
 *        (children included); other values are mutated the standard way.
 *        The mutator parameter is `typename Parent::MutatorObjType*`.
 */
template <typename Parent, typename... Callbacks>
class StructuralMutateEngine : public Parent {
  static_assert(std::is_base_of_v<StructuralMapEngineBase, Parent>,
                "StructuralMutateEngine: Parent must derive from StructuralMapEngineBase");

 public:
  explicit StructuralMutateEngine(Callbacks... callbacks)
      : Parent(VTable()), callbacks_(std::move(callbacks)...) {}

 private:
  using ExpectedUnsafe = detail::ExpectedUnsafe;

  static const StructuralMutatorVTable* VTable() {
    static const StructuralMutatorVTable vtable{
        &StructuralMutateEngine::template Dispatch<InplaceMode::kDisallow>,
        &StructuralMutateEngine::template Dispatch<InplaceMode::kAllow>,
        &StructuralMutateEngine::DispatchVarRemapGet, &StructuralMutateEngine::DispatchVarRemapSet};
    return &vtable;
  }

  template <InplaceMode kMode>
  static TVMFFIAny Dispatch(StructuralMutatorObj* mutator, AnyView value) noexcept {
    auto* self = static_cast<StructuralMutateEngine*>(mutator);
    Expected<Any> result{Any()};
    if (self->TryLinks(value, kMode, &result, std::index_sequence_for<Callbacks...>{})) {
      if (result.is_err()) self->UpdateVisitErrorContext(result, value);
      return ExpectedUnsafe::MoveToTVMFFIAny(std::move(result));
    }
    return ExpectedUnsafe::MoveToTVMFFIAny(self->DefaultMutateExpected(value, kMode));
  }

  template <size_t... Is>
  bool TryLinks(AnyView value, InplaceMode mode, Expected<Any>* out,
                std::index_sequence<Is...>) noexcept {
    return (TryLink(std::get<Is>(callbacks_), value, mode, out) || ...);
  }

  template <typename Callback, typename Value>
  Expected<Any> Invoke(Callback& callback, Value&& value, InplaceMode mode) noexcept {
    using Traits = detail::MutateCallbackTraits<std::decay_t<Callback>>;
    static_assert(Traits::num_args == 2 || Traits::num_args == 3,
                  "StructuralMutate callbacks take (value, mutator) or (value, mutator, "
                  "inplace_mode)");
    using MutatorArg = std::tuple_element_t<1, typename Traits::ArgType>;
    static_assert(std::is_same_v<std::remove_pointer_t<std::decay_t<MutatorArg>>,
                                 typename Parent::MutatorObjType>,
                  "the second parameter of a StructuralMutate callback must be "
                  "Parent::MutatorObjType*");
    auto* mutator = static_cast<typename Parent::MutatorObjType*>(this);
    try {
      if constexpr (Traits::num_args == 3) {
        static_assert(
            std::is_same_v<std::decay_t<std::tuple_element_t<2, typename Traits::ArgType>>,
                           InplaceMode>,
            "the third parameter of a StructuralMutate callback must be InplaceMode");
        return callback(std::forward<Value>(value), mutator, mode);
      } else {
        return callback(std::forward<Value>(value), mutator);
      }
    } catch (const Error& err) {
      return Unexpected(err);
    } catch (const std::bad_alloc&) {
      return Unexpected(Error("MemoryError", "StructuralMutate: out of memory", ""));
    }
  }

  template <typename Callback>
  bool TryLink(Callback& callback, AnyView value, InplaceMode mode, Expected<Any>* out) noexcept {
    using T = detail::MutateCallbackSubject<Callback>;
    if constexpr (std::is_same_v<T, AnyView>) {
      *out = Invoke(callback, value, mode);
    } else if constexpr (std::is_same_v<T, Any>) {
      *out = Invoke(callback, Any(value), mode);
    } else {
      std::optional<T> matched = value.as<T>();
      if (!matched.has_value()) return false;
      *out = Invoke(callback, *std::move(matched), mode);
    }
    return true;
  }

  std::tuple<Callbacks...> callbacks_;
};

namespace detail {
/*! \brief Run `mutator` over `root` (in place where unique) and resolve Unchanged to `root`. */
inline Expected<Any> RunStructuralMutator(StructuralMutator mutator, Any root) noexcept {
  Expected<UnchangedOr<Any>> result = mutator->MutateExpected(root, InplaceMode::kAllow);
  if (result.is_err()) return Unexpected(std::move(result).error());
  UnchangedOr<Any> mapped = AnyUnsafe::MoveFromAnyAfterCheck<UnchangedOr<Any>>(
      std::move(ExpectedUnsafe::GetData(result)));
  return std::move(mapped).ValueOrUnchanged(std::move(root));
}
}  // namespace detail

/*!
 * \brief Map `root` with typed callbacks (see the top of this file).
 * \param root Taken by value: pass std::move(root) to let a uniquely owned
 *        root be changed in place; a root the caller still holds is copied.
 * \return The mapped value (the root itself when nothing changed), or the error.
 */
template <WalkOrder order, typename... Callbacks>
Expected<Any> StructuralMapExpected(Any root, Callbacks&&... callbacks) noexcept {
  static_assert(sizeof...(Callbacks) != 0, "StructuralMap needs at least one callback");
  using Mutator = StructuralMapEngine<StructuralMapEngineBase, order, std::decay_t<Callbacks>...>;
  try {
    StructuralMutator mutator(make_object<Mutator>(std::forward<Callbacks>(callbacks)...));
    return detail::RunStructuralMutator(std::move(mutator), std::move(root));
  } catch (const std::bad_alloc&) {
    return Unexpected(Error("MemoryError", "StructuralMap: out of memory", ""));
  }
}

/*! \brief StructuralMapExpected that throws the error. */
template <WalkOrder order, typename... Callbacks>
Any StructuralMap(Any root, Callbacks&&... callbacks) {
  return StructuralMapExpected<order>(std::move(root), std::forward<Callbacks>(callbacks)...)
      .value();
}

/*!
 * \brief Mutate `root` with callbacks (value, mutator[, inplace_mode]) that
 *        own the mutation of the values they match (see the top of this file).
 */
template <typename... Callbacks>
Expected<Any> StructuralMutateExpected(Any root, Callbacks&&... callbacks) noexcept {
  static_assert(sizeof...(Callbacks) != 0, "StructuralMutate needs at least one callback");
  using Mutator = StructuralMutateEngine<StructuralMapEngineBase, std::decay_t<Callbacks>...>;
  try {
    StructuralMutator mutator(make_object<Mutator>(std::forward<Callbacks>(callbacks)...));
    return detail::RunStructuralMutator(std::move(mutator), std::move(root));
  } catch (const std::bad_alloc&) {
    return Unexpected(Error("MemoryError", "StructuralMutate: out of memory", ""));
  }
}

/*! \brief StructuralMutateExpected that throws the error. */
template <typename... Callbacks>
Any StructuralMutate(Any root, Callbacks&&... callbacks) {
  return StructuralMutateExpected(std::move(root), std::forward<Callbacks>(callbacks)...).value();
}

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_
