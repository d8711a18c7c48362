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
#include <tvm/ffi/container/container_details.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/seq_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

#include <algorithm>
#include <initializer_list>
#include <iterator>
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

  /*! \return A new empty array with room for n elements. */
  static ObjectPtr<ArrayObj> Empty(int64_t n = kInitSize) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "Array: negative capacity " << n;
    ObjectPtr<ArrayObj> p = make_inplace_array_object<ArrayObj, TVMFFIAny>(static_cast<size_t>(n));
    p->data = reinterpret_cast<char*>(p.get()) + sizeof(ArrayObj);
    p->TVMFFISeqCell::capacity = n;
    return p;
  }
  /*! \return A new array with copies of the elements of `from`, room for max(cap, size). */
  static ObjectPtr<ArrayObj> CopyFrom(int64_t cap, const ArrayObj* from) {
    int64_t n = from->TVMFFISeqCell::size;
    ObjectPtr<ArrayObj> p = Empty(std::max(cap, n));
    const TVMFFIAny* src = from->Cells();
    TVMFFIAny* dst = p->Cells();
    for (int64_t i = 0; i < n; ++i) dst[i] = details::CopyCell(src[i]);
    p->TVMFFISeqCell::size = n;
    return p;
  }
  /*! \return A new array taking over the elements of `from` (left empty), room for max(cap, size). */
  static ObjectPtr<ArrayObj> MoveFrom(int64_t cap, ArrayObj* from) {
    int64_t n = from->TVMFFISeqCell::size;
    ObjectPtr<ArrayObj> p = Empty(std::max(cap, n));
    if (n != 0) std::memcpy(static_cast<void*>(p->Cells()), from->Cells(), sizeof(TVMFFIAny) * n);
    p->TVMFFISeqCell::size = n;
    from->TVMFFISeqCell::size = 0;
    return p;
  }
  /*! \return A new array of n copies of `value`. */
  static ObjectPtr<ArrayObj> CreateRepeated(int64_t n, const Any& value) {
    ObjectPtr<ArrayObj> p = Empty(n);
    TVMFFIAny* dst = p->Cells();
    const TVMFFIAny* src = details::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
    for (int64_t i = 0; i < n; ++i) dst[i] = details::CopyCell(*src);
    p->TVMFFISeqCell::size = n;
    return p;
  }

 private:
  Any* MutableBegin() noexcept { return reinterpret_cast<Any*>(data); }

  template <typename, typename>
  friend class Array;
  template <typename...>
  friend class Tuple;
  template <typename, typename>
  friend struct TypeTraits;
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
template <typename T, typename>
class Array : public ObjectRef {
 public:
  static_assert(details::storage_enabled_v<T>, "Array<T>: T must be storable in an Any");
  using value_type = T;

  /*! \brief Converts a cell to T for the iterators. */
  struct ValueConverter {
    using ResultType = T;
    static T convert(const TVMFFIAny* cell) { return details::ElemOps<T>::CopyAfterCheck(cell); }
    static T convert(const Any* cell) {
      return details::ElemOps<T>::CopyAfterCheck(details::AnyUnsafe::TVMFFIAnyPtrFromAny(*cell));
    }
  };
  using iterator = details::IterAdapter<ValueConverter, const Any*>;
  using const_iterator = iterator;
  using reverse_iterator = details::ReverseIterAdapter<ValueConverter, const Any*>;

  /*! \brief An empty array. */
  Array() : ObjectRef(ArrayObj::Empty(0)) {}
  explicit Array(UnsafeInit tag) noexcept : ObjectRef(tag) {}
  explicit Array(ObjectPtr<Object> n) noexcept : ObjectRef(std::move(n)) {}
  Array(const Array& other) noexcept = default;
  Array(Array&& other) noexcept = default;
  Array& operator=(const Array& other) = default;
  Array& operator=(Array&& other) = default;
  /*! \brief Share the storage of an Array<U> whose elements are valid T (e.g. Array<Any> from Array<int>). */
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> &&
                                                    details::type_subsumes_v<T, U>>>
  Array(const Array<U>& other) noexcept : ObjectRef(other) {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> &&
                                                    details::type_subsumes_v<T, U>>>
  Array(Array<U>&& other) noexcept : ObjectRef(std::move(other)) {}  // NOLINT(*)

  /*! \brief From an iterator range of values convertible to T. */
  template <typename IterType,
            typename = std::enable_if_t<!std::is_integral_v<IterType> &&
                                        std::is_convertible_v<decltype(*std::declval<IterType>()), T>>>
  Array(IterType first, IterType last) : ObjectRef(nullptr) {
    Assign(first, last);
  }
  Array(std::initializer_list<T> init) : ObjectRef(nullptr) {  // NOLINT(*)
    Assign(init.begin(), init.end());
  }
  Array(const std::vector<T>& init) : ObjectRef(nullptr) {  // NOLINT(*)
    Assign(init.begin(), init.end());
  }
  /*! \brief n copies of val. */
  Array(size_t n, const T& val) : ObjectRef(nullptr) {
    data_ = ArrayObj::CreateRepeated(static_cast<int64_t>(n), Any(val));
  }

  // ---- reading ----
  iterator begin() const { return iterator(Base()); }
  iterator end() const { return iterator(Base() + size()); }
  reverse_iterator rbegin() const { return reverse_iterator(Base() + size() - 1); }
  reverse_iterator rend() const { return reverse_iterator(Base() - 1); }

  /*! \return Element i; IndexError naming the index and the size when out of range. */
  T operator[](int64_t i) const { return at(i); }
  /*! \return Element i; IndexError naming the index and the size when out of range. */
  T at(int64_t i) const {
    const ArrayObj* p = GetArrayObj();
    if (TVM_FFI_PREDICT_FALSE(p == nullptr)) ArrayObj::ThrowIndexError(i, 0);
    p->CheckIndex(i);
    return details::ElemOps<T>::CopyAfterCheck(p->Cells() + i);
  }
  size_t size() const noexcept {
    const ArrayObj* p = GetArrayObj();
    return p == nullptr ? 0 : p->size();
  }
  size_t capacity() const noexcept {
    const ArrayObj* p = GetArrayObj();
    return p == nullptr ? 0 : p->capacity();
  }
  bool empty() const noexcept { return size() == 0; }
  /*! \return The first element; IndexError when empty. */
  T front() const { return at(0); }
  /*! \return The last element; IndexError when empty. */
  T back() const { return at(static_cast<int64_t>(size()) - 1); }

  // ---- mutation (copy-on-write) ----

  // Room first, then the owned cell: growing may throw, and must not leak it.
  void push_back(const T& item) {
    ArrayObj* p = CopyOnWrite(1);
    p->PushCell(details::MakeOwnedCell(T(item)));
  }
  template <typename... Args>
  void emplace_back(Args&&... args) {
    ArrayObj* p = CopyOnWrite(1);
    p->PushCell(details::MakeOwnedCell(T(std::forward<Args>(args)...)));
  }
  /*! \brief Insert val before position. */
  void insert(iterator position, const T& val) {
    int64_t idx = IndexOf(position);
    ArrayObj* p = CopyOnWrite(1);
    TVMFFIAny cell = details::MakeOwnedCell(T(val));
    p->OpenGap(idx, 1);
    p->Cells()[idx] = cell;
  }
  /*! \brief Insert the values of [first, last) before position. */
  template <typename IterType>
  void insert(iterator position, IterType first, IterType last) {
    int64_t idx = IndexOf(position);
    std::vector<TVMFFIAny> cells = details::MakeOwnedCells<T>(first, last);
    if (cells.empty()) return;
    int64_t count = static_cast<int64_t>(cells.size());
    ArrayObj* p;
    try {
      p = CopyOnWrite(count);
    } catch (...) {
      details::ReleaseCells(&cells);
      throw;
    }
    p->OpenGap(idx, count);
    std::memcpy(static_cast<void*>(p->Cells() + idx), cells.data(), sizeof(TVMFFIAny) * count);
  }
  /*! \brief Remove the last element; IndexError when empty. */
  void pop_back() {
    int64_t n = static_cast<int64_t>(size());
    if (n == 0) ArrayObj::ThrowIndexError(-1, 0);
    CopyOnWrite()->ShrinkTo(n - 1);
  }
  /*! \brief Remove the element at position. */
  void erase(iterator position) {
    int64_t idx = IndexOf(position);
    if (idx >= static_cast<int64_t>(size())) ArrayObj::ThrowIndexError(idx, size());
    CopyOnWrite()->EraseRange(idx, idx + 1);
  }
  /*! \brief Remove the elements of [first, last). */
  void erase(iterator first, iterator last) {
    int64_t st = IndexOf(first), ed = IndexOf(last);
    if (st > ed) {
      TVM_FFI_THROW(IndexError) << "Array::erase: range [" << st << ", " << ed << ") is reversed";
    }
    if (st == ed) return;
    CopyOnWrite()->EraseRange(st, ed);
  }
  /*!
   * \brief Grow (with default-constructed T, None for Any) or shrink to n elements.
   */
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "Array::resize: negative size " << n;
    int64_t cur = static_cast<int64_t>(size());
    if (n == cur) return;
    if (n < cur) {
      CopyOnWrite()->ShrinkTo(n);
      return;
    }
    ArrayObj* p = CopyOnWrite(n - cur);
    TVMFFIAny fill = details::MakeOwnedCell(DefaultValue());
    for (int64_t i = cur; i < n; ++i) p->PushCell(details::CopyCell(fill));
    details::ReleaseCell(&fill);
  }
  /*! \brief Make room for at least n elements. */
  void reserve(int64_t n) {
    if (n > static_cast<int64_t>(capacity())) SwitchContainer(n);
  }
  /*! \brief Remove every element. */
  void clear() {
    if (data_ == nullptr || empty()) return;
    if (data_.unique()) {
      GetArrayObj()->ShrinkTo(0);
    } else {
      data_ = ArrayObj::Empty(0);
    }
  }
  /*! \brief Set element i (copy-on-write); IndexError when out of range. */
  void Set(int64_t i, T value) {
    const ArrayObj* p = GetArrayObj();
    if (p == nullptr) ArrayObj::ThrowIndexError(i, 0);
    p->CheckIndex(i);
    TVMFFIAny cell = details::MakeOwnedCell(std::move(value));
    CopyOnWrite()->SetCell(i, cell);
  }
  /*! \brief Replace the content with the values of [first, last). */
  template <typename IterType>
  void Assign(IterType first, IterType last) {
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<IterType>::iterator_category>) {
      // Known length: fill a new object directly. If a conversion throws, the
      // object (and the elements pushed so far) is released by its destructor.
      ObjectPtr<ArrayObj> p = ArrayObj::Empty(static_cast<int64_t>(std::distance(first, last)));
      for (; first != last; ++first) p->PushCell(details::MakeOwnedCell(T(*first)));
      data_ = std::move(p);
      return;
    }
    std::vector<TVMFFIAny> cells = details::MakeOwnedCells<T>(first, last);
    int64_t n = static_cast<int64_t>(cells.size());
    ObjectPtr<ArrayObj> p;
    try {
      p = ArrayObj::Empty(n);
    } catch (...) {
      details::ReleaseCells(&cells);
      throw;
    }
    if (n != 0) std::memcpy(static_cast<void*>(p->Cells()), cells.data(), sizeof(TVMFFIAny) * n);
    p->TVMFFISeqCell::size = n;
    data_ = std::move(p);
  }

  /*!
   * \brief Apply fmap to every element.
   * \return A new Array<U> (U is what fmap returns); this array is unchanged.
   */
  template <typename F, typename U = std::invoke_result_t<F, T>>
  Array<U> Map(F fmap) const {
    int64_t n = static_cast<int64_t>(size());
    ObjectPtr<ArrayObj> out = ArrayObj::Empty(n);
    for (int64_t i = 0; i < n; ++i) {
      U mapped = fmap(details::ElemOps<T>::CopyAfterCheck(GetArrayObj()->Cells() + i));
      out->PushCell(details::MakeOwnedCell(std::move(mapped)));
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
    if (empty()) return;
    ArrayObj* p = CopyOnWrite();
    for (int64_t i = 0; i < static_cast<int64_t>(p->size()); ++i) {
      T value = details::ElemOps<T>::MoveAfterCheck(p->Cells() + i);
      p->SetCell(i, details::MakeOwnedCell(T(fmutate(std::move(value)))));
    }
  }

  /*! \brief Make this reference the only one to its object (copying if shared). */
  ArrayObj* CopyOnWrite() {
    if (data_ == nullptr) return SwitchContainer(0);
    if (!data_.unique()) return SwitchContainer(static_cast<int64_t>(capacity()));
    return GetArrayObj();
  }

  /*! \return Whether both hold equal elements (deep for nested arrays and maps). */
  bool operator==(const Array& other) const {
    if (data_ == other.data_) return true;
    size_t n = size();
    if (n != other.size()) return false;
    const TVMFFIAny* a = Base() == nullptr ? nullptr : GetArrayObj()->Cells();
    const TVMFFIAny* b = other.Base() == nullptr ? nullptr : other.GetArrayObj()->Cells();
    for (size_t i = 0; i < n; ++i) {
      if (!details::CellContentEqual(a + i, b + i)) return false;
    }
    return true;
  }
  bool operator!=(const Array& other) const { return !(*this == other); }

  /*! \return The array object (nullptr only for an array made with UnsafeInit). */
  ArrayObj* GetArrayObj() const noexcept { return static_cast<ArrayObj*>(data_.get()); }

  /*! \return One array of every argument: each is a T or an Array<T> (spliced). */
  template <typename... Args>
  static Array<T> Agregate(Args... args) {
    Array<T> result;
    (result.AppendOne(std::move(args)), ...);
    return result;
  }

  using ContainerType = ArrayObj;
  static constexpr bool _type_is_nullable = false;

 private:
  const Any* Base() const noexcept {
    const ArrayObj* p = GetArrayObj();
    return p == nullptr ? nullptr : p->begin();
  }
  int64_t IndexOf(const iterator& position) const {
    int64_t idx = position.base() - Base();
    if (idx < 0 || idx > static_cast<int64_t>(size())) {
      TVM_FFI_THROW(IndexError) << "Array: iterator does not point into this array";
    }
    return idx;
  }
  static T DefaultValue() {
    if constexpr (std::is_same_v<T, Any>) {
      return Any();
    } else if constexpr (std::is_default_constructible_v<T>) {
      return T();
    } else {
      TVM_FFI_THROW(ValueError) << "Array<" << details::ElemOps<T>::TypeStr()
                                << ">::resize cannot grow: the element type has no default";
      TVM_FFI_UNREACHABLE();
    }
  }
  void AppendOne(T value) { push_back(value); }
  void AppendOne(const Array<T>& values) { insert(end(), values.begin(), values.end()); }

  /*! \brief Unique object with room for reserve_extra more elements. */
  ArrayObj* CopyOnWrite(int64_t reserve_extra) {
    ArrayObj* p = GetArrayObj();
    if (p == nullptr) return SwitchContainer(std::max(ArrayObj::kInitSize, reserve_extra));
    int64_t need = p->TVMFFISeqCell::size + reserve_extra;
    if (p->TVMFFISeqCell::capacity >= need) return CopyOnWrite();
    int64_t cap = std::max(p->TVMFFISeqCell::capacity * ArrayObj::kIncFactor, need);
    return SwitchContainer(std::max(cap, ArrayObj::kInitSize));
  }
  /*! \brief Move (unique) or copy (shared) into a new object of the given capacity. */
  ArrayObj* SwitchContainer(int64_t capacity) {
    ArrayObj* p = GetArrayObj();
    if (p == nullptr) {
      data_ = ArrayObj::Empty(capacity);
    } else if (data_.unique()) {
      data_ = ArrayObj::MoveFrom(capacity, p);
    } else {
      data_ = ArrayObj::CopyFrom(capacity, p);
    }
    return GetArrayObj();
  }

  template <typename, typename>
  friend class Array;
  template <typename, typename>
  friend class List;
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

namespace details {
struct ArrayKind {
  static constexpr int32_t kIndex = TypeIndex::kTVMFFIArray;
  static constexpr int32_t kOtherIndex = TypeIndex::kTVMFFIList;
  static constexpr const char* kName = "Array";
  static constexpr const char* kKey = StaticTypeKey::kTVMFFIArray;
};
}  // namespace details

// An Array value converts from an Array, from a List by copying, and from a
// Shape (its extents).
template <typename T>
struct TypeTraits<Array<T>>
    : public details::SeqTypeTraitsBase<Array<T>, T, ArrayObj, details::ArrayKind> {
  using Base = details::SeqTypeTraitsBase<Array<T>, T, ArrayObj, details::ArrayKind>;
  /*! \brief As the base, and a Shape converts to an array of its extents. */
  static std::optional<Array<T>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIShape) return FromShape(src);
    return Base::TryCastFromAnyView(src);
  }

 private:
  static std::optional<Array<T>> FromShape(const TVMFFIAny* src) {
    if constexpr (std::is_same_v<T, Any> ||
                  (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
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
