/*
 * tvmffi C++ layer: access paths, the location of a value inside a nested
 * structure (StructuralEqual::GetFirstMismatch reports two of them).
 *
 *   using namespace tvm::ffi::reflection;
 *   AccessPath p = AccessPath::Root()->Attr("body")->ArrayItem(2)->MapItem(String("k"));
 *   p->depth;                      // 3
 *   p->ToSteps();                  // [Attr "body", ArrayItem 2, MapItem "k"]
 *   p->GetParent().value()->PathEqual(AccessPath::Root()->Attr("body")->ArrayItem(2));
 *
 * A path is an immutable linked list from the leaf to the root; extending a
 * path shares its prefix. The *Missing steps say where a value is absent on
 * one side of a comparison (an index past the end, a key not in a map, a
 * field the type does not have).
 *
 * Both types are objects at upstream's type keys, "ffi.reflection.AccessStep"
 * and "ffi.reflection.AccessPath", with their indices from the runtime's type
 * registry; libtvmffi registers their fields (kind, key / parent, step, depth)
 * and methods (_root, _extend, _attr, ..., _to_steps, _path_equal) as
 * upstream does, for other languages.
 */
#ifndef TVM_FFI_REFLECTION_ACCESS_PATH_H_
#define TVM_FFI_REFLECTION_ACCESS_PATH_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/cast.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {
namespace reflection {

/*! \brief What one step of an access path reads. */
enum class AccessKind : int32_t {
  kAttr = 0,              // key: the field name (String)
  kArrayItem = 1,         // key: the index (int)
  kMapItem = 2,           // key: the map key
  kAttrMissing = 3,       // the field is absent
  kArrayItemMissing = 4,  // the index is past the end
  kMapItemMissing = 5,    // the key is not in the map
};

class AccessStep;

/*! \brief One step: a kind and its key. */
class AccessStepObj : public Object {
 public:
  AccessKind kind = AccessKind::kAttr;
  Any key;

  AccessStepObj() = default;
  AccessStepObj(AccessKind step_kind, Any step_key) : kind(step_kind), key(std::move(step_key)) {}

  /*! \brief Same kind and an equal key (AnyEqual: strings by content). */
  inline bool StepEqual(const AccessStep& other) const;

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.reflection.AccessStep", AccessStepObj, Object);
};

/*! \brief Reference to an AccessStepObj (never null). */
class AccessStep : public ObjectRef {
 public:
  AccessStep(AccessKind kind, Any key)
      : ObjectRef(make_object<AccessStepObj>(kind, std::move(key))) {}

  static AccessStep Attr(String field_name) {
    return AccessStep(AccessKind::kAttr, std::move(field_name));
  }
  static AccessStep AttrMissing(String field_name) {
    return AccessStep(AccessKind::kAttrMissing, std::move(field_name));
  }
  static AccessStep ArrayItem(int64_t index) { return AccessStep(AccessKind::kArrayItem, index); }
  static AccessStep ArrayItemMissing(int64_t index) {
    return AccessStep(AccessKind::kArrayItemMissing, index);
  }
  static AccessStep MapItem(Any key) { return AccessStep(AccessKind::kMapItem, std::move(key)); }
  static AccessStep MapItemMissing(Any key = nullptr) {
    return AccessStep(AccessKind::kMapItemMissing, std::move(key));
  }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(AccessStep, ObjectRef, AccessStepObj);
};

inline bool AccessStepObj::StepEqual(const AccessStep& other) const {
  return kind == other->kind && AnyEqual()(key, other->key);
}

class AccessPath;

/*!
 * \brief A node of a path: its parent path (None at the root), the step from
 *        the parent (None at the root) and its depth (0 at the root).
 */
class AccessPathObj : public Object {
 public:
  Optional<ObjectRef> parent;
  Optional<AccessStep> step;
  int32_t depth = 0;

  AccessPathObj() = default;
  AccessPathObj(Optional<ObjectRef> parent_path, Optional<AccessStep> last_step, int32_t n)
      : parent(std::move(parent_path)), step(std::move(last_step)), depth(n) {}
  AccessPathObj(const AccessPathObj&) = default;
  AccessPathObj& operator=(const AccessPathObj&) = default;
  /*!
   * \brief Releases the chain of parents this node alone holds in a loop, not
   *        by recursion: a path 200,000 steps long is freed with a bounded stack.
   */
  ~AccessPathObj() {
    Optional<ObjectRef> next = std::move(parent);
    while (next.has_value() && next->use_count() == 1) {
      auto* node = const_cast<AccessPathObj*>(static_cast<const AccessPathObj*>(next.get()));
      if (!node->IsInstance<AccessPathObj>()) break;
      Optional<ObjectRef> up = std::move(node->parent);
      next = std::move(up);  // frees `node`, whose parent is already taken
    }
  }

  /*! \brief The path without its last step; nullopt at the root. */
  inline Optional<AccessPath> GetParent() const;
  /*! \brief This path followed by `step`. */
  inline AccessPath Extend(AccessStep step) const;
  inline AccessPath Attr(String field_name) const;
  inline AccessPath AttrMissing(String field_name) const;
  inline AccessPath ArrayItem(int64_t index) const;
  inline AccessPath ArrayItemMissing(int64_t index) const;
  inline AccessPath MapItem(Any key) const;
  inline AccessPath MapItemMissing(Any key) const;
  /*! \brief The steps from the root to this node. */
  inline Array<AccessStep> ToSteps() const;
  /*! \brief Same steps (by StepEqual), whether or not the nodes are shared. */
  inline bool PathEqual(const AccessPath& other) const;
  /*! \brief Whether `other` starts with this path (a path is a prefix of itself). */
  inline bool IsPrefixOf(const AccessPath& other) const;

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.reflection.AccessPath", AccessPathObj, Object);

 private:
  // NULL at the root, and for a parent that is no path (a rebuilt object may hold anything).
  static const AccessPathObj* ParentOf(const AccessPathObj* node) {
    const Object* p = node->parent.get();
    if (p == nullptr || !p->IsInstance<AccessPathObj>()) return nullptr;
    return static_cast<const AccessPathObj*>(p);
  }
  static bool SameSteps(const AccessPathObj* a, const AccessPathObj* b) {
    if (a->depth != b->depth) return false;
    // Walk up together; shared prefixes end the walk early.
    // (NULL-safe: the depths of a rebuilt path need not match its chain.)
    while (a != b && a != nullptr && a->step.has_value()) {
      if (b == nullptr || !b->step.has_value() || !(*a->step)->StepEqual(*b->step)) return false;
      a = ParentOf(a);
      b = ParentOf(b);
    }
    return a == b ||
           ((a == nullptr || !a->step.has_value()) && (b == nullptr || !b->step.has_value()));
  }
};

/*! \brief Reference to an AccessPathObj (never null). */
class AccessPath : public ObjectRef {
 public:
  /*! \brief The empty path. */
  static AccessPath Root() {
    return AccessPath(make_object<AccessPathObj>(std::nullopt, std::nullopt, 0));
  }
  /*! \brief The path of the steps in [begin, end), root first. */
  template <typename Iter>
  static AccessPath FromSteps(Iter begin, Iter end) {
    AccessPath path = Root();
    for (; begin != end; ++begin) path = path->Extend(*begin);
    return path;
  }
  static AccessPath FromSteps(const Array<AccessStep>& steps) {
    return FromSteps(steps.begin(), steps.end());
  }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(AccessPath, ObjectRef, AccessPathObj);
};

/*! \brief A (lhs, rhs) pair of paths, as GetFirstMismatch returns. */
using AccessPathPair = Tuple<AccessPath, AccessPath>;

inline Optional<AccessPath> AccessPathObj::GetParent() const {
  if (!parent.has_value()) return std::nullopt;
  return ::tvm::ffi::detail::ObjectUnsafe::ObjectRefFromObjectPtr<AccessPath>(
      ::tvm::ffi::detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>(*parent));
}

inline AccessPath AccessPathObj::Extend(AccessStep next) const {
  return AccessPath(
      make_object<AccessPathObj>(GetRef<AccessPath>(this), std::move(next), depth + 1));
}
inline AccessPath AccessPathObj::Attr(String field_name) const {
  return Extend(AccessStep::Attr(std::move(field_name)));
}
inline AccessPath AccessPathObj::AttrMissing(String field_name) const {
  return Extend(AccessStep::AttrMissing(std::move(field_name)));
}
inline AccessPath AccessPathObj::ArrayItem(int64_t index) const {
  return Extend(AccessStep::ArrayItem(index));
}
inline AccessPath AccessPathObj::ArrayItemMissing(int64_t index) const {
  return Extend(AccessStep::ArrayItemMissing(index));
}
inline AccessPath AccessPathObj::MapItem(Any key) const {
  return Extend(AccessStep::MapItem(std::move(key)));
}
inline AccessPath AccessPathObj::MapItemMissing(Any key) const {
  return Extend(AccessStep::MapItemMissing(std::move(key)));
}

inline Array<AccessStep> AccessPathObj::ToSteps() const {
  if (!step.has_value()) return Array<AccessStep>();
  // The chain itself is walked, `depth` only sizes the first guess: a path
  // rebuilt field by field (reflection, a graph JSON) may say any depth.
  std::vector<AccessStep> leaf_first;
  leaf_first.reserve(depth > 0 && depth < 4096 ? static_cast<size_t>(depth) : 16);
  for (const AccessPathObj* node = this; node != nullptr && node->step.has_value();
       node = ParentOf(node)) {
    if (TVM_FFI_PREDICT_FALSE(leaf_first.size() > static_cast<size_t>(INT32_MAX))) {
      TVM_FFI_THROW(ValueError) << "AccessPath: the parent chain does not end (a cycle)";
    }
    leaf_first.push_back(*node->step);
  }
  return Array<AccessStep>(leaf_first.rbegin(), leaf_first.rend());
}

inline bool AccessPathObj::PathEqual(const AccessPath& other) const {
  return SameSteps(this, other.get());
}

inline bool AccessPathObj::IsPrefixOf(const AccessPath& other) const {
  const AccessPathObj* node = other.get();
  if (depth > node->depth) return false;
  while (node != nullptr && node->depth > depth) node = ParentOf(node);
  return node != nullptr && SameSteps(this, node);
}

}  // namespace reflection
}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_REFLECTION_ACCESS_PATH_H_
