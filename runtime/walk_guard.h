/*
 * The one rule of the runtime's walkers over values (structural equal, hash
 * and visiting, repr, deep copy, serialization; issue #43): a walker may call
 * user code (a hook such as __s_equal__, __ffi_repr__, __data_to_json__, a
 * walk callback), and that code may change or drop the containers being
 * walked. So:
 *
 *  - a walker never keeps a pointer into a List's or a Dict's storage across
 *    a step that can run user code: it walks a snapshot of the items (strong
 *    references, taken before the first step). Arrays and Maps are
 *    copy-on-write, and the reference the walker holds (the snapshot of the
 *    level above, or the root) keeps them unchanged;
 *  - each level of nesting asks StackNearlyExhausted first (internal.h): a
 *    value nested deeper than the thread's stack allows, or a cycle, is a
 *    ValueError, never a crash.
 */
#ifndef TVMFFI_RUNTIME_WALK_GUARD_H_
#define TVMFFI_RUNTIME_WALK_GUARD_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/map_base.h>
#include <tvm/ffi/container/seq_base.h>

#include <utility>
#include <vector>

#include "internal.h"

namespace tvmffi {
namespace rt {

/*! \brief ValueError: `walker` met a value nested too deeply (or a cycle). */
[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowNestedTooDeep(const char* walker) {
  Throw("ValueError", walker,
        ": the value is nested too deeply for this thread's stack (a cycle, or a chain of "
        "containers or objects thousands of levels deep)");
}

/*! \brief Call before walking one level deeper: throws when the stack is nearly used up. */
inline void EnterLevel(const char* walker) {
  if (TVMFFI_RT_UNLIKELY(StackNearlyExhausted())) ThrowNestedTooDeep(walker);
}

/*! \brief The items of a sequence as a walker that calls out must see them. */
class StableItems {
 public:
  explicit StableItems(const ::tvm::ffi::SeqBaseObj* seq) {
    if (seq->type_index() == ::tvm::ffi::TypeIndex::kTVMFFIList) {
      copy_.assign(seq->begin(), seq->end());
      data_ = copy_.data();
      size_ = copy_.size();
    } else {
      data_ = seq->begin();
      size_ = seq->size();
    }
  }
  const ::tvm::ffi::Any* begin() const { return data_; }
  const ::tvm::ffi::Any* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  const ::tvm::ffi::Any& operator[](size_t i) const { return data_[i]; }

 private:
  std::vector<::tvm::ffi::Any> copy_;
  const ::tvm::ffi::Any* data_ = nullptr;
  size_t size_ = 0;
};

/*! \brief The entries of a map or dict, in iteration order, for a walker that calls out. */
inline std::vector<std::pair<::tvm::ffi::Any, ::tvm::ffi::Any>> StableEntries(
    const ::tvm::ffi::MapBaseObj* map) {
  std::vector<std::pair<::tvm::ffi::Any, ::tvm::ffi::Any>> out;
  out.reserve(map->size());
  for (auto it = map->begin(); it != map->end(); ++it) out.emplace_back(it.key(), it.value());
  return out;
}

}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_WALK_GUARD_H_
