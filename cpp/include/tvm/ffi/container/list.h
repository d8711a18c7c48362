/*
 * tvmffi C++ layer: List<T>, a mutable sequence (type index 75).
 *
 * The object has the TVM-FFI 0.1 sequence layout, the same as Array's (see
 * the table in seq_base.h): header, then {data, size, capacity,
 * data_deleter}. Unlike an Array, a List keeps its cells apart from the
 * object and always has a data_deleter, because every holder (in this binary
 * or another) mutates the one shared object in place: growth allocates new
 * cells (at least twice the capacity), moves the elements over and frees the
 * old cells with the data_deleter they came with.
 *
 *   List<int64_t> xs = {1, 2};
 *   List<int64_t> alias = xs;   // the same list
 *   alias.push_back(3);         // xs sees 1, 2, 3
 *
 * An Array converts to a List by copying (and a List to an Array, see
 * array.h). Not thread-safe: a List must not be read while it is mutated.
 * Mutation invalidates iterators.
 */
#ifndef TVM_FFI_CONTAINER_LIST_H_
#define TVM_FFI_CONTAINER_LIST_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/container_details.h>
#include <tvm/ffi/container/seq_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief The List object: a SeqBaseObj whose cells live in their own allocation. */
class ListObj : public SeqBaseObj {
 public:
  ListObj() noexcept = default;

  /*! \brief Capacity of a list that starts growing; growth factor. */
  static constexpr int64_t kInitSize = 4;
  static constexpr int64_t kIncFactor = 2;

  /*! \return A new empty list with room for n elements. */
  static ObjectPtr<ListObj> Empty(int64_t n = kInitSize) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "List: negative capacity " << n;
    ObjectPtr<ListObj> p = make_object<ListObj>();
    p->data = n == 0 ? nullptr : ::operator new(sizeof(TVMFFIAny) * static_cast<size_t>(n));
    p->TVMFFISeqCell::capacity = n;
    p->data_deleter = &FreeCells;
    return p;
  }

  /*! \brief Make room for n elements (moves the cells when it grows). */
  void Reserve(int64_t n) {
    if (n <= TVMFFISeqCell::capacity) return;
    void* cells = ::operator new(sizeof(TVMFFIAny) * static_cast<size_t>(n));
    if (TVMFFISeqCell::size != 0) {
      std::memcpy(cells, data, sizeof(TVMFFIAny) * static_cast<size_t>(TVMFFISeqCell::size));
    }
    // The old cells may come from another binary: free them with their own deleter.
    if (data_deleter != nullptr) data_deleter(data);
    data = cells;
    data_deleter = &FreeCells;
    TVMFFISeqCell::capacity = n;
  }
  /*! \brief Make room for `extra` more elements, growing geometrically. */
  void ReserveExtra(int64_t extra) {
    int64_t need = TVMFFISeqCell::size + extra;
    if (need <= TVMFFISeqCell::capacity) return;
    Reserve(std::max(TVMFFISeqCell::capacity * kIncFactor, need));
  }

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIList;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIList, ListObj, Object);

 private:
  static void FreeCells(void* cells) { ::operator delete(cells); }
};

static_assert(sizeof(ListObj) == sizeof(TVMFFIObject) + sizeof(TVMFFISeqCell),
              "ListObj layout: header + TVMFFISeqCell");

/*!
 * \brief A mutable sequence of T, shared by reference (see the top of this file).
 *        T may be Any, or any type an Any can store.
 */
template <typename T, typename>
class List : public ObjectRef {
 public:
  static_assert(details::storage_enabled_v<T>, "List<T>: T must be storable in an Any");
  using value_type = T;
  using iterator = details::IterAdapter<typename Array<T>::ValueConverter, const Any*>;
  using const_iterator = iterator;
  using reverse_iterator = details::ReverseIterAdapter<typename Array<T>::ValueConverter, const Any*>;

  /*! \brief An empty list. */
  List() : ObjectRef(ListObj::Empty(0)) {}
  explicit List(UnsafeInit tag) noexcept : ObjectRef(tag) {}
  explicit List(ObjectPtr<Object> n) noexcept : ObjectRef(std::move(n)) {}
  List(const List& other) noexcept = default;
  List(List&& other) noexcept = default;
  List& operator=(const List& other) = default;
  List& operator=(List&& other) = default;
  /*! \brief From an iterator range of values convertible to T. */
  template <typename IterType,
            typename = std::enable_if_t<!std::is_integral_v<IterType> &&
                                        std::is_convertible_v<decltype(*std::declval<IterType>()), T>>>
  List(IterType first, IterType last) : List() {
    insert(end(), first, last);
  }
  List(std::initializer_list<T> init) : List(init.begin(), init.end()) {}  // NOLINT(*)
  List(const std::vector<T>& init) : List(init.begin(), init.end()) {}     // NOLINT(*)
  /*! \brief n copies of val. */
  List(size_t n, const T& val) : ObjectRef(ListObj::Empty(static_cast<int64_t>(n))) {
    TVMFFIAny cell = details::MakeOwnedCell(T(val));
    ListObj* p = GetListObj();
    for (size_t i = 0; i < n; ++i) p->PushCell(details::CopyCell(cell));
    details::ReleaseCell(&cell);
  }

  // ---- reading ----
  iterator begin() const { return iterator(Base()); }
  iterator end() const { return iterator(Base() + size()); }
  reverse_iterator rbegin() const { return reverse_iterator(Base() + size() - 1); }
  reverse_iterator rend() const { return reverse_iterator(Base() - 1); }
  /*! \return Element i; IndexError naming the index and the size when out of range. */
  T operator[](int64_t i) const { return at(i); }
  T at(int64_t i) const {
    const ListObj* p = Checked(i);
    return details::ElemOps<T>::CopyAfterCheck(p->Cells() + i);
  }
  size_t size() const noexcept {
    const ListObj* p = GetListObj();
    return p == nullptr ? 0 : p->size();
  }
  size_t capacity() const noexcept {
    const ListObj* p = GetListObj();
    return p == nullptr ? 0 : p->capacity();
  }
  bool empty() const noexcept { return size() == 0; }
  /*! \return The first / last element; IndexError when empty. */
  T front() const { return at(0); }
  T back() const { return at(static_cast<int64_t>(size()) - 1); }

  // ---- mutation, in place: every reference sees it ----

  // Room first, then the owned cell: growing may throw, and must not leak it.
  void push_back(const T& item) {
    ListObj* p = Room(1);
    p->PushCell(details::MakeOwnedCell(T(item)));
  }
  template <typename... Args>
  void emplace_back(Args&&... args) {
    ListObj* p = Room(1);
    p->PushCell(details::MakeOwnedCell(T(std::forward<Args>(args)...)));
  }
  /*! \brief Insert val before position. */
  void insert(iterator position, const T& val) {
    int64_t idx = IndexOf(position);
    ListObj* p = Room(1);
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
    ListObj* p;
    try {
      p = Room(count);
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
    if (n == 0) SeqBaseObj::ThrowIndexError(-1, 0, "List");
    GetListObj()->ShrinkTo(n - 1);
  }
  /*! \brief Remove the element at position. */
  void erase(iterator position) {
    int64_t idx = IndexOf(position);
    Checked(idx);
    GetListObj()->EraseRange(idx, idx + 1);
  }
  /*! \brief Remove the elements of [first, last). */
  void erase(iterator first, iterator last) {
    int64_t st = IndexOf(first), ed = IndexOf(last);
    if (st > ed) {
      TVM_FFI_THROW(IndexError) << "List::erase: range [" << st << ", " << ed << ") is reversed";
    }
    if (st != ed) GetListObj()->EraseRange(st, ed);
  }
  /*! \brief Grow (with default-constructed T, None for Any) or shrink to n elements. */
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "List::resize: negative size " << n;
    int64_t cur = static_cast<int64_t>(size());
    if (n <= cur) {
      if (n < cur) GetListObj()->ShrinkTo(n);
      return;
    }
    ListObj* p = Room(n - cur);
    TVMFFIAny fill = details::MakeOwnedCell(Array<T>::DefaultValue());
    for (int64_t i = cur; i < n; ++i) p->PushCell(details::CopyCell(fill));
    details::ReleaseCell(&fill);
  }
  /*! \brief Make room for at least n elements. */
  void reserve(int64_t n) { Obj()->Reserve(n); }
  /*! \brief Remove every element (the capacity stays). */
  void clear() {
    if (data_ != nullptr) GetListObj()->ShrinkTo(0);
  }
  /*! \brief Set element i; IndexError when out of range. */
  void Set(int64_t i, T value) {
    ListObj* p = Checked(i);
    p->SetCell(i, details::MakeOwnedCell(std::move(value)));
  }

  /*! \return The list object (nullptr only for a list made with UnsafeInit). */
  ListObj* GetListObj() const noexcept { return static_cast<ListObj*>(data_.get()); }

  using ContainerType = ListObj;
  static constexpr bool _type_is_nullable = false;

 private:
  const Any* Base() const noexcept {
    const ListObj* p = GetListObj();
    return p == nullptr ? nullptr : p->begin();
  }
  int64_t IndexOf(const iterator& it) const {
    int64_t idx = it.base() - Base();
    if (idx < 0 || idx > static_cast<int64_t>(size())) {
      TVM_FFI_THROW(IndexError) << "List: iterator at " << idx << " is not in this List of size "
                                << size();
    }
    return idx;
  }
  ListObj* Checked(int64_t i) const {
    ListObj* p = GetListObj();
    if (TVM_FFI_PREDICT_FALSE(p == nullptr)) SeqBaseObj::ThrowIndexError(i, 0, "List");
    p->CheckIndex(i);
    return p;
  }
  ListObj* Obj() {
    if (data_ == nullptr) data_ = ListObj::Empty();
    return GetListObj();
  }
  ListObj* Room(int64_t extra) {
    ListObj* p = Obj();
    p->ReserveExtra(extra);
    return p;
  }
};

template <typename T>
inline constexpr bool use_default_type_traits_v<List<T>> = false;

namespace details {
struct ListKind {
  static constexpr int32_t kIndex = TypeIndex::kTVMFFIList;
  static constexpr int32_t kOtherIndex = TypeIndex::kTVMFFIArray;
  static constexpr const char* kName = "List";
  static constexpr const char* kKey = StaticTypeKey::kTVMFFIList;
};
}  // namespace details

// A List value converts from a List (shared: the same mutable object) or from
// an Array (copied into a new List).
template <typename T>
struct TypeTraits<List<T>>
    : public details::SeqTypeTraitsBase<List<T>, T, ListObj, details::ListKind> {};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_LIST_H_
