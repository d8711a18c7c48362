/*
 * tvmffi C++ layer: Array<T>, a copy-on-write sequence (type index 71).
 *
 * Object layout (ABI): the 24-byte header, then TVMFFISeqCell
 * {data, size, capacity, data_deleter}; `data` points at `capacity` TVMFFIAny
 * cells of which the first `size` are owned elements. Arrays made here keep
 * the cells in the same allocation, right after the cell (data_deleter is
 * NULL); arrays made elsewhere may keep them apart, so this code only ever
 * reaches the elements through `data`. Other binaries read data/size inline.
 *
 * Array<T> is a reference: copying it shares the object. Mutating methods
 * (push_back, Set, insert, erase, resize, ...) change the object in place
 * when this reference is the only one, and otherwise copy it first, so a
 * shared array never changes under another holder. Growth moves the
 * elements to a new, larger object (amortised doubling).
 *
 *   Array<int64_t> shape = {2, 3};
 *   Array<int64_t> other = shape;   // shares
 *   other.push_back(4);             // copies: shape is still {2, 3}
 *
 * Any(Array<int>{1, 2}).cast<Array<String>>() throws TypeError
 * "Cannot convert from type `Array[index 0: int]` to `Array<str>`".
 */
#ifndef TVM_FFI_CONTAINER_ARRAY_H_
#define TVM_FFI_CONTAINER_ARRAY_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/seq_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

template <typename T, typename = void>
class Array;
template <typename T, typename = void>
class List;
template <typename... Types>
class Tuple;

/*! \brief The Array object: a SeqBaseObj whose elements are inline after it. */
class ArrayObj : public SeqBaseObj {
 public:
  ArrayObj() noexcept = default;

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIArray;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIArray, ArrayObj, Object);

  // ---- construction and mutation (used by Array<T> and Tuple; `this` must be unique) ----

  /*! \brief Initial capacity of an array that starts growing. */
  static constexpr int64_t kInitSize = 4;
  /*! \brief Growth factor. */
  static constexpr int64_t kIncFactor = 2;
  /*!
   * \brief Growth factor below kSmallCapacity cells: a short array reaches
   *        its size in fewer allocations.
   */
  static constexpr int64_t kSmallIncFactor = 4;
  static constexpr int64_t kSmallCapacity = 16;
  /*!
   * \brief Arrays from this many cells on grow with std::realloc (GrowInPlace);
   *        smaller ones move to a new block, which the allocator's per-size
   *        caches serve faster than a realloc of a small block.
   */
  static constexpr int64_t kReallocMinCells = 64;

  /*!
   * \return A new empty array with room for n elements. Its memory comes from
   *         std::malloc (freed by Deleter) so that a unique array of this
   *         binary can grow with std::realloc (GrowInPlace).
   */
  static ObjectPtr<ArrayObj> Empty(int64_t n = kInitSize) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "Array: negative capacity " << n;
    void* mem = std::malloc(BytesFor(n));
    if (mem == nullptr) throw std::bad_alloc();
    ArrayObj* p = new (mem) ArrayObj();
    detail::InitObjectHeader(detail::ObjectUnsafe::GetHeader(p), RuntimeTypeIndex(), &Deleter);
    p->data = p->InlineCells();
    p->TVMFFISeqCell::capacity = n;
    return detail::ObjectUnsafe::ObjectPtrFromOwned<ArrayObj>(static_cast<Object*>(p));
  }
  /*!
   * \brief Grow `*ref`'s array to `capacity` cells where its memory allows
   *        it: std::realloc extends the block in place when the heap has room
   *        after it (no element moves), else moves the bytes once. Only for an
   *        array this binary made (Empty's deleter), with its cells inline, one
   *        strong and no weak reference (the object's address may change).
   * \return Whether it grew; false leaves everything as it was.
   */
  static bool GrowInPlace(ObjectPtr<Object>* ref, int64_t capacity) {
    ArrayObj* p = static_cast<ArrayObj*>(ref->get());
    if (!p->IsOwnBlock()) return false;
    void* mem = std::realloc(static_cast<void*>(p), BytesFor(capacity));
    if (mem == nullptr) throw std::bad_alloc();
    // The old address is gone: take the (only) reference over without
    // touching the count, then re-point the cells.
    (void)detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(*ref));
    p = static_cast<ArrayObj*>(mem);
    p->data = p->InlineCells();
    p->TVMFFISeqCell::capacity = capacity;
    *ref = detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<Object*>(p));
    return true;
  }
  /*! \return A new array with copies of the elements of `from`, room for max(cap, size). */
  static ObjectPtr<ArrayObj> CopyFrom(int64_t cap, const ArrayObj* from) {
    int64_t n = from->TVMFFISeqCell::size;
    ObjectPtr<ArrayObj> p = Empty(detail::LargerSize(cap, n));
    detail::CopyCells(p->Cells(), from->Cells(), n);
    p->TVMFFISeqCell::size = n;
    return p;
  }
  /*!
   * \brief Move the elements of `*ref`'s array (unique) into a new one with
   *        room for max(capacity, size). The old one, left empty, is freed
   *        at once when it is a block of this binary nobody else can see.
   */
  static void MoveTo(ObjectPtr<Object>* ref, int64_t capacity) {
    ArrayObj* old = static_cast<ArrayObj*>(ref->get());
    ObjectPtr<ArrayObj> fresh = MoveFrom(capacity, old);
    if (old->IsOwnBlock()) {
      (void)detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(*ref));
      std::free(static_cast<void*>(old));  // empty, cells inline: nothing to destroy
    }
    *ref = std::move(fresh);
  }
  /*! \return A new array taking over the elements of `from` (left empty), room for max(cap, size).
   */
  static ObjectPtr<ArrayObj> MoveFrom(int64_t cap, ArrayObj* from) {
    int64_t n = from->TVMFFISeqCell::size;
    ObjectPtr<ArrayObj> p = Empty(detail::LargerSize(cap, n));
    if (n != 0)
      std::memcpy(static_cast<void*>(p->Cells()), from->Cells(),
                  sizeof(TVMFFIAny) * static_cast<size_t>(n));
    p->TVMFFISeqCell::size = n;
    from->TVMFFISeqCell::size = 0;
    return p;
  }
  /*! \return A new array of n copies of `value`. */
  static ObjectPtr<ArrayObj> CreateRepeated(int64_t n, const Any& value) {
    ObjectPtr<ArrayObj> p = Empty(n);
    TVMFFIAny* dst = p->Cells();
    const TVMFFIAny* src = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
    for (int64_t i = 0; i < n; ++i) dst[i] = detail::CopyCell(*src);
    p->TVMFFISeqCell::size = n;
    return p;
  }

 private:
  /*! \brief Bytes of an array object with n inline cells; bad_alloc past what size_t holds. */
  static size_t BytesFor(int64_t n) {
    constexpr size_t kMaxCells = (~static_cast<size_t>(0) - sizeof(ArrayObj)) / sizeof(TVMFFIAny);
    if (static_cast<uint64_t>(n) > kMaxCells) throw std::bad_alloc();
    return sizeof(ArrayObj) + sizeof(TVMFFIAny) * static_cast<size_t>(n);
  }
  /*!
   * \return Whether this is a block of this binary (Empty's deleter) with
   *         its cells inline and one strong and no weak reference: the
   *         caller's, so the memory may move or go.
   */
  bool IsOwnBlock() noexcept {
    TVMFFIObject* header = detail::ObjectUnsafe::GetHeader(this);
    return header->deleter == &Deleter && data == InlineCells() &&
           __atomic_load_n(&header->combined_ref_count, __ATOMIC_ACQUIRE) ==
               detail::kCombinedRefCountBothOne;
  }
  /*! \return Where the inline cells start (right after the object). */
  void* InlineCells() noexcept { return reinterpret_cast<char*>(this) + sizeof(ArrayObj); }
  /*! \brief The deleter of arrays made by Empty in this binary (memory from std::malloc). */
  static void Deleter(void* self, int flags) {
    ArrayObj* p =
        detail::ObjectUnsafe::RawObjectPtrFromUnowned<ArrayObj>(static_cast<TVMFFIObject*>(self));
    if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) p->ArrayObj::~ArrayObj();
    if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) std::free(static_cast<void*>(p));
  }
};

static_assert(sizeof(ArrayObj) == sizeof(TVMFFIObject) + sizeof(TVMFFISeqCell),
              "ArrayObj layout: header + TVMFFISeqCell");

/*!
 * \brief A sequence of T with copy-on-write sharing (see the top of this file).
 *
 * Element reads return T by value. T may be Any, a POD type (int64_t,
 * double, bool, DLDataType, ...), String, an object reference (Tensor,
 * Function, Array<U>, ...) or Optional of those.
 */
template <typename T, typename E>
class Array : public detail::SeqRefBase<Array<T, E>, T, ArrayObj, detail::ArrayKind> {
  using SeqBase = detail::SeqRefBase<Array<T, E>, T, ArrayObj, detail::ArrayKind>;

 public:
  using typename SeqBase::iterator;

  /*! \brief An empty array, with room for kInitSize elements (an array that
   *         starts empty is usually filled next: one allocation fewer). */
  Array() : SeqBase(ArrayObj::Empty(ArrayObj::kInitSize)) {}
  explicit Array(UnsafeInit tag) noexcept : SeqBase(tag) {}
  explicit Array(ObjectPtr<Object> n) noexcept : SeqBase(std::move(n)) {}
  Array(const Array& other) noexcept = default;
  Array(Array&& other) noexcept = default;
  Array& operator=(const Array& other) = default;
  Array& operator=(Array&& other) = default;
  /*! \brief Share the storage of an Array<U> whose elements are valid T (e.g. Array<Any> from
   * Array<int>). */
  template <typename U, typename = std::enable_if_t<detail::shares_as_v<Array, Array<U>>>>
  Array(const Array<U>& other) noexcept : SeqBase(other) {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<detail::shares_as_v<Array, Array<U>>>>
  Array(Array<U>&& other) noexcept : SeqBase(std::move(other)) {}  // NOLINT(*)

  /*! \brief From an iterator range of values convertible to T. */
  template <typename IterType, typename = std::enable_if_t<
                                   !std::is_integral_v<IterType> &&
                                   std::is_convertible_v<decltype(*std::declval<IterType>()), T>>>
  Array(IterType first, IterType last) : SeqBase(nullptr) {
    Assign(first, last);
  }
  Array(std::initializer_list<T> init) : SeqBase(nullptr) {  // NOLINT(*)
    Assign(init.begin(), init.end());
  }
  Array(const std::vector<T>& init) : SeqBase(nullptr) {  // NOLINT(*)
    Assign(init.begin(), init.end());
  }
  /*! \brief n copies of val. */
  Array(size_t n, const T& val) : SeqBase(nullptr) {
    this->data_ = ArrayObj::CreateRepeated(static_cast<int64_t>(n), Any(val));
  }

  // Reading, push_back, insert, erase, resize, Set...: SeqRefBase, copy-on-write
  // through MakeRoom.

  /*! \brief Make room for at least n elements. */
  void reserve(int64_t n) {
    if (n > static_cast<int64_t>(this->capacity())) SwitchContainer(n);
  }
  /*! \brief Remove every element. */
  void clear() {
    if (this->data_ == nullptr || this->empty()) return;
    if (this->data_.unique()) {
      GetArrayObj()->ShrinkTo(0);
    } else {
      this->data_ = ArrayObj::Empty(0);
    }
  }
  /*! \brief Replace the content with the values of [first, last). */
  template <typename IterType>
  void Assign(IterType first, IterType last) {
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<IterType>::iterator_category>) {
      // Known length: fill a new object directly. If a conversion throws, the
      // object (and the elements pushed so far) is released by its destructor.
      ObjectPtr<ArrayObj> p = ArrayObj::Empty(static_cast<int64_t>(std::distance(first, last)));
      for (; first != last; ++first) p->PushCell(detail::MakeOwnedCell(T(*first)));
      this->data_ = std::move(p);
      return;
    }
    std::vector<TVMFFIAny> cells = detail::MakeOwnedCells<T>(first, last);
    int64_t n = static_cast<int64_t>(cells.size());
    ObjectPtr<ArrayObj> p;
    try {
      p = ArrayObj::Empty(n);
    } catch (...) {
      detail::ReleaseCells(&cells);
      throw;
    }
    if (n != 0)
      std::memcpy(static_cast<void*>(p->Cells()), cells.data(),
                  sizeof(TVMFFIAny) * static_cast<size_t>(n));
    p->TVMFFISeqCell::size = n;
    this->data_ = std::move(p);
  }

  /*!
   * \brief Apply fmap to every element.
   * \return A new Array<U> (U is what fmap returns); this array is unchanged.
   */
  template <typename F, typename U = std::invoke_result_t<F, T>>
  Array<U> Map(F fmap) const {
    int64_t n = static_cast<int64_t>(this->size());
    ObjectPtr<ArrayObj> out = ArrayObj::Empty(n);
    for (int64_t i = 0; i < n; ++i) {
      U mapped = fmap(detail::ElemOps<T>::CopyAfterCheck(GetArrayObj()->Cells() + i));
      out->PushCell(detail::MakeOwnedCell(std::move(mapped)));
    }
    return Array<U>(ObjectPtr<Object>(std::move(out)));
  }
  /*!
   * \brief Replace every element x by fmutate(x), in place when unique.
   *        Each element is handed over by value (its old cell released first),
   *        so fmutate may itself mutate it without a copy. If fmutate throws,
   *        the element being mutated is left as None.
   */
  template <typename F, typename = std::enable_if_t<std::is_same_v<T, std::invoke_result_t<F, T>>>>
  void MutateByApply(F fmutate) {
    if (this->empty()) return;
    ArrayObj* p = CopyOnWrite();
    for (int64_t i = 0; i < static_cast<int64_t>(p->size()); ++i) {
      T value = detail::ElemOps<T>::MoveAfterCheck(p->Cells() + i);
      p->SetCell(i, detail::MakeOwnedCell(T(fmutate(std::move(value)))));
    }
  }

  /*! \brief Make this reference the only one to its object (copying if shared). */
  ArrayObj* CopyOnWrite() {
    if (this->data_ == nullptr) return SwitchContainer(0);
    if (!this->data_.unique()) return SwitchContainer(static_cast<int64_t>(this->capacity()));
    return GetArrayObj();
  }

  /*! \return Whether both hold equal elements (deep for nested arrays and maps). */
  bool operator==(const Array& other) const {
    if (this->data_ == other.data_) return true;
    size_t n = this->size();
    if (n != other.size()) return false;
    const TVMFFIAny* a = this->Base() == nullptr ? nullptr : GetArrayObj()->Cells();
    const TVMFFIAny* b = other.Base() == nullptr ? nullptr : other.GetArrayObj()->Cells();
    for (size_t i = 0; i < n; ++i) {
      if (!detail::CellContentEqual(a + i, b + i)) return false;
    }
    return true;
  }
  bool operator!=(const Array& other) const { return !(*this == other); }

  /*! \return The array object (nullptr only for an array made with UnsafeInit). */
  ArrayObj* GetArrayObj() const noexcept { return this->Obj(); }

  /*! \return One array of every argument: each is a T or an Array<T> (spliced). */
  template <typename... Args>
  static Array<T> Agregate(Args... args) {
    Array<T> result;
    (result.AppendOne(std::move(args)), ...);
    return result;
  }

 private:
  void AppendOne(T value) { this->push_back(value); }
  void AppendOne(const Array<T>& values) {
    this->insert(this->end(), values.begin(), values.end());
  }

  /*! \brief The mutation policy: a unique object with room for `extra` more elements. */
  ArrayObj* MakeRoom(int64_t extra) {
    ArrayObj* p = GetArrayObj();
    if (p == nullptr) return SwitchContainer(detail::LargerSize(ArrayObj::kInitSize, extra));
    int64_t need = p->TVMFFISeqCell::size + extra;
    if (p->TVMFFISeqCell::capacity >= need) return CopyOnWrite();
    int64_t old_cap = p->TVMFFISeqCell::capacity;
    int64_t factor =
        old_cap < ArrayObj::kSmallCapacity ? ArrayObj::kSmallIncFactor : ArrayObj::kIncFactor;
    int64_t cap = detail::LargerSize(old_cap * factor, need);
    return SwitchContainer(detail::LargerSize(cap, ArrayObj::kInitSize));
  }
  /*! \brief Grow (unique) or copy (shared) into an object of the given capacity. */
  ArrayObj* SwitchContainer(int64_t capacity) {
    ArrayObj* p = GetArrayObj();
    if (p == nullptr) {
      this->data_ = ArrayObj::Empty(capacity);
    } else if (this->data_.unique()) {
      if (capacity < ArrayObj::kReallocMinCells || capacity < p->TVMFFISeqCell::size ||
          !ArrayObj::GrowInPlace(&this->data_, capacity)) {
        ArrayObj::MoveTo(&this->data_, capacity);
      }
    } else {
      this->data_ = ArrayObj::CopyFrom(capacity, p);
    }
    return GetArrayObj();
  }

  friend SeqBase;
  template <typename, typename>
  friend class Array;
};

/*! \return lhs followed by rhs (lhs is copied first if shared). */
template <typename T>
inline Array<T> Concat(Array<T> lhs, const Array<T>& rhs) {
  lhs.insert(lhs.end(), rhs.begin(), rhs.end());
  return lhs;
}

// ---------------------------------------------------------------------------
// TypeTraits: an Array Any converts to Array<T> when every element converts to
// T (a new array is built only when some element needs converting). A Shape
// converts to an Array of integers.
// ---------------------------------------------------------------------------

template <typename T>
inline constexpr bool use_default_type_traits_v<Array<T>> = false;

// An Array value converts from an Array, from a List by copying, and from a
// Shape (its extents).
template <typename T>
struct TypeTraits<Array<T>>
    : public detail::SeqTypeTraitsBase<Array<T>, T, ArrayObj, detail::ArrayKind> {
  using Base = detail::SeqTypeTraitsBase<Array<T>, T, ArrayObj, detail::ArrayKind>;
  /*! \brief As the base, and a Shape converts to an array of its extents. */
  static std::optional<Array<T>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIShape) return FromShape(src);
    return Base::TryCastFromAnyView(src);
  }

 private:
  static std::optional<Array<T>> FromShape(const TVMFFIAny* src) {
    if constexpr (std::is_same_v<T, Any> || (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
      const TVMFFIShapeCell* shape = TVMFFIShapeGetCellPtr(src->v_obj);
      ObjectPtr<ArrayObj> out = ArrayObj::Empty(static_cast<int64_t>(shape->size));
      for (size_t i = 0; i < shape->size; ++i) {
        TVMFFIAny cell;
        cell.type_index = TypeIndex::kTVMFFIInt;
        cell.zero_padding = 0;
        cell.v_int64 = shape->data[i];
        out->PushCell(cell);
      }
      return Array<T>(ObjectPtr<Object>(std::move(out)));
    } else {
      (void)src;
      return std::nullopt;
    }
  }
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_ARRAY_H_
