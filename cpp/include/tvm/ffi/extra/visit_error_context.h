/*
 * tvmffi C++ layer: where in a tree an error happened, recorded while a
 * recursive visit unwinds (upstream's extra/visit_error_context.h).
 *
 *   void Check(const ObjectRef& node) {
 *     TVM_FFI_VISIT_BEGIN();
 *     if (auto pair = node.as<Pair>()) {
 *       if (!Valid(pair.value()->lhs)) {
 *         TVM_FFI_VISIT_THROW(ValueError, pair.value()->lhs) << "invalid lhs";
 *       }
 *       Check(pair.value()->rhs);
 *     }
 *     TVM_FFI_VISIT_END(node);
 *   }
 *
 *   try {
 *     Check(root);
 *   } catch (const Error& err) {
 *     if (auto ctx = VisitErrorContext::TryGetFromError(err)) {
 *       Array<reflection::AccessPath> where = VisitErrorContext::FindAccessPaths(root, *ctx);
 *       // e.g. [<root>.rhs.lhs]
 *     }
 *   }
 *
 * Each TVM_FFI_VISIT_END(node) that an Error passes through appends `node`
 * to the VisitErrorContext in the error's extra_context (made on the first
 * frame; an extra_context that was there before is kept in
 * prev_error_context). The list is innermost first: the node that failed,
 * then its ancestors up to the root. TVM_FFI_VISIT_THROW(kind, node) throws a
 * new error whose list already starts with `node` (useful when the bad spot
 * is a child that has no visit frame of its own).
 *
 * FindAccessPaths turns that list back into positions: it walks `root`
 * (reflected fields, Array/List items, Map/Dict values) and reports every
 * access path along which the recorded nodes appear in order, root side
 * first; nodes in between that were not recorded may be skipped. Undefined
 * entries are ignored and repeated neighbours count once (a VISIT_THROW and
 * the VISIT_END of the same node). With allow_prefix_match, a walk that
 * matched part of the list but not its innermost node reports the path of
 * the deepest node it matched. The matching is done by libtvmffi's global
 * `ffi.VisitErrorContext.FindAccessPaths` (upstream's name), which also
 * registers the type `ffi.VisitErrorContext` and its two fields.
 *
 * StructuralWalk (extra/structural_visit.h) records its errors the same way.
 * Opt-in: only extra/structural_visit.h includes this header.
 */
#ifndef TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
#define TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>

#include <optional>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief The payload that visits put in Error::extra_context (see the top of this file). */
class VisitErrorContextObj : public Object {
 public:
  /*! \brief The visited nodes, innermost (where the error was raised) first, root last. */
  List<ObjectRef> reverse_visit_pattern;
  /*! \brief The error's extra_context from before the first visit frame, if any. */
  Optional<ObjectRef> prev_error_context;

  // Mutable: each visit frame appends to the list in place.
  static constexpr bool _type_mutable = true;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.VisitErrorContext", VisitErrorContextObj, Object);
};

/*! \brief Reference to a VisitErrorContextObj (never null). */
class VisitErrorContext : public ObjectRef {
 public:
  /*! \return The VisitErrorContext in err's extra_context, or nullopt if there is none. */
  static Optional<VisitErrorContext> TryGetFromError(const Error& err) {
    std::optional<ObjectRef> extra = err.extra_context();
    if (!extra.has_value()) return std::nullopt;
    return extra->as<VisitErrorContext>();
  }

  /*!
   * \brief The access paths from `root` along which the recorded nodes of
   *        `visit_context` appear in order (see the top of this file).
   * \param allow_prefix_match Also report, for a walk that matched only the
   *        outer part of the list, the path to the deepest node it matched.
   * \return The paths found (empty when the list is empty or not found).
   */
  // Hidden: the same mangled name as upstream's out-of-line member, which a
  // copy exported from a library would interpose.
  TVM_FFI_HIDDEN static Array<reflection::AccessPath> FindAccessPaths(
      const ObjectRef& root, const VisitErrorContext& visit_context,
      bool allow_prefix_match = false) {
    return TVM_FFI_RUNTIME_GLOBAL_("ffi.VisitErrorContext.FindAccessPaths")(root, visit_context,
                                                                            allow_prefix_match)
        .cast<Array<reflection::AccessPath>>();
  }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(VisitErrorContext, ObjectRef, VisitErrorContextObj);
};

namespace detail {

/*! \brief A fresh context whose list holds `node` alone (TVM_FFI_VISIT_THROW's). */
TVM_FFI_COLD_CODE inline VisitErrorContext MakeVisitErrorContext(const ObjectRef& node) {
  ObjectPtr<VisitErrorContextObj> ctx = make_object<VisitErrorContextObj>();
  ctx->reverse_visit_pattern.push_back(node);
  return VisitErrorContext(std::move(ctx));
}

/*!
 * \brief Replace the extra_context of `err` in place. Only for an error that
 *        this thread alone holds: one being made, or one unwinding.
 */
TVM_FFI_COLD_CODE inline void ResetErrorExtraContext(Error& err, ObjectRef context) {  // NOLINT(*)
  auto* cell = static_cast<ErrorObj*>(ObjectUnsafe::RawObjectPtrFromObjectRef(err));
  TVMFFIObjectHandle old = cell->extra_context;
  cell->extra_context = ObjectUnsafe::MoveObjectRefToTVMFFIObjectPtr(std::move(context));
  if (old != nullptr) ObjectUnsafe::DecRefObjectHandle(old);
}

/*!
 * \brief The work of TVM_FFI_VISIT_END: append `node` to the error's
 *        VisitErrorContext, making one (and keeping a previous extra_context
 *        in prev_error_context) on the first frame. The error is changed in
 *        place, so that `throw;` rethrows it with the new entry.
 */
TVM_FFI_COLD_CODE inline void UpdateVisitErrorContext(Error& err,  // NOLINT(*)
                                                      const ObjectRef& node) {
  std::optional<ObjectRef> extra = err.extra_context();
  if (extra.has_value()) {
    if (Optional<VisitErrorContext> ctx = extra->as<VisitErrorContext>()) {
      ctx.value()->reverse_visit_pattern.push_back(node);
      return;
    }
  }
  VisitErrorContext ctx = MakeVisitErrorContext(node);
  if (extra.has_value()) ctx->prev_error_context = *extra;
  ResetErrorExtraContext(err, std::move(ctx));
}

/*! \brief As above for any value; only an object is recorded. */
TVM_FFI_COLD_CODE inline void UpdateVisitErrorContext(Error& err, AnyView node) {  // NOLINT(*)
  if (node.type_index() < TypeIndex::kTVMFFIStaticObjectBegin) return;
  UpdateVisitErrorContext(err, node.cast<ObjectRef>());
}

/*!
 * \brief As UpdateVisitErrorContext, for the error a failed Expected holds
 *        (shared with it, so the Expected sees the entry); nothing for a
 *        success or a non-object node. Never throws: out of memory only loses
 *        the entry (for visits that must not throw, e.g. StructuralWalk's).
 */
template <typename T>
inline void UpdateVisitErrorContextNoThrow(const Expected<T>& result, AnyView node) noexcept {
  if (!result.is_err() || node.type_index() < TypeIndex::kTVMFFIStaticObjectBegin) return;
  try {
    Error err = result.error();
    UpdateVisitErrorContext(err, node.cast<ObjectRef>());
  } catch (...) {
  }
}

/*! \brief A TVM_FFI_VISIT_THROW in progress: a throw site and the node to record. */
struct VisitErrorThrowSite : public ErrorThrowSite {
  VisitErrorThrowSite(const char* kind_name, const TVMFFIByteArray* backtrace, ObjectRef at)
      : ErrorThrowSite(kind_name, backtrace), node(std::move(at)) {}
  ObjectRef node;
};

/*! \brief `site && stream` of TVM_FFI_VISIT_THROW: the error, its context seeded with the node. */
TVM_FFI_COLD_CODE inline Error operator&&(const VisitErrorThrowSite& site,
                                          ErrorMessageStream& message) {
  Error err = MakeErrorFromSite(site, message.str());
  ResetErrorExtraContext(err, MakeVisitErrorContext(site.node));
  return err;
}

}  // namespace detail
}  // namespace ffi
}  // namespace tvm

/*!
 * \brief Open a visit frame; close it with TVM_FFI_VISIT_END(node) (a
 *        `try {` that the END macro closes, so a missing END does not compile).
 */
#define TVM_FFI_VISIT_BEGIN() try {
/*!
 * \brief Close a visit frame: an Error leaving it gets `node` appended to its
 *        VisitErrorContext and goes on (rethrown).
 */
#define TVM_FFI_VISIT_END(node)                                              \
  }                                                                          \
  catch (::tvm::ffi::Error & tvm_ffi_visit_err_) {                           \
    ::tvm::ffi::detail::UpdateVisitErrorContext(tvm_ffi_visit_err_, (node)); \
    throw;                                                                   \
  }
/*!
 * \brief Close a visit frame in a function returning Expected<T>: an Error
 *        leaving it gets `node` appended (when it is an object) and is
 *        returned as Unexpected.
 */
#define TVM_FFI_VISIT_END_RETURN_EXPECTED(node)                              \
  }                                                                          \
  catch (::tvm::ffi::Error & tvm_ffi_visit_err_) {                           \
    ::tvm::ffi::detail::UpdateVisitErrorContext(tvm_ffi_visit_err_, (node)); \
    return ::tvm::ffi::Unexpected(tvm_ffi_visit_err_);                       \
  }
/*!
 * \brief Throw an Error of ErrorKind whose VisitErrorContext starts with
 *        `node`; stream the message as with TVM_FFI_THROW:
 *        `TVM_FFI_VISIT_THROW(ValueError, pair->lhs) << "invalid lhs";`
 */
#define TVM_FFI_VISIT_THROW(ErrorKind, node)                                                 \
  throw ::tvm::ffi::detail::VisitErrorThrowSite(#ErrorKind, TVM_FFI_THROW_SITE_BACKTRACE_(), \
                                                ::tvm::ffi::ObjectRef(node)) &&              \
      ::tvm::ffi::detail::ThrowMessageStream()

#endif  // TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
