/*
 * The runtime's reflection built-ins, written on the C++ layer:
 *
 *  - the reflection of ffi.reflection.AccessStep / ffi.reflection.AccessPath
 *    (fields and methods, for other languages), registered while loading;
 *  - structural equality and hashing, as upstream's globals:
 *      ffi.StructuralEqual(lhs, rhs, map_free_vars, skip_tensor_content) -> bool
 *      ffi.GetFirstStructuralMismatch(lhs, rhs, map_free_vars, skip_tensor_content)
 *          -> None or (lhs_path, rhs_path)
 *      ffi.StructuralHash(value, map_free_vars, skip_tensor_content) -> int
 *    which tvm/ffi/extra/structural_equal.h and structural_hash.h call;
 *  - ffi.StructuralKey(key) and ffi.StructuralKeyEqual(a, b), and the
 *    reflection of ffi.StructuralKey (extra/structural_key.h).
 *
 * Semantics (upstream's): values of different types differ, except a string
 * (bytes) in its small and heap forms; floats compare bitwise, except that
 * every NaN equals every NaN; Array/List and Map/Dict compare element-wise
 * (maps by key, after mapping free variables); Shape by extents; Tensor by
 * shape, dtype and (unless skipped) the bytes of a contiguous CPU tensor.
 * Other objects compare by the kind their type declares
 * (TVMFFITypeMetadata::structural_eq_hash_kind), field by field through
 * reflection, skipping kTVMFFIFieldFlagBitMaskSEqHashIgnore fields, or through
 * the type's `__s_equal__` / `__s_hash__` attribute:
 *   TreeNode / ConstTreeNode  by content (ConstTreeNode: same pointer is equal)
 *   UniqueInstance            by pointer
 *   DAGNode                   by content, and the pairing is remembered, so
 *                             sharing must match on both sides
 *   FreeVar                   equal only to itself, or to the variable it was
 *                             bound to; binding happens inside a
 *                             SEqHashDefRecursive field (and anything
 *                             reached from it) or a SEqHashDefNonRecursive
 *                             field (the variable itself, not its fields), or
 *                             anywhere when map_free_vars is set
 *   Unsupported / no metadata TypeError naming the type
 * Hashes agree with equality: equal values hash the same.
 *
 * Both walks take time linear in the nodes of a DAG: hashing remembers every
 * object's hash (its first visit's), equality every pair of objects found
 * equal. They recurse on the C stack and refuse a value nested deeper than
 * the thread's stack allows (ValueError), never overflowing it.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/structural_key.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "builtin_def.h"
#include "internal.h"
#include "walk_guard.h"

namespace tvm {
namespace ffi {
namespace {

using reflection::AccessPath;
using reflection::AccessPathObj;
using reflection::AccessStep;
using reflection::AccessStepObj;

// ---------------------------------------------------------------------------
// Shared by equality and hashing

const TVMFFIAny* CellOf(const Any& value) {
  return detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
}

bool IsNaN(const TVMFFIAny* cell) {
  return cell->type_index == TypeIndex::kTVMFFIFloat && std::isnan(cell->v_float64);
}

std::string_view TypeKeyOf(const TVMFFITypeInfo* info) {
  return std::string_view(info->type_key.data, info->type_key.size);
}

// The structural kind of an object's type; TypeError if it has none.
TVMFFISEqHashKind KindOf(const TVMFFITypeInfo* info, const char* op) {
  const TVMFFITypeMetadata* md = ::tvm::ffi::detail::TypeMetadataOf(info);
  if (md == nullptr || md->structural_eq_hash_kind == kTVMFFISEqHashKindUnsupported) {
    TVM_FFI_THROW(TypeError) << op << ": type `" << TypeKeyOf(info)
                             << "` does not support structural comparison (it declares no "
                                "_type_s_eq_hash_kind)";
  }
  return md->structural_eq_hash_kind;
}

// The bytes of a contiguous CPU tensor; ValueError otherwise.
std::string_view TensorBytes(const DLTensor* t, const char* op) {
  if (t->device.device_type != kDLCPU) {
    TVM_FFI_THROW(ValueError) << op << ": can only read the content of a CPU tensor (device type "
                              << static_cast<int>(t->device.device_type)
                              << "); pass skip_tensor_content=true to compare shapes only";
  }
  if (!IsContiguous(*t)) {
    TVM_FFI_THROW(ValueError) << op << ": can only read the content of a contiguous tensor";
  }
  return std::string_view(static_cast<const char*>(t->data) + t->byte_offset, GetDataSize(*t));
}

const DLTensor* DLOf(const Object* tensor) {
  return static_cast<const DLTensor*>(static_cast<const TensorObj*>(tensor));
}

using ObjectMap = std::unordered_map<ObjectRef, ObjectRef, ObjectPtrHash, ObjectPtrEqual>;

// Where a walk stands with respect to def regions (TVMFFIDefRegionKind):
// whether a free variable met now may be bound, and whether the region is
// non-recursive (it binds the variable itself but not what its fields reach).
struct DefRegion {
  bool bind = false;
  bool non_recursive = false;

  // The region a field's value is visited in: its flags open one, or the
  // current region carries on.
  DefRegion ForField(int64_t flags) const {
    if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive) return {true, true};
    if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefRecursive) return {true, false};
    return *this;
  }
  // The region the fields of a free variable are visited in: a non-recursive
  // region stops at the variable (map_free_vars binds everywhere regardless).
  DefRegion ForFreeVarFields(bool map_free_vars) const {
    return non_recursive ? DefRegion{map_free_vars, false} : *this;
  }
};

// Swaps the region for the duration of a scope.
class RegionScope {
 public:
  RegionScope(DefRegion* region, DefRegion value) : region_(region), saved_(*region) {
    *region = value;
  }
  ~RegionScope() { *region_ = saved_; }
  RegionScope(const RegionScope&) = delete;
  RegionScope& operator=(const RegionScope&) = delete;

 private:
  DefRegion* region_;
  DefRegion saved_;
};

// The field flags a custom __s_equal__ / __s_hash__ callback's def_region
// argument stands for.
int64_t DefFlag(bool def_region) {
  return def_region ? kTVMFFIFieldFlagBitMaskSEqHashDefRecursive : 0;
}

struct ObjectPairHash {
  size_t operator()(const std::pair<const Object*, const Object*>& p) const noexcept {
    return static_cast<size_t>(detail::HashMixStable(reinterpret_cast<uintptr_t>(p.first),
                                                     reinterpret_cast<uintptr_t>(p.second)));
  }
};

// A value nested deeper than the C stack allows (the walks recurse).
[[noreturn]] TVM_FFI_COLD_CODE void ThrowTooDeep(const char* op) {
  TVM_FFI_THROW(ValueError) << op
                            << ": the value is nested too deeply for this thread's stack "
                               "(a chain of containers or objects thousands of levels deep)";
  TVM_FFI_UNREACHABLE();
}

// ---------------------------------------------------------------------------
// Equality

class EqualRun {
 public:
  EqualRun(bool map_free_vars, bool skip_tensor_content, bool trace)
      : map_free_vars_(map_free_vars),
        region_{map_free_vars, false},
        skip_tensor_content_(skip_tensor_content),
        trace_(trace) {}

  bool Equal(const Any& lhs, const Any& rhs) {
    const TVMFFIAny* a = CellOf(lhs);
    const TVMFFIAny* b = CellOf(rhs);
    std::string_view sa, sb;
    int32_t ka, kb;
    if (detail::StringLikeView(a, &sa, &ka)) {
      return detail::StringLikeView(b, &sb, &kb) && ka == kb && sa == sb;
    }
    if (a->type_index != b->type_index) return false;
    // A BigInt is a value: equal numbers are equal whatever their objects.
    if (a->type_index == TypeIndex::kTVMFFIBigInt) return detail::AnyCellEqual(a, b);
    if (a->type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
      if (IsNaN(a)) return IsNaN(b);
      return a->zero_padding == b->zero_padding && a->v_uint64 == b->v_uint64;
    }
    const Object* oa = reinterpret_cast<const Object*>(a->v_obj);
    const Object* ob = reinterpret_cast<const Object*>(b->v_obj);
    // A pair found equal stays equal for the rest of the run (bindings only
    // grow, and a pair that agreed with them still does): each pair of nodes
    // is compared once, so shared nodes (a DAG) cost their number, not the
    // number of paths to them.
    const std::pair<const Object*, const Object*> key(oa, ob);
    if (equal_pairs_.count(key) != 0) return true;
    if (tvmffi::rt::StackNearlyExhausted()) ThrowTooDeep("StructuralEqual");
    bool equal;
    switch (a->type_index) {
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList:
        equal = Sequence(static_cast<const SeqBaseObj*>(oa), static_cast<const SeqBaseObj*>(ob));
        break;
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict:
        equal = Mapping(static_cast<const MapBaseObj*>(oa), static_cast<const MapBaseObj*>(ob));
        break;
      case TypeIndex::kTVMFFIShape: {
        const auto* x = static_cast<const ShapeObj*>(oa);
        const auto* y = static_cast<const ShapeObj*>(ob);
        return x->size == y->size && std::equal(x->data, x->data + x->size, y->data);
      }
      case TypeIndex::kTVMFFITensor:
        equal = Tensors(oa, ob);
        break;
      default:
        equal = Objects(lhs.cast<ObjectRef>(), rhs.cast<ObjectRef>());
        break;
    }
    // The references keep both alive, so their addresses are not reused
    // (a custom __s_equal__ may compare temporaries).
    if (equal)
      equal_pairs_.emplace(key, std::make_pair(lhs.cast<ObjectRef>(), rhs.cast<ObjectRef>()));
    return equal;
  }

  // The recorded mismatch, root first.
  AccessPath LhsPath() const {
    return AccessPath::FromSteps(lhs_steps_.rbegin(), lhs_steps_.rend());
  }
  AccessPath RhsPath() const {
    return AccessPath::FromSteps(rhs_steps_.rbegin(), rhs_steps_.rend());
  }

 private:
  // Steps are recorded leaf first, while the failure unwinds.
  void Record(AccessStep lhs, AccessStep rhs) {
    if (!trace_) return;
    lhs_steps_.push_back(std::move(lhs));
    rhs_steps_.push_back(std::move(rhs));
  }

  bool Sequence(const SeqBaseObj* a, const SeqBaseObj* b) {
    // Without a trace there is nothing to learn past a size difference.
    if (a->size() != b->size() && !trace_) return false;
    // Snapshots: a hook run below may change either list (walk_guard.h).
    const tvmffi::rt::StableItems xs(a), ys(b);
    int64_t common = static_cast<int64_t>(std::min(xs.size(), ys.size()));
    for (int64_t i = 0; i < common; ++i) {
      if (!Equal(xs[i], ys[i])) {
        Record(AccessStep::ArrayItem(i), AccessStep::ArrayItem(i));
        return false;
      }
    }
    if (xs.size() == ys.size()) return true;
    if (xs.size() > ys.size()) {
      Record(AccessStep::ArrayItem(common), AccessStep::ArrayItemMissing(common));
    } else {
      Record(AccessStep::ArrayItemMissing(common), AccessStep::ArrayItem(common));
    }
    return false;
  }

  // A key as the other side names it (free variables and DAG nodes are renamed).
  static Any Translate(const Any& key, const ObjectMap& map) {
    if (key.type_index() < TypeIndex::kTVMFFIStaticObjectBegin) return key;
    auto it = map.find(key.cast<ObjectRef>());
    return it == map.end() ? key : Any(it->second);
  }

  bool Mapping(const MapBaseObj* a, const MapBaseObj* b) {
    if (a->size() != b->size() && !trace_) return false;
    // A snapshot of a's entries, b's value held: a hook run below may change
    // either dict (walk_guard.h).
    for (const auto& [key, value] : tvmffi::rt::StableEntries(a)) {
      Any rkey = Translate(key, lhs_to_rhs_);
      auto found = b->find(rkey);
      if (found == b->end()) {
        Record(AccessStep::MapItem(key), AccessStep::MapItemMissing(rkey));
        return false;
      }
      Any other = found.value();
      if (!Equal(value, other)) {
        Record(AccessStep::MapItem(key), AccessStep::MapItem(rkey));
        return false;
      }
    }
    if (a->size() == b->size()) return true;
    // b has a key a lacks: name it.
    for (auto it = b->begin(); it != b->end(); ++it) {
      Any lkey = Translate(it.key(), rhs_to_lhs_);
      if (a->find(lkey) == a->end()) {
        Record(AccessStep::MapItemMissing(lkey), AccessStep::MapItem(it.key()));
        return false;
      }
    }
    return false;
  }

  bool Tensors(const Object* a, const Object* b) {
    if (a == b) return true;
    const DLTensor* x = DLOf(a);
    const DLTensor* y = DLOf(b);
    if (x->ndim != y->ndim || !std::equal(x->shape, x->shape + x->ndim, y->shape)) return false;
    if (x->dtype.code != y->dtype.code || x->dtype.bits != y->dtype.bits ||
        x->dtype.lanes != y->dtype.lanes) {
      return false;
    }
    if (skip_tensor_content_) return true;
    return TensorBytes(x, "StructuralEqual") == TensorBytes(y, "StructuralEqual");
  }

  void Bind(const ObjectRef& lhs, const ObjectRef& rhs) {
    lhs_to_rhs_[lhs] = rhs;
    rhs_to_lhs_[rhs] = lhs;
  }

  bool Objects(const ObjectRef& lhs, const ObjectRef& rhs) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(lhs->type_index());
    TVMFFISEqHashKind kind = KindOf(info, "StructuralEqual");
    if (kind == kTVMFFISEqHashKindUniqueInstance) return lhs.same_as(rhs);
    if (kind == kTVMFFISEqHashKindConstTreeNode && lhs.same_as(rhs)) return true;
    bool remembered = kind == kTVMFFISEqHashKindDAGNode || kind == kTVMFFISEqHashKindFreeVar;
    if (remembered) {
      auto it = lhs_to_rhs_.find(lhs);
      if (it != lhs_to_rhs_.end()) return it->second.same_as(rhs);
      // rhs is already paired with another lhs node.
      if (rhs_to_lhs_.count(rhs) != 0) return false;
    }
    const bool may_bind = region_.bind;
    if (kind == kTVMFFISEqHashKindFreeVar) {
      RegionScope scope(&region_, region_.ForFreeVarFields(map_free_vars_));
      if (!Fields(lhs, rhs, info)) return false;
    } else if (!Fields(lhs, rhs, info)) {
      return false;
    }
    if (kind == kTVMFFISEqHashKindFreeVar) {
      if (!lhs.same_as(rhs) && !may_bind) return false;
      Bind(lhs, rhs);
    } else if (kind == kTVMFFISEqHashKindDAGNode) {
      Bind(lhs, rhs);
    }
    return true;
  }

  // One field (or one part a custom __s_equal__ names); records the step on failure.
  bool Part(const Any& a, const Any& b, int64_t field_flags, const String& name) {
    bool equal;
    {
      RegionScope scope(&region_, region_.ForField(field_flags));
      equal = Equal(a, b);
    }
    if (!equal) Record(AccessStep::Attr(name), AccessStep::Attr(name));
    return equal;
  }

  bool Fields(const ObjectRef& lhs, const ObjectRef& rhs, const TVMFFITypeInfo* info) {
    static const reflection::TypeAttrColumn custom(reflection::type_attr::kSEqual);
    AnyView fn = custom[info->type_index];
    if (fn != nullptr) {
      if (callback_ == nullptr) {
        callback_ = Function::FromTyped(
            [this](AnyView a, AnyView b, bool def_region, AnyView name) -> bool {
              return Part(
                  Any(a), Any(b), DefFlag(def_region),
                  name.type_index() == TypeIndex::kTVMFFINone ? String("") : name.cast<String>());
            });
      }
      return fn.cast<Function>()(lhs, rhs, callback_).cast<bool>();
    }
    return !reflection::ForEachFieldInfoWithEarlyStop(info, [&](const TVMFFIFieldInfo* f) {
      if (f->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return false;
      reflection::FieldGetter get(f);
      return !Part(get(lhs), get(rhs), f->flags, String(f->name));
    });
  }

  const bool map_free_vars_;
  DefRegion region_;
  bool skip_tensor_content_;
  bool trace_;
  std::vector<AccessStep> lhs_steps_;
  std::vector<AccessStep> rhs_steps_;
  ObjectMap lhs_to_rhs_;
  ObjectMap rhs_to_lhs_;
  std::unordered_map<std::pair<const Object*, const Object*>, std::pair<ObjectRef, ObjectRef>,
                     ObjectPairHash>
      equal_pairs_;
  Function callback_;
};

// ---------------------------------------------------------------------------
// Hashing

class HashRun {
 public:
  HashRun(bool map_free_vars, bool skip_tensor_content)
      : map_free_vars_(map_free_vars),
        region_{map_free_vars, false},
        skip_tensor_content_(skip_tensor_content) {}

  uint64_t Hash(const Any& value) {
    const TVMFFIAny* cell = CellOf(value);
    if (IsLeaf(cell->type_index)) return Leaf(cell);
    const Object* obj = reinterpret_cast<const Object*>(cell->v_obj);
    // Every object is hashed once per run (the first visit's hash is the
    // one, as it always was for reflected objects): shared nodes cost their
    // number, not the number of paths to them.
    auto memo = memo_.find(obj);
    if (memo != memo_.end()) return memo->second.first;
    if (tvmffi::rt::StackNearlyExhausted()) ThrowTooDeep("StructuralHash");
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(cell->type_index);
    uint64_t h = detail::HashMixStable(info->type_key_hash, 0);
    switch (cell->type_index) {
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList: {
        const auto* seq = static_cast<const SeqBaseObj*>(obj);
        h = detail::HashMixStable(h, seq->size());
        for (const Any& item : tvmffi::rt::StableItems(seq)) {
          h = detail::HashMixStable(h, Hash(item));
        }
        break;
      }
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict:
        h = Mapping(h, static_cast<const MapBaseObj*>(obj));
        break;
      case TypeIndex::kTVMFFIShape: {
        const auto* shape = static_cast<const ShapeObj*>(obj);
        h = detail::HashMixStable(h, shape->size);
        for (size_t i = 0; i < shape->size; ++i) {
          h = detail::HashMixStable(h, static_cast<uint64_t>(shape->data[i]));
        }
        return h;
      }
      case TypeIndex::kTVMFFITensor:
        h = HashTensor(h, DLOf(obj));
        break;
      default:
        h = HashObject(value.cast<ObjectRef>(), info);
        break;
    }
    // The reference keeps the object alive, so its address is not reused.
    memo_.emplace(obj, std::make_pair(h, value.cast<ObjectRef>()));
    return h;
  }

 private:
  // Values hashed by content, never memoized by address (a BigInt by its number).
  static bool IsLeaf(int32_t type_index) {
    return type_index < TypeIndex::kTVMFFIStaticObjectBegin ||
           type_index == TypeIndex::kTVMFFIStr || type_index == TypeIndex::kTVMFFIBytes ||
           type_index == TypeIndex::kTVMFFIBigInt;
  }

  static uint64_t Leaf(const TVMFFIAny* cell) {
    if (IsNaN(cell)) {
      TVMFFIAny nan = *cell;
      nan.v_float64 = std::nan("");
      return detail::AnyCellHash(&nan);
    }
    // Strings hash by content whatever their form (as AnyHash does).
    return detail::AnyCellHash(cell);
  }

  // Order independent: entries combine commutatively. A key that is an
  // object not seen before (e.g. a free variable first met here) contributes
  // nothing of its own, as its hash would depend on the visiting order.
  uint64_t Mapping(uint64_t h, const MapBaseObj* map) {
    h = detail::HashMixStable(h, map->size());
    uint64_t sum = 0;
    // A snapshot: a hook run below may change the dict (walk_guard.h).
    for (const auto& [key_any, value] : tvmffi::rt::StableEntries(map)) {
      uint64_t key_hash = 0;
      const TVMFFIAny* key = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(key_any);
      if (IsLeaf(key->type_index)) {
        key_hash = Leaf(key);
      } else if (!IsContainerOrLeafObject(key->type_index)) {
        // (Containers, shapes and tensors as keys contribute nothing, as
        // before they were remembered.)
        auto memo = memo_.find(reinterpret_cast<const Object*>(key->v_obj));
        if (memo != memo_.end()) key_hash = memo->second.first;
      }
      sum += detail::HashMixStable(key_hash, Hash(value));
    }
    return detail::HashMixStable(h, sum);
  }

  static bool IsContainerOrLeafObject(int32_t type_index) {
    switch (type_index) {
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList:
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict:
      case TypeIndex::kTVMFFIShape:
      case TypeIndex::kTVMFFITensor:
        return true;
      default:
        return false;
    }
  }

  uint64_t HashTensor(uint64_t h, const DLTensor* t) {
    h = detail::HashMixStable(h, static_cast<uint64_t>(t->ndim));
    for (int i = 0; i < t->ndim; ++i)
      h = detail::HashMixStable(h, static_cast<uint64_t>(t->shape[i]));
    uint64_t dtype = static_cast<uint64_t>(t->dtype.code) |
                     (static_cast<uint64_t>(t->dtype.bits) << 8) |
                     (static_cast<uint64_t>(t->dtype.lanes) << 16);
    h = detail::HashMixStable(h, dtype);
    if (skip_tensor_content_) return h;
    std::string_view bytes = TensorBytes(t, "StructuralHash");
    return detail::HashMixStable(h, detail::HashBytesStable(bytes.data(), bytes.size()));
  }

  uint64_t Part(const Any& value, uint64_t seed, int64_t field_flags) {
    RegionScope scope(&region_, region_.ForField(field_flags));
    return detail::HashMixStable(seed, Hash(value));
  }

  uint64_t HashObject(const ObjectRef& obj, const TVMFFITypeInfo* info) {
    TVMFFISEqHashKind kind = KindOf(info, "StructuralHash");
    uint64_t h = detail::HashMixStable(info->type_key_hash, 1);
    const bool may_bind = region_.bind;
    RegionScope scope(&region_, kind == kTVMFFISEqHashKindFreeVar
                                    ? region_.ForFreeVarFields(map_free_vars_)
                                    : region_);
    static const reflection::TypeAttrColumn custom(reflection::type_attr::kSHash);
    AnyView fn = custom[info->type_index];
    if (fn != nullptr) {
      if (callback_ == nullptr) {
        callback_ = Function::FromTyped([this](AnyView value, int64_t seed, bool def_region) {
          return static_cast<int64_t>(
              Part(Any(value), static_cast<uint64_t>(seed), DefFlag(def_region)));
        });
      }
      h = static_cast<uint64_t>(
          fn.cast<Function>()(obj, static_cast<int64_t>(h), callback_).cast<int64_t>());
    } else {
      reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) {
        if (f->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return;
        h = Part(reflection::FieldGetter(f)(obj), h, f->flags);
      });
    }
    if (kind == kTVMFFISEqHashKindFreeVar) {
      // A bound variable hashes by its binding order; a free one by identity.
      h = may_bind ? detail::HashMixStable(h, free_var_count_++)
                   : detail::HashMixStable(0, reinterpret_cast<uintptr_t>(obj.get()));
    } else if (kind == kTVMFFISEqHashKindDAGNode) {
      h = detail::HashMixStable(h, dag_node_count_++);
    }
    return h;
  }

  const bool map_free_vars_;
  DefRegion region_;
  bool skip_tensor_content_;
  uint64_t free_var_count_ = 0;
  uint64_t dag_node_count_ = 0;
  std::unordered_map<const Object*, std::pair<uint64_t, ObjectRef>> memo_;
  Function callback_;
};

// ---------------------------------------------------------------------------
// Registration

bool StructuralEqualGlobal(const Any& lhs, const Any& rhs, bool map_free_vars,
                           bool skip_tensor_content) {
  return EqualRun(map_free_vars, skip_tensor_content, false).Equal(lhs, rhs);
}

Optional<reflection::AccessPathPair> FirstMismatchGlobal(const Any& lhs, const Any& rhs,
                                                         bool map_free_vars,
                                                         bool skip_tensor_content) {
  EqualRun run(map_free_vars, skip_tensor_content, true);
  if (run.Equal(lhs, rhs)) return std::nullopt;
  return reflection::AccessPathPair(run.LhsPath(), run.RhsPath());
}

int64_t StructuralHashGlobal(const Any& value, bool map_free_vars, bool skip_tensor_content) {
  return static_cast<int64_t>(HashRun(map_free_vars, skip_tensor_content).Hash(value));
}

// Reflection of the access path types; a failure is recorded, never thrown.
void RegisterAccessPathTypes() noexcept {
  try {
    namespace refl = reflection;
    refl::ObjectDef<AccessStepObj>()
        .def_ro("kind", &AccessStepObj::kind,
                "The step kind: attribute, array item, map item, or one of their missing forms")
        .def_ro("key", &AccessStepObj::key,
                "The attribute name, array index or map key the step goes through");
    refl::ObjectDef<AccessPathObj>()
        .def_ro("parent", &AccessPathObj::parent, "The path one step shorter (None at the root)")
        .def_ro("step", &AccessPathObj::step, "The last step of the path (None at the root)")
        .def_ro("depth", &AccessPathObj::depth, "The number of steps from the root (0 at the root)")
        .def_static("_root", &AccessPath::Root)
        .def("_extend", &AccessPathObj::Extend)
        .def("_attr", &AccessPathObj::Attr)
        .def("_array_item", &AccessPathObj::ArrayItem)
        .def("_map_item", &AccessPathObj::MapItem)
        .def("_attr_missing", &AccessPathObj::AttrMissing)
        .def("_array_item_missing", &AccessPathObj::ArrayItemMissing)
        .def("_map_item_missing", &AccessPathObj::MapItemMissing)
        .def("_is_prefix_of", &AccessPathObj::IsPrefixOf)
        .def("_to_steps", &AccessPathObj::ToSteps)
        .def("_path_equal", &AccessPathObj::PathEqual);
    // Printed forms (ReprPrint): "<root>.body[2]["k"][<missing:3>]".
    refl::TypeAttrDef<AccessStepObj>().def(
        refl::type_attr::kRepr, [](const AccessStep& step, const Function& repr) -> String {
          auto quoted = [&](const Any& key) { return std::string(repr(key).cast<String>()); };
          switch (step->kind) {
            case reflection::AccessKind::kAttr:
              return "." + std::string(step->key.cast<String>());
            case reflection::AccessKind::kArrayItem:
              return "[" + std::to_string(step->key.cast<int64_t>()) + "]";
            case reflection::AccessKind::kMapItem:
              return "[" + quoted(step->key) + "]";
            case reflection::AccessKind::kArrayItemMissing:
              return "[<missing:" + std::to_string(step->key.cast<int64_t>()) + ">]";
            case reflection::AccessKind::kAttrMissing:
            case reflection::AccessKind::kMapItemMissing:
              return "[<missing:" + quoted(step->key) + ">]";
          }
          TVM_FFI_THROW(ValueError) << "unknown access kind " << static_cast<int>(step->kind);
        });
    refl::TypeAttrDef<AccessPathObj>().def(
        refl::type_attr::kRepr, [](const AccessPath& path, const Function& repr) -> String {
          std::string out = "<root>";
          for (const AccessStep& step : path->ToSteps())
            out += std::string(repr(step).cast<String>());
          return String(out);
        });
    refl::EnsureTypeAttrColumn(refl::type_attr::kSEqual);
    refl::EnsureTypeAttrColumn(refl::type_attr::kSHash);
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register the reflection of access paths: %s",
                  e.what());
    tvmffi::rt::RecordLoadFailure(what);
  }
}

// A StructuralKey made with this file's hash. The runtime must not odr-use the
// header's inline StructuralHash::Hash / StructuralEqual::Equal (or
// StructuralKeyObj(Any), which calls one): they carry upstream's mangled
// names, and the runtime objects are also linked into libraries that define
// upstream's out-of-line versions (tests/upstream_cxx's link stand-in).
StructuralKey MakeStructuralKey(Any key) {
  ObjectPtr<StructuralKeyObj> n = make_object<StructuralKeyObj>();
  n->hash_i64 = static_cast<int64_t>(HashRun(false, false).Hash(key));
  n->key = std::move(key);
  return StructuralKey(std::move(n));
}

bool StructuralKeyEqual(const StructuralKey& a, const StructuralKey& b) {
  return a.same_as(b) ||
         (a->hash_i64 == b->hash_i64 && EqualRun(false, false, false).Equal(a->key, b->key));
}

// AnyHash / AnyEqual hooks: keys in a Map (or any AnyHash table) compare
// structurally, by the hash kept in the key and then the structures.
int64_t StructuralKeyAnyHash(const Any& key) {
  return key.as<StructuralKeyObj>()->hash_i64;
}

bool StructuralKeyAnyEqual(const Any& a, const Any& b) {
  return StructuralKeyEqual(a.cast<StructuralKey>(), b.cast<StructuralKey>());
}

void RegisterStructuralKeyType() noexcept {
  try {
    namespace refl = reflection;
    refl::ObjectDef<StructuralKeyObj>()
        .def_static(refl::type_attr::kInit, MakeStructuralKey, "A key with its structural hash")
        .def_type_attr(refl::type_attr::kInit, MakeStructuralKey)
        .def_ro("key", &StructuralKeyObj::key, "The value the key stands for")
        .def_ro("hash_i64", &StructuralKeyObj::hash_i64, "The structural hash of the value");
    refl::TypeAttrDef<StructuralKeyObj>()
        .native_fn_attr<&StructuralKeyAnyHash>(::tvm::ffi::type_attr::kAnyHash)
        .native_fn_attr<&StructuralKeyAnyEqual>(::tvm::ffi::type_attr::kAnyEqual);
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register the reflection of ffi.StructuralKey: %s",
                  e.what());
    tvmffi::rt::RecordLoadFailure(what);
  }
}

// The invariants of AccessStep / AccessPath / StructuralKey objects rebuilt
// field by field (internal.h, CheckReconstructedObject).
std::string CheckAccessStep(const AccessStepObj* step) {
  const int32_t kind = static_cast<int32_t>(step->kind);
  switch (step->kind) {
    case reflection::AccessKind::kAttr:
    case reflection::AccessKind::kAttrMissing:
      if (step->key.as<String>().has_value()) return "";
      return "an attribute step's key must be a string, not `" + step->key.GetTypeKey() + "`";
    case reflection::AccessKind::kArrayItem:
    case reflection::AccessKind::kArrayItemMissing:
      if (step->key.type_index() == TypeIndex::kTVMFFIInt) return "";
      return "an array step's key must be an int, not `" + step->key.GetTypeKey() + "`";
    case reflection::AccessKind::kMapItem:
    case reflection::AccessKind::kMapItemMissing:
      return "";
  }
  return "unknown access step kind " + std::to_string(kind) + " (0 to 5)";
}

std::string CheckAccessPath(const AccessPathObj* path) {
  const bool has_parent = path->parent.has_value();
  if (has_parent != path->step.has_value()) {
    return "an AccessPath's `parent` and `step` must both be set, or both be None (the root)";
  }
  if (!has_parent) {
    if (path->depth != 0)
      return "the root AccessPath's depth must be 0, not " + std::to_string(path->depth);
    return "";
  }
  const Object* parent = path->parent.get();
  if (!parent->IsInstance<AccessPathObj>()) {
    return "an AccessPath's `parent` must be an ffi.reflection.AccessPath, not `" +
           parent->GetTypeKey() + "`";
  }
  // The parent was checked when it was made, so its depth is its chain's.
  const int64_t expect = static_cast<int64_t>(static_cast<const AccessPathObj*>(parent)->depth) + 1;
  if (path->depth != expect) {
    return "an AccessPath's depth must be its parent's plus one (" + std::to_string(expect) +
           "), not " + std::to_string(path->depth);
  }
  return "";
}

}  // namespace
}  // namespace ffi
}  // namespace tvm

std::string tvmffi::rt::CheckReconstructedObject(const ::tvm::ffi::ObjectRef& obj) {
  using namespace ::tvm::ffi;  // NOLINT(build/namespaces)
  if (!obj.defined()) return "";
  if (const auto* path = obj.as<reflection::AccessPathObj>()) return CheckAccessPath(path);
  if (const auto* step = obj.as<reflection::AccessStepObj>()) return CheckAccessStep(step);
  if (const auto* key = obj.as<StructuralKeyObj>()) {
    // Derived: the hash is the key's, whatever the fields said.
    const_cast<StructuralKeyObj*>(key)->hash_i64 =
        static_cast<int64_t>(HashRun(false, false).Hash(key->key));
  }
  return "";
}

namespace tvm {
namespace ffi {
namespace {

[[maybe_unused]] const bool kReflectionBuiltinsRegistered = [] {
  RegisterAccessPathTypes();
  RegisterStructuralKeyType();
  tvmffi::rt::BuiltinDef()
      .def("ffi.StructuralEqual", StructuralEqualGlobal)
      .def("ffi.GetFirstStructuralMismatch", FirstMismatchGlobal)
      .def("ffi.StructuralHash", StructuralHashGlobal)
      .def("ffi.StructuralKey", MakeStructuralKey)
      .def("ffi.StructuralKeyEqual", StructuralKeyEqual);
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
