/*
 * ffi.RecursiveEq / RecursiveLt / RecursiveLe / RecursiveGt / RecursiveGe and
 * ffi.RecursiveHash (registered in dataclass.cc): the RecursiveComparer (a
 * three-way comparison) and the RecursiveHasher (a hash consistent with it),
 * both over their own stacks rather than the C++ one, both taking a type's
 * `__ffi_eq__` / `__ffi_compare__` / `__ffi_hash__` hook where set, and both
 * linear in the nodes of a DAG (pairs found equal and hashes are remembered).
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dataclass_internal.h"
#include "internal.h"
#include "walk_guard.h"

namespace tvm {
namespace ffi {
namespace dataclass_impl {
namespace {

// Frames deeper than this are refused (the walks keep their own stacks, so
// this bounds memory, not the C++ stack).
constexpr size_t kMaxRecursiveDepth = size_t{1} << 20;

// The user hooks, by their attribute names; their columns are created when
// the globals are registered, so a column lookup cannot fail later.
const reflection::TypeAttrColumn& HookColumn(int which) {
  static const reflection::TypeAttrColumn eq(reflection::type_attr::kEq);
  static const reflection::TypeAttrColumn compare(reflection::type_attr::kCompare);
  static const reflection::TypeAttrColumn hash(reflection::type_attr::kHash);
  return which == 0 ? eq : which == 1 ? compare : hash;
}
AnyView EqHook(int32_t ti) {
  return HookColumn(0)[ti];
}
AnyView CompareHook(int32_t ti) {
  return HookColumn(1)[ti];
}
AnyView HashHook(int32_t ti) {
  return HookColumn(2)[ti];
}

template <typename T>
int Sign(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

std::string KeyOfCell(const TVMFFIAny* cell, int32_t string_class) {
  return detail::TypeIndexToTypeKey(string_class >= 0 ? string_class : cell->type_index);
}

struct ObjectPairHash {
  size_t operator()(const std::pair<const Object*, const Object*>& p) const noexcept {
    return static_cast<size_t>(detail::StableHashCombine(reinterpret_cast<uintptr_t>(p.first),
                                                         reinterpret_cast<uintptr_t>(p.second)));
  }
};

/*
 * Three-way comparison (-1, 0, 1). None is below everything; values of
 * different types are unequal (ordering them is a TypeError), except that a
 * string equals a string (a bytes a bytes) whatever its storage; bool, int,
 * float, dtype and device compare by value (NaN equals NaN, ordering it is a
 * TypeError; -0.0 equals 0.0); other POD values (pointers) are equal only
 * bitwise and cannot be ordered. Strings, bytes, shapes, Array and List are
 * lexicographic (a prefix first). Map/Dict are equal when they have the same
 * keys with equal values; any difference under one is a TypeError when
 * ordering. Objects must have the same type (else unequal, or a TypeError
 * when ordering); then a type's `__ffi_eq__(lhs, rhs, eq)` (equality only)
 * or `__ffi_compare__(lhs, rhs, cmp)` decides, else the reflected fields
 * without kTVMFFIFieldFlagBitMaskCompareOff in order (an object without such
 * fields equals any other of its type). A pair of objects met again while
 * it is being compared is a cycle: equal for equality, a ValueError when
 * ordering.
 */
class RecursiveComparer {
 public:
  explicit RecursiveComparer(bool equal_only) : equal_only_(equal_only) {}

  static bool IsInteger(int32_t ti) {
    return ti == TypeIndex::kTVMFFIInt || ti == TypeIndex::kTVMFFIBigInt;
  }

  int Compare(const Any& lhs, const Any& rhs) {
    std::vector<Frame> stack;
    int result;
    try {
      if (Step(lhs, rhs, &stack, &result)) return result;
      while (true) {
        Frame& top = stack.back();
        if (top.next < top.pairs.size()) {
          // Copies: Step may grow the stack, moving `top`.
          Any l = top.pairs[top.next].first;
          Any r = top.pairs[top.next].second;
          ++top.next;
          if (!Step(l, r, &stack, &result)) continue;
        } else {
          result = top.tail;
          Leave(top);
          if (result == 0) Finished(top, &stack);
          stack.pop_back();
          if (stack.empty()) return result;
        }
        if (result != 0) {
          bool under_map = false;
          for (const Frame& f : stack) under_map = under_map || f.is_map;
          for (const Frame& f : stack) Leave(f);
          stack.clear();
          if (under_map && !equal_only_) Unorderable("Map/Dict values");
          return result;
        }
      }
    } catch (...) {
      // A hook may catch the error and go on with this comparer.
      for (const Frame& f : stack) Leave(f);
      throw;
    }
  }

 private:
  using ObjectPair = std::pair<const Object*, const Object*>;
  static constexpr size_t kNoCycle = std::numeric_limits<size_t>::max();

  struct Frame {
    std::vector<std::pair<Any, Any>> pairs;
    size_t next = 0;
    int tail = 0;  // the result when every pair is equal (a length difference)
    bool is_map = false;
    ObjectPair objects;
    Any lhs, rhs;             // kept alive while remembered (equal_pairs_)
    size_t level = 0;         // this pair's nesting level (its entry in active_)
    size_t cycle = kNoCycle;  // the outermost level a cycle below returned to
  };

  [[noreturn]] static void Unorderable(const std::string& what) {
    TVM_FFI_THROW(TypeError) << "Cannot order " << what;
  }

  void Leave(const Frame& f) { active_.erase(f.objects); }

  // A pair met again while open (a cycle, equality only) was taken as equal:
  // what was found under it holds only if that pair turns out equal.
  void NoteCycle(size_t level, std::vector<Frame>* stack) {
    size_t& cycle = stack->empty() ? hook_cycle_ : stack->back().cycle;
    cycle = std::min(cycle, level);
  }

  // A pair found equal: remembered, so that a pair reached again along
  // another path (shared nodes, a DAG) is not compared again, unless its
  // equality leaned on a pair still open above it; the cycle mark goes up.
  void Finished(const Frame& f, std::vector<Frame>* stack) {
    if (f.cycle >= f.level) {
      equal_pairs_.emplace(f.objects, std::make_pair(f.lhs, f.rhs));
    }
    if (f.cycle != kNoCycle) {
      if (stack->size() >= 2) {
        size_t& up = (*stack)[stack->size() - 2].cycle;
        up = std::min(up, f.cycle);
      } else {
        hook_cycle_ = std::min(hook_cycle_, f.cycle);
      }
    }
  }

  // Decides lhs vs rhs at once (true, *out set) or pushes a frame for their
  // parts (false).
  bool Step(const Any& lhs, const Any& rhs, std::vector<Frame>* stack, int* out) {
    const TVMFFIAny* a = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(lhs);
    const TVMFFIAny* b = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(rhs);
    if (a->type_index == TypeIndex::kTVMFFINone || b->type_index == TypeIndex::kTVMFFINone) {
      *out = static_cast<int>(b->type_index == TypeIndex::kTVMFFINone) -
             static_cast<int>(a->type_index == TypeIndex::kTVMFFINone);
      return true;
    }
    std::string_view sa, sb;
    int32_t ka = -1, kb = -1;
    bool a_text = detail::StringLikeView(a, &sa, &ka);
    bool b_text = detail::StringLikeView(b, &sb, &kb);
    if (a_text && b_text && ka == kb) {
      int c = sa.compare(sb);
      *out = c < 0 ? -1 : (c > 0 ? 1 : 0);
      return true;
    }
    if (IsInteger(a->type_index) && IsInteger(b->type_index) &&
        (a->type_index == TypeIndex::kTVMFFIBigInt || b->type_index == TypeIndex::kTVMFFIBigInt)) {
      // int and BigInt order by value (the two forms never hold the same number).
      *out = detail::int_ops::CompareFallback(detail::BigIntUnsafe::GetArrayView(a),
                                              detail::BigIntUnsafe::GetArrayView(b));
      return true;
    }
    if (a_text || b_text || a->type_index != b->type_index) {
      if (!equal_only_) {
        TVM_FFI_THROW(TypeError) << "Cannot compare values of different types: "
                                 << KeyOfCell(a, a_text ? ka : -1) << " vs "
                                 << KeyOfCell(b, b_text ? kb : -1);
      }
      *out = 1;
      return true;
    }
    int32_t ti = a->type_index;
    if (ti < TypeIndex::kTVMFFIStaticObjectBegin) {
      *out = ComparePOD(a, b);
      return true;
    }
    const Object* x = ObjectOf(lhs);
    const Object* y = ObjectOf(rhs);
    if (x == y) {
      *out = 0;
      return true;
    }
    if (ti == TypeIndex::kTVMFFIShape) {
      const auto* p = static_cast<const ShapeObj*>(x);
      const auto* q = static_cast<const ShapeObj*>(y);
      *out = CompareRange(p->data, p->data + p->size, q->data, q->data + q->size);
      return true;
    }
    auto objects = std::make_pair(x, y);
    if (equal_pairs_.count(objects) != 0) {
      *out = 0;
      return true;
    }
    auto open = active_.find(objects);
    if (open != active_.end()) {
      if (!equal_only_) {
        TVM_FFI_THROW(ValueError) << "RecursiveCompare: cyclic reference detected in ordering ("
                                  << TypeKeyOf(ti) << ")";
      }
      NoteCycle(open->second, stack);
      *out = 0;  // equal unless something outside the cycle differs
      return true;
    }
    if (ti >= TypeIndex::kTVMFFIStaticObjectEnd && CallHook(lhs, rhs, objects, out, stack)) {
      return true;
    }
    if (stack->size() >= kMaxRecursiveDepth) {
      TVM_FFI_THROW(ValueError) << "RecursiveCompare: values nested deeper than "
                                << kMaxRecursiveDepth;
    }
    Frame f;
    f.objects = objects;
    switch (ti) {
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList: {
        const auto* p = static_cast<const SeqBaseObj*>(x);
        const auto* q = static_cast<const SeqBaseObj*>(y);
        size_t common = std::min(p->size(), q->size());
        f.pairs.reserve(common);
        for (size_t i = 0; i < common; ++i) {
          f.pairs.emplace_back((*p)[static_cast<int64_t>(i)], (*q)[static_cast<int64_t>(i)]);
        }
        f.tail = Sign(p->size(), q->size());
        break;
      }
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict: {
        const auto* p = static_cast<const MapBaseObj*>(x);
        const auto* q = static_cast<const MapBaseObj*>(y);
        f.is_map = true;
        bool same_keys = p->size() == q->size();
        if (same_keys) f.pairs.reserve(p->size());
        for (auto it = p->begin(); same_keys && it != p->end(); ++it) {
          auto found = q->find(it.key());
          same_keys = found != q->end();
          if (same_keys) f.pairs.emplace_back(it.value(), found.value());
        }
        if (!same_keys) {
          if (!equal_only_) Unorderable("Map/Dict values");
          *out = 1;
          return true;
        }
        break;
      }
      default: {
        ObjectRef l = lhs.cast<ObjectRef>();
        ObjectRef r = rhs.cast<ObjectRef>();
        reflection::ForEachFieldInfo(TVMFFIGetTypeInfo(ti), [&](const TVMFFIFieldInfo* field) {
          if (field->flags & kTVMFFIFieldFlagBitMaskCompareOff) return;
          reflection::FieldGetter get(field);
          f.pairs.emplace_back(get(l), get(r));
        });
        break;
      }
    }
    f.lhs = lhs;
    f.rhs = rhs;
    f.level = active_.size();
    active_.emplace(objects, f.level);
    stack->push_back(std::move(f));
    return false;
  }

  // A type's __ffi_eq__ / __ffi_compare__, given a function that compares
  // parts with this comparer (so cycles through the hook are seen).
  bool CallHook(const Any& lhs, const Any& rhs, std::pair<const Object*, const Object*> objects,
                int* out, std::vector<Frame>* stack) {
    int32_t ti = objects.first->type_index();
    AnyView eq = equal_only_ ? EqHook(ti) : AnyView();
    AnyView cmp = CompareHook(ti);
    if (eq == nullptr && cmp == nullptr) return false;
    active_.emplace(objects, active_.size());
    // The comparisons the hook asks for report their cycles to hook_cycle_;
    // they pass on to whatever called the hook.
    struct Release {
      RecursiveComparer* self;
      std::pair<const Object*, const Object*> objects;
      std::vector<Frame>* stack;
      size_t saved;
      ~Release() {
        self->active_.erase(objects);
        size_t cycle = self->hook_cycle_;
        self->hook_cycle_ = saved;
        if (cycle != kNoCycle) self->NoteCycle(cycle, stack);
      }
    } release{this, objects, stack, hook_cycle_};
    hook_cycle_ = kNoCycle;
    if (eq != nullptr) {
      Function parts = Function::FromTyped(
          [this](AnyView l, AnyView r) { return Compare(Any(l), Any(r)) == 0; });
      *out = eq.cast<Function>()(lhs, rhs, parts).cast<bool>() ? 0 : 1;
    } else {
      Function parts = Function::FromTyped(
          [this](AnyView l, AnyView r) { return static_cast<int64_t>(Compare(Any(l), Any(r))); });
      *out = Sign(cmp.cast<Function>()(lhs, rhs, parts).cast<int64_t>(), int64_t{0});
    }
    return true;
  }

  template <typename T>
  static int CompareRange(const T* a, const T* a_end, const T* b, const T* b_end) {
    for (; a != a_end && b != b_end; ++a, ++b) {
      if (*a != *b) return *a < *b ? -1 : 1;
    }
    return Sign(a_end - a, b_end - b);
  }

  int ComparePOD(const TVMFFIAny* a, const TVMFFIAny* b) const {
    switch (a->type_index) {
      case TypeIndex::kTVMFFIBool:
        return Sign(a->v_int64 != 0, b->v_int64 != 0);
      case TypeIndex::kTVMFFIInt:
        return Sign(a->v_int64, b->v_int64);
      case TypeIndex::kTVMFFIFloat: {
        bool a_nan = std::isnan(a->v_float64), b_nan = std::isnan(b->v_float64);
        if (a_nan || b_nan) {
          if (!equal_only_) Unorderable("NaN values");
          return a_nan && b_nan ? 0 : 1;
        }
        return Sign(a->v_float64, b->v_float64);
      }
      case TypeIndex::kTVMFFIDataType: {
        int c = Sign(a->v_dtype.code, b->v_dtype.code);
        if (c == 0) c = Sign(a->v_dtype.bits, b->v_dtype.bits);
        return c != 0 ? c : Sign(a->v_dtype.lanes, b->v_dtype.lanes);
      }
      case TypeIndex::kTVMFFIDevice: {
        int c = Sign(static_cast<int32_t>(a->v_device.device_type),
                     static_cast<int32_t>(b->v_device.device_type));
        return c != 0 ? c : Sign(a->v_device.device_id, b->v_device.device_id);
      }
      default:
        if (a->zero_padding == b->zero_padding && a->v_uint64 == b->v_uint64) return 0;
        if (!equal_only_) Unorderable("values of type " + KeyOfCell(a, -1));
        return 1;
    }
  }

  bool equal_only_;
  // Open pairs, with their nesting levels.
  std::unordered_map<ObjectPair, size_t, ObjectPairHash> active_;
  // Pairs found equal (with references that keep their addresses unused).
  std::unordered_map<ObjectPair, std::pair<Any, Any>, ObjectPairHash> equal_pairs_;
  size_t hook_cycle_ = kNoCycle;
};

/*
 * A hash consistent with RecursiveEq (equal values hash alike): the same
 * cases, each mixed with its type index (strings and bytes by content; NaNs
 * alike; -0.0 as 0.0). Sequences mix their elements in order, Map/Dict their
 * (key, value) entries in an order-free way, objects their type key and the
 * fields without HashOff or CompareOff, or a type's `__ffi_hash__(obj, hash)`.
 * A user type with `__ffi_eq__` or `__ffi_compare__` but no `__ffi_hash__` is
 * a ValueError (its hash could not follow its equality). An object met again
 * while it is being hashed (a cycle) counts as its type key's hash.
 */
class RecursiveHasher {
 public:
  uint64_t Hash(const Any& value) {
    uint64_t h;
    if (Leaf(value, &h)) return h;
    std::vector<Frame> stack;
    try {
      Open(value, &stack);
      while (true) {
        Frame& top = stack.back();
        if (top.next < top.items.size()) {
          Any item = top.items[top.next++];
          if (!Leaf(item, &h)) {
            Open(item, &stack);
            continue;
          }
        } else {
          h = Finish(&top);
          active_.erase(top.obj);
          memo_[top.obj] = h;
          stack.pop_back();
          if (stack.empty()) return h;
        }
        Feed(&stack.back(), h);
      }
    } catch (...) {
      for (const Frame& f : stack) active_.erase(f.obj);
      throw;
    }
  }

 private:
  enum class Kind { kSequence, kMap, kObject };
  struct Frame {
    Kind kind;
    const Object* obj;
    std::vector<Any> items;  // elements, keys and values alternating, or fields
    size_t next = 0;
    uint64_t hash;
    uint64_t key_hash = 0;
    std::vector<uint64_t> entries;  // a map's (key, value) hashes
  };

  static uint64_t Mix(uint64_t h, uint64_t v) { return detail::StableHashCombine(h, v); }

  bool Leaf(const Any& value, uint64_t* out) {
    const TVMFFIAny* cell = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
    std::string_view text;
    int32_t klass;
    if (detail::StringLikeView(cell, &text, &klass)) {
      *out = Mix(static_cast<uint64_t>(klass), detail::StableHashBytes(text.data(), text.size()));
      return true;
    }
    int32_t ti = cell->type_index;
    uint64_t seed = static_cast<uint64_t>(ti);
    switch (ti) {
      case TypeIndex::kTVMFFINone:
        *out = Mix(seed, 0);
        return true;
      case TypeIndex::kTVMFFIBool:
        *out = Mix(seed, cell->v_int64 != 0);
        return true;
      case TypeIndex::kTVMFFIInt:
        *out = Mix(seed, cell->v_uint64);
        return true;
      case TypeIndex::kTVMFFIBigInt:  // by value, whatever the object
        *out = Mix(seed, value.cast<BigInt>().hash());
        return true;
      case TypeIndex::kTVMFFIFloat: {
        double v = cell->v_float64;
        if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
        if (v == 0.0) v = 0.0;  // -0.0 equals 0.0
        uint64_t bits;
        std::memcpy(&bits, &v, sizeof(bits));
        *out = Mix(seed, bits);
        return true;
      }
      case TypeIndex::kTVMFFIDataType:
        *out = Mix(Mix(Mix(seed, cell->v_dtype.code), cell->v_dtype.bits), cell->v_dtype.lanes);
        return true;
      case TypeIndex::kTVMFFIDevice:
        *out = Mix(Mix(seed, static_cast<uint64_t>(cell->v_device.device_type)),
                   static_cast<uint64_t>(static_cast<int64_t>(cell->v_device.device_id)));
        return true;
      default:
        break;
    }
    if (ti < TypeIndex::kTVMFFIStaticObjectBegin) {
      *out = Mix(Mix(seed, cell->v_uint64), cell->zero_padding);
      return true;
    }
    const Object* obj = ObjectOf(value);
    auto memo = memo_.find(obj);
    if (memo != memo_.end()) {
      *out = memo->second;
      return true;
    }
    if (active_.count(obj) != 0) {
      *out = TVMFFIGetTypeInfo(ti)->type_key_hash;
      return true;
    }
    if (ti == TypeIndex::kTVMFFIShape) {
      const auto* s = static_cast<const ShapeObj*>(obj);
      uint64_t h = Mix(seed, s->size);
      for (size_t i = 0; i < s->size; ++i) h = Mix(h, static_cast<uint64_t>(s->data[i]));
      *out = memo_[obj] = h;
      return true;
    }
    if (ti < TypeIndex::kTVMFFIStaticObjectEnd) return false;
    AnyView hook = HashHook(ti);
    if (hook != nullptr) {
      active_.insert(obj);
      struct Release {
        RecursiveHasher* self;
        const Object* obj;
        ~Release() { self->active_.erase(obj); }
      } release{this, obj};
      Function parts =
          Function::FromTyped([this](AnyView v) { return static_cast<int64_t>(Hash(Any(v))); });
      int64_t h = hook.cast<Function>()(value, parts).cast<int64_t>();
      *out = memo_[obj] = static_cast<uint64_t>(h);
      return true;
    }
    if (EqHook(ti) != nullptr || CompareHook(ti) != nullptr) {
      TVM_FFI_THROW(ValueError) << "RecursiveHash: type `" << TypeKeyOf(ti)
                                << "` defines __ffi_eq__ or __ffi_compare__ but not __ffi_hash__ "
                                   "(its hash would not follow its equality)";
    }
    return false;
  }

  void Open(const Any& value, std::vector<Frame>* stack) {
    if (stack->size() >= kMaxRecursiveDepth) {
      TVM_FFI_THROW(ValueError) << "RecursiveHash: values nested deeper than "
                                << kMaxRecursiveDepth;
    }
    Frame f;
    f.obj = ObjectOf(value);
    int32_t ti = f.obj->type_index();
    switch (ti) {
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList: {
        const auto* seq = static_cast<const SeqBaseObj*>(f.obj);
        f.kind = Kind::kSequence;
        f.hash = Mix(static_cast<uint64_t>(ti), seq->size());
        f.items.assign(seq->begin(), seq->end());
        break;
      }
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict: {
        const auto* map = static_cast<const MapBaseObj*>(f.obj);
        f.kind = Kind::kMap;
        f.hash = Mix(static_cast<uint64_t>(ti), map->size());
        f.items.reserve(map->size() * 2);
        f.entries.reserve(map->size());
        for (auto it = map->begin(); it != map->end(); ++it) {
          f.items.push_back(it.key());
          f.items.push_back(it.value());
        }
        break;
      }
      default: {
        const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
        f.kind = Kind::kObject;
        f.hash = info->type_key_hash;
        ObjectRef ref = value.cast<ObjectRef>();
        reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
          if (field->flags & (kTVMFFIFieldFlagBitMaskHashOff | kTVMFFIFieldFlagBitMaskCompareOff)) {
            return;
          }
          f.items.push_back(reflection::FieldGetter(field)(ref));
        });
        break;
      }
    }
    active_.insert(f.obj);
    stack->push_back(std::move(f));
  }

  static void Feed(Frame* f, uint64_t h) {
    if (f->kind != Kind::kMap) {
      f->hash = Mix(f->hash, h);
    } else if (f->next % 2 == 1) {
      f->key_hash = h;  // a key; its value comes next
    } else {
      f->entries.push_back(Mix(f->key_hash, h));
    }
  }

  static uint64_t Finish(Frame* f) {
    // Map entries in a fixed order, whatever the maps' insertion orders.
    std::sort(f->entries.begin(), f->entries.end());
    for (uint64_t e : f->entries) f->hash = Mix(f->hash, e);
    return f->hash;
  }

  std::unordered_set<const Object*> active_;
  std::unordered_map<const Object*, uint64_t> memo_;
};

}  // namespace

uint64_t RecursiveHashOf(const Any& value) {
  return RecursiveHasher().Hash(value);
}

int RecursiveCompareOf(const Any& lhs, const Any& rhs, bool equal_only) {
  return RecursiveComparer(equal_only).Compare(lhs, rhs);
}

}  // namespace dataclass_impl
}  // namespace ffi
}  // namespace tvm
