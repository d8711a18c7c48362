/*
 * Object headers, reference counting, opaque objects and the type registry.
 */
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tvm/ffi/base_detail.h>

#include "internal.h"

namespace tvmffi {
namespace rt {

// ---------------------------------------------------------------------------
// Object memory and reference counting
// ---------------------------------------------------------------------------

TVMFFIObject* InitObjectHeader(void* mem, int32_t type_index, void (*deleter)(void*, int)) {
  auto* obj = static_cast<TVMFFIObject*>(mem);
  ::tvm::ffi::detail::InitObjectHeader(obj, type_index, deleter);
  return obj;
}

TVMFFIObject* AllocObject(size_t size, int32_t type_index, void (*deleter)(void*, int)) {
  void* mem = TVMFFI_RT_MALLOC(size);
  if (mem == nullptr) throw std::bad_alloc();
  return InitObjectHeader(mem, type_index, deleter);
}

void FreeObjectMemory(void* self) {
  std::free(self);
}

// ---------------------------------------------------------------------------
// Opaque objects
// ---------------------------------------------------------------------------

namespace {

struct OpaqueObject {
  TVMFFIObject header;
  TVMFFIOpaqueObjectCell cell;
  void (*handle_deleter)(void* handle);
};
static_assert(offsetof(OpaqueObject, cell) == sizeof(TVMFFIObject));

void OpaqueObjectDeleter(void* self, int flags) {
  auto* obj = static_cast<OpaqueObject*>(self);
  if ((flags & kTVMFFIObjectDeleterFlagBitMaskStrong) && obj->handle_deleter != nullptr) {
    obj->handle_deleter(obj->cell.handle);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) FreeObjectMemory(self);
}

// ---------------------------------------------------------------------------
// Type registry
// ---------------------------------------------------------------------------

uint64_t HashTypeKey(std::string_view key) {
  // FNV-1a followed by a splitmix64 finaliser: stable across runs and builds.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : key) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

struct TypeEntry {
  // GetTypeInfo hands out &info; entries are never freed or moved.
  TVMFFITypeInfo info{};
  std::string key;
  std::vector<const TVMFFITypeInfo*> ancestors;
  std::vector<TVMFFIFieldInfo> fields;
  std::vector<TVMFFIMethodInfo> methods;
  // The block of indices [index, index + slots) this type reserved for itself
  // and its subclasses; `used` of them are taken (itself first).
  int32_t slots = 1;
  int32_t used = 1;
  bool can_overflow = true;
};

struct AttrColumn {
  TVMFFITypeAttrColumn column{nullptr, 0, 0};
  std::vector<TVMFFIAny> values;
};

class TypeRegistry {
 public:
  static TypeRegistry* Global() {
    // Leaked on purpose: other libraries may read type records during exit.
    static TypeRegistry* inst = new TypeRegistry();
    return inst;
  }

  // Lock-free read: the table is a fixed array of lazily created chunks.
  TypeEntry* Get(int32_t index) const {
    if (index < 0 || index >= kMaxTypes) return nullptr;
    std::atomic<TypeEntry*>* chunk = chunks_[index >> kChunkBits].load(std::memory_order_acquire);
    if (chunk == nullptr) return nullptr;
    return chunk[index & (kChunkSize - 1)].load(std::memory_order_acquire);
  }

  TypeEntry* GetOrThrow(int32_t index) const {
    TypeEntry* e = Get(index);
    if (e == nullptr) Throw("KeyError", "Cannot find type info for type index ", index);
    return e;
  }

  int32_t KeyToIndex(std::string_view key) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = key2index_.find(std::string(key));
    if (it == key2index_.end()) Throw("KeyError", "Cannot find type `", key, "`");
    return it->second;
  }

  // A key registered again must name the same parent (and static index, if any).
  int32_t CheckSameRegistration(std::string_view key, int32_t index, int32_t static_index,
                                int32_t parent_index) const {
    if (parent_index == -2) return index;  // lookup only
    const TypeEntry* e = Get(index);
    int32_t parent = e->ancestors.empty() ? -1 : e->ancestors.back()->type_index;
    if (parent != parent_index) {
      Throw("ValueError", "TVMFFITypeGetOrAllocIndex: type `", key,
            "` is already registered with parent `",
            parent < 0 ? std::string("(none)") : TypeIndexToKey(parent), "`, not `",
            parent_index < 0 ? std::string("(none)") : TypeIndexToKey(parent_index), "`");
    }
    if (static_index >= 0 && static_index != index) {
      Throw("ValueError", "TVMFFITypeGetOrAllocIndex: type `", key,
            "` is already registered with index ", index, ", not the static index ", static_index);
    }
    return index;
  }

  int32_t GetOrAlloc(std::string_view key, int32_t static_index, int32_t depth, int32_t child_slots,
                     bool can_overflow, int32_t parent_index) {
    if (static_index < -1) {
      Throw("ValueError", "TVMFFITypeGetOrAllocIndex: static type index ", static_index,
            " of type `", key, "` is invalid (>= 0, or -1 for a dynamic index)");
    }
    {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      auto it = key2index_.find(std::string(key));
      if (it != key2index_.end()) {
        return CheckSameRegistration(key, it->second, static_index, parent_index);
      }
    }
    std::unique_lock<std::shared_mutex> lock(mutex_);
    auto it = key2index_.find(std::string(key));
    if (it != key2index_.end())
      return CheckSameRegistration(key, it->second, static_index, parent_index);
    // Upstream compatibility: parent -2 means "look up only".
    if (parent_index == -2) return -2;

    TypeEntry* parent = nullptr;
    if (parent_index >= 0) {
      parent = Get(parent_index);
      if (parent == nullptr) {
        Throw("ValueError", "TVMFFITypeGetOrAllocIndex: parent type index ", parent_index,
              " of type `", key, "` is not registered");
      }
      if (depth != parent->info.type_depth + 1) {
        Throw("ValueError", "TVMFFITypeGetOrAllocIndex: type `", key, "` has depth ", depth,
              " but its parent `", parent->key, "` has depth ", parent->info.type_depth);
      }
    } else if (parent_index == -1) {
      if (depth != 0) {
        Throw("ValueError", "TVMFFITypeGetOrAllocIndex: root type `", key,
              "` must have depth 0, got ", depth);
      }
    } else {
      Throw("ValueError", "TVMFFITypeGetOrAllocIndex: invalid parent type index ", parent_index,
            " for type `", key, "`");
    }

    // A dynamic type takes a block of 1 + child_slots indices: inside its
    // parent's reserved block while that has room, else at the end of the
    // table. Upstream's headers (compiled into every client) decide
    // IsInstance<Parent> by "index in [parent, parent + slots]" without asking
    // the runtime, so no other type may ever get an index in that range.
    const int32_t want = 1 + (child_slots > 0 ? child_slots : 0);
    int32_t index;
    if (static_index >= 0) {
      if (static_index >= kMaxTypes) {
        Throw("ValueError", "TVMFFITypeGetOrAllocIndex: static type index ", static_index,
              " of type `", key, "` is out of range");
      }
      if (TypeEntry* other = Get(static_index)) {
        Throw("ValueError", "TVMFFITypeGetOrAllocIndex: static type index ", static_index,
              " requested by `", key, "` is already used by `", other->key, "`");
      }
      index = static_index;
    } else if (parent != nullptr && parent->slots - parent->used >= want) {
      index = parent->info.type_index + parent->used;
      parent->used += want;
    } else {
      if (parent != nullptr && !parent->can_overflow) {
        Throw("ValueError", "TVMFFITypeGetOrAllocIndex: type `", key, "` needs ", want,
              " type indices but its parent `", parent->key, "` has ", parent->slots - parent->used,
              " of its reserved child slots left and cannot overflow");
      }
      int32_t start = next_dynamic_;
      for (int32_t i = start; i < start + want && start < kMaxTypes; ++i) {
        if (i >= kMaxTypes || Get(i) != nullptr) start = i + 1;  // a static index inside
      }
      if (start > kMaxTypes - want) Throw("RuntimeError", "Too many types registered");
      index = start;
      next_dynamic_ = start + want;
    }

    auto entry = std::make_unique<TypeEntry>();
    entry->key.assign(key.data(), key.size());
    if (static_index < 0) {
      entry->slots = want;
      entry->can_overflow = can_overflow;
    }
    if (parent != nullptr) {
      entry->ancestors.assign(parent->ancestors.begin(), parent->ancestors.end());
      entry->ancestors.push_back(&parent->info);
    }
    TVMFFITypeInfo& info = entry->info;
    info.type_index = index;
    info.type_depth = depth;
    info.type_key = TVMFFIByteArray{entry->key.c_str(), entry->key.size()};
    info.type_ancestors = entry->ancestors.empty() ? nullptr : entry->ancestors.data();
    info.type_key_hash = HashTypeKey(key);
    info.num_fields = 0;
    info.num_methods = 0;
    info.fields = nullptr;
    info.methods = nullptr;
    info.metadata = nullptr;

    Publish(index, entry.release());
    key2index_.emplace(std::string(key), index);
    return index;
  }

  void RegisterField(int32_t type_index, const TVMFFIFieldInfo* src) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    TypeEntry* e = GetOrThrow(type_index);
    std::string_view name(src->name.data, src->name.size);
    for (const TVMFFIFieldInfo& f : e->fields) {
      if (std::string_view(f.name.data, f.name.size) == name) {
        Throw("ValueError", "Field `", name, "` is already registered for type `", e->key, "`");
      }
    }
    TVMFFIFieldInfo f = *src;
    f.name = CopyBytes(src->name);
    f.doc = CopyBytes(src->doc);
    f.metadata = CopyBytes(src->metadata);
    bool kept = (src->flags & kTVMFFIFieldFlagBitMaskHasDefault) != 0;
    f.default_value_or_factory = kept ? KeepAny(&src->default_value_or_factory) : TVMFFIAny{};
    try {
      GrowAndPublish(&e->fields, f, &e->info.fields, &e->info.num_fields);
    } catch (...) {
      if (kept) DropLastKept();
      throw;
    }
  }

  void RegisterMethod(int32_t type_index, const TVMFFIMethodInfo* src) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    TypeEntry* e = GetOrThrow(type_index);
    TVMFFIMethodInfo m = *src;
    m.name = CopyBytes(src->name);
    m.doc = CopyBytes(src->doc);
    m.metadata = CopyBytes(src->metadata);
    m.method = KeepAny(&src->method);
    try {
      GrowAndPublish(&e->methods, m, &e->info.methods, &e->info.num_methods);
    } catch (...) {
      DropLastKept();
      throw;
    }
  }

  void RegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* src) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    TypeEntry* e = GetOrThrow(type_index);
    // A fresh record each time, so a reader of the previous one stays valid.
    metadata_pool_.push_back(*src);
    TVMFFITypeMetadata& md = metadata_pool_.back();
    md.doc = CopyBytes(src->doc);
    __atomic_store_n(&e->info.metadata, &md, __ATOMIC_RELEASE);
  }

  void RegisterAttr(int32_t type_index, std::string_view name, const TVMFFIAny* value) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    // The column is made before it is inserted: out of memory must not leave
    // a NULL column that readers would follow.
    auto it = columns_.find(std::string(name));
    if (it == columns_.end()) {
      it = columns_.emplace(std::string(name), std::make_unique<AttrColumn>()).first;
    }
    AttrColumn* col = it->second.get();
    // kTVMFFINone only makes sure the column exists (as upstream does).
    if (type_index == kTVMFFINone) return;
    TypeEntry* e = GetOrThrow(type_index);
    size_t idx = static_cast<size_t>(type_index);
    if (idx < col->values.size() && col->values[idx].type_index != kTVMFFINone) {
      Throw("ValueError", "Type attribute `", name, "` is already set for type `", e->key, "`");
    }
    TVMFFIAny owned = KeepAny(value);
    // Copy on write: a published buffer is never written again, and the old
    // one stays alive, so readers need no lock. The new buffer is published
    // data first, then size (release): a reader that loads size, then data
    // (acquire) always indexes a buffer at least that long. Every allocation
    // comes first, so that running out of memory changes nothing.
    std::vector<TVMFFIAny> next;
    try {
      next.assign(std::max(col->values.size(), idx + 1), TVMFFIAny{});
      retired_columns_.emplace_back();
    } catch (...) {
      DropLastKept();
      throw;
    }
    std::copy(col->values.begin(), col->values.end(), next.begin());
    next[idx] = owned;
    retired_columns_.back().swap(col->values);
    col->values = std::move(next);
    __atomic_store_n(&col->column.data, col->values.data(), __ATOMIC_RELEASE);
    __atomic_store_n(&col->column.size, static_cast<int32_t>(col->values.size()), __ATOMIC_RELEASE);
  }

  const TVMFFITypeAttrColumn* GetAttrColumn(std::string_view name) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = columns_.find(std::string(name));
    if (it == columns_.end()) return nullptr;
    return &it->second->column;
  }

  int32_t IndexEnd() {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    return next_dynamic_;
  }

  // Every registered key, by type index (ffi.GetRegisteredTypeKeys).
  std::vector<std::pair<int32_t, std::string>> Keys() {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    std::vector<std::pair<int32_t, std::string>> out;
    out.reserve(key2index_.size());
    for (const auto& kv : key2index_) out.emplace_back(kv.second, kv.first);
    return out;
  }

 private:
  static constexpr int32_t kChunkBits = 10;
  static constexpr int32_t kChunkSize = 1 << kChunkBits;
  static constexpr int32_t kNumChunks = 1024;
  static constexpr int32_t kMaxTypes = kChunkSize * kNumChunks;

  TypeRegistry() {
    for (auto& c : chunks_) c.store(nullptr, std::memory_order_relaxed);
    for (const auto& t : ::tvm::ffi::detail::kStaticTypes) {
      bool root = t.index < kTVMFFIStaticObjectBegin || t.index == kTVMFFIObject;
      GetOrAlloc(t.key, t.index, root ? 0 : 1, 0, true, root ? -1 : kTVMFFIObject);
    }
    // AnyHash / AnyEqual (any.h) look these up once and keep the pointer.
    for (const char* name : {"__any_hash__", "__any_equal__"}) {
      columns_.emplace(name, std::make_unique<AttrColumn>());
    }
  }

  void Publish(int32_t index, TypeEntry* entry) {
    auto& slot = chunks_[index >> kChunkBits];
    std::atomic<TypeEntry*>* chunk = slot.load(std::memory_order_acquire);
    if (chunk == nullptr) {
      chunk = new std::atomic<TypeEntry*>[kChunkSize];
      for (int32_t i = 0; i < kChunkSize; ++i) chunk[i].store(nullptr, std::memory_order_relaxed);
      slot.store(chunk, std::memory_order_release);
    }
    chunk[index & (kChunkSize - 1)].store(entry, std::memory_order_release);
  }

  // Fields and methods are published as (pointer, count); old arrays are kept
  // so a reader that loaded the previous pair still reads valid memory.
  template <typename T>
  void GrowAndPublish(std::vector<T>* vec, const T& item, const T** out_ptr, int32_t* out_num) {
    std::vector<T> grown;
    grown.reserve(vec->size() + 1);
    grown.assign(vec->begin(), vec->end());
    grown.push_back(item);
    // The retired slot is made before anything moves (out of memory changes nothing).
    auto old = std::make_shared<std::vector<T>>();
    retired_.push_back(old);
    old->swap(*vec);
    *vec = std::move(grown);
    __atomic_store_n(out_ptr, vec->data(), __ATOMIC_RELEASE);
    __atomic_store_n(out_num, static_cast<int32_t>(vec->size()), __ATOMIC_RELEASE);
  }

  TVMFFIByteArray CopyBytes(const TVMFFIByteArray& src) {
    if (src.size == 0 || src.data == nullptr) return TVMFFIByteArray{"", 0};
    strings_.emplace_back(src.data, src.size);
    return TVMFFIByteArray{strings_.back().c_str(), strings_.back().size()};
  }

  // Values registered for reflection live as long as the process.
  TVMFFIAny KeepAny(const TVMFFIAny* view) {
    TVMFFIAny owned;
    if (TVMFFIAnyViewToOwnedAny(view, &owned) != 0) ThrowRaised(-1);
    try {
      kept_.push_back(owned);
    } catch (...) {
      AnyRelease(&owned);
      throw;
    }
    return owned;
  }
  // Undoes the last KeepAny when the registration that needed it failed.
  void DropLastKept() noexcept {
    TVMFFIAny v = kept_.back();
    kept_.pop_back();
    AnyRelease(&v);
  }

  std::shared_mutex mutex_;
  std::atomic<std::atomic<TypeEntry*>*> chunks_[kNumChunks];
  std::unordered_map<std::string, int32_t> key2index_;
  int32_t next_dynamic_ = kTVMFFIDynObjectBegin;
  std::deque<std::string> strings_;
  std::deque<TVMFFIAny> kept_;
  std::deque<TVMFFITypeMetadata> metadata_pool_;
  std::vector<std::shared_ptr<void>> retired_;
  std::vector<std::vector<TVMFFIAny>> retired_columns_;
  std::unordered_map<std::string, std::unique_ptr<AttrColumn>> columns_;
};

}  // namespace

void ThrowNullBytes(const char* func, const char* arg, size_t size) {
  Throw("ValueError", func, ": argument `", arg, "` has NULL data with size ", size);
}

bool ObjectIsInstance(const TVMFFIObject* obj, int32_t type_index) {
  if (obj->type_index == type_index) return true;
  if (type_index == kTVMFFIObject) return obj->type_index >= kTVMFFIStaticObjectBegin;
  TypeRegistry* reg = TypeRegistry::Global();
  const TypeEntry* target = reg->Get(type_index);
  const TypeEntry* self = reg->Get(obj->type_index);
  if (target == nullptr || self == nullptr) return false;
  return ::tvm::ffi::detail::TypeInfoIsSubtype(&self->info, type_index, target->info.type_depth);
}

int32_t TypeIndexEnd() {
  return TypeRegistry::Global()->IndexEnd();
}

std::vector<std::string> RegisteredTypeKeys() {
  std::vector<std::pair<int32_t, std::string>> keys = TypeRegistry::Global()->Keys();
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (auto& k : keys) out.push_back(std::move(k.second));
  return out;
}

std::string TypeIndexToKey(int32_t type_index) {
  const TypeEntry* e = TypeRegistry::Global()->Get(type_index);
  return ::tvm::ffi::detail::TypeKeyOrUnregistered(e == nullptr ? nullptr : &e->info, type_index);
}

// ---------------------------------------------------------------------------
// The process-wide custom allocator (TVMFFIGet/SetCustomAllocator)
// ---------------------------------------------------------------------------

namespace {

// The built-in allocator's block: [padding][offset word][alloc header][body].
// delete_space gets only the body, so the word before the header says how far
// back the block starts; the offset is a multiple of the alignment, >= 16.
constexpr size_t kMinBodyOffset = 2 * sizeof(void*) > 16 ? 2 * sizeof(void*) : 16;

size_t* OffsetWordOf(void* body) {
  return reinterpret_cast<size_t*>(static_cast<char*>(body) - sizeof(TVMFFIObjectAllocHeader)) - 1;
}

void BuiltinDeleteSpace(void* body) {
  if (body == nullptr) return;
  std::free(static_cast<char*>(body) - *OffsetWordOf(body));
}

// A C callback: raises and returns NULL, never throws (even when the message
// itself cannot be allocated).
void* BuiltinAllocate(size_t size, size_t alignment, int32_t, void*) noexcept try {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    SetRaised("ValueError", Concat("TVMFFICustomAllocator (built-in): `alignment` ", alignment,
                                   " is not a power of two"));
    return nullptr;
  }
  size_t offset = alignment > kMinBodyOffset ? alignment : kMinBodyOffset;
  void* base = nullptr;
  if (size > SIZE_MAX - offset || TVMFFI_RT_POSIX_MEMALIGN(&base, offset, offset + size) != 0) {
    SetRaised("MemoryError", Concat("TVMFFICustomAllocator (built-in): cannot allocate ", size,
                                    " bytes aligned to ", alignment));
    return nullptr;
  }
  void* body = static_cast<char*>(base) + offset;
  *OffsetWordOf(body) = offset;
  reinterpret_cast<TVMFFIObjectAllocHeader*>(body)[-1].delete_space = BuiltinDeleteSpace;
  return body;
} catch (...) {
  SetRaised("MemoryError", "TVMFFICustomAllocator (built-in): out of memory");
  return nullptr;
}

TVMFFICustomAllocator kBuiltinAllocator{BuiltinAllocate, nullptr};
std::atomic<TVMFFICustomAllocator*> g_custom_allocator{nullptr};

}  // namespace

std::string DescribeAnyType(const TVMFFIAny& v) {
  if (v.type_index >= kTVMFFIStaticObjectBegin && v.v_obj != nullptr &&
      v.v_obj->type_index != v.type_index) {
    return Concat(TypeIndexToKey(v.type_index), "` tag on an `",
                  TypeIndexToKey(v.v_obj->type_index), "` object");
  }
  return TypeIndexToKey(v.type_index);
}

}  // namespace rt
}  // namespace tvmffi

using namespace tvmffi::rt;

extern "C" {

void TVMFFIGetVersion(TVMFFIVersion* out_version) {
  if (out_version == nullptr) return;
  out_version->major = TVM_FFI_VERSION_MAJOR;
  out_version->minor = TVM_FFI_VERSION_MINOR;
  out_version->patch = TVM_FFI_VERSION_PATCH;
}

int TVMFFIObjectIncRef(TVMFFIObjectHandle obj) {
  if (obj != nullptr) IncRef(static_cast<TVMFFIObject*>(obj));
  return 0;
}

int TVMFFIObjectDecRef(TVMFFIObjectHandle obj) {
  DecRef(static_cast<TVMFFIObject*>(obj));
  return 0;
}

TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void) {
  TVMFFICustomAllocator* a = g_custom_allocator.load(std::memory_order_acquire);
  return a != nullptr ? a : &kBuiltinAllocator;
}

int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator) {
  g_custom_allocator.store(allocator, std::memory_order_release);
  return 0;
}

int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index, void (*deleter)(void* handle),
                             TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(out, "TVMFFIObjectCreateOpaque", "out");
  // OpaquePyObject, or a dynamic type the caller registered for its own handles.
  bool ok =
      type_index == kTVMFFIOpaquePyObject ||
      (type_index >= kTVMFFIDynObjectBegin && TypeRegistry::Global()->Get(type_index) != nullptr);
  if (!ok) {
    Throw(
        "ValueError", "TVMFFIObjectCreateOpaque: type index ", type_index, " (",
        TypeIndexToKey(type_index),
        ") is not an opaque object type (use kTVMFFIOpaquePyObject or a registered dynamic type)");
  }
  auto* obj = reinterpret_cast<OpaqueObject*>(
      AllocObject(sizeof(OpaqueObject), type_index, OpaqueObjectDeleter));
  obj->cell.handle = handle;
  obj->handle_deleter = deleter;
  *out = obj;
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckByteArray(type_key, "TVMFFITypeKeyToIndex", "type_key");
  CheckNotNull(out_tindex, "TVMFFITypeKeyToIndex", "out_tindex");
  *out_tindex = TypeRegistry::Global()->KeyToIndex(ViewOf(type_key));
  TVM_FFI_SAFE_CALL_END();
}

int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key, int32_t static_type_index,
                                  int32_t type_depth, int32_t num_child_slots,
                                  int32_t child_slots_can_overflow, int32_t parent_type_index) {
  try {
    CheckByteArray(type_key, "TVMFFITypeGetOrAllocIndex", "type_key");
    return TypeRegistry::Global()->GetOrAlloc(ViewOf(type_key), static_type_index, type_depth,
                                              num_child_slots, child_slots_can_overflow != 0,
                                              parent_type_index);
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index) {
  if (TypeEntry* e = TypeRegistry::Global()->Get(type_index)) return &e->info;
  SetRaised("KeyError", Concat("Cannot find type info for type index ", type_index));
  return nullptr;
}

int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info) {
  TVM_FFI_SAFE_CALL_BEGIN();
  const char* api = "TVMFFITypeRegisterField";
  CheckNotNull(info, api, "info");
  CheckByteArray(&info->name, api, "info->name");
  CheckByteArray(&info->doc, api, "info->doc");
  CheckByteArray(&info->metadata, api, "info->metadata");
  // The offset is from the Object header, which need not start the class: a
  // class whose first base is not Object (one with a vtable, as in TileLang's
  // compiler) has that base's members before it, at negative offsets.
  // Upstream accepts those, and so do we; size and alignment cannot be negative.
  if (info->size < 0 || info->alignment < 0) {
    Throw("ValueError", api, ": field `", ViewOf(&info->name), "` has size ", info->size,
          ", alignment ", info->alignment, "; neither may be negative");
  }
  TypeRegistry::Global()->RegisterField(type_index, info);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(info, "TVMFFITypeRegisterMethod", "info");
  CheckByteArray(&info->name, "TVMFFITypeRegisterMethod", "info->name");
  CheckByteArray(&info->doc, "TVMFFITypeRegisterMethod", "info->doc");
  CheckByteArray(&info->metadata, "TVMFFITypeRegisterMethod", "info->metadata");
  TypeRegistry::Global()->RegisterMethod(type_index, info);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(metadata, "TVMFFITypeRegisterMetadata", "metadata");
  TypeRegistry::Global()->RegisterMetadata(type_index, metadata);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                           const TVMFFIAny* attr_value) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckByteArray(attr_name, "TVMFFITypeRegisterAttr", "attr_name");
  CheckNotNull(attr_value, "TVMFFITypeRegisterAttr", "attr_value");
  TypeRegistry::Global()->RegisterAttr(type_index, ViewOf(attr_name), attr_value);
  TVM_FFI_SAFE_CALL_END();
}

const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name) {
  if (attr_name == nullptr || (attr_name->data == nullptr && attr_name->size != 0)) return nullptr;
  try {
    return TypeRegistry::Global()->GetAttrColumn(ViewOf(attr_name));
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return nullptr;  // documented as never raising (only bad_alloc can get here)
  }
}

}  // extern "C"
