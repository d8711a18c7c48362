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
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/container/seq_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>

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
    Reserve(detail::LargerSize(TVMFFISeqCell::capacity * kIncFactor, need));
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
template <typename T, typename E>
class List : public detail::SeqRefBase<List<T, E>, T, ListObj, detail::ListKind> {
  using SeqBase = detail::SeqRefBase<List<T, E>, T, ListObj, detail::ListKind>;

 public:
  using typename SeqBase::iterator;

  /*! \brief An empty list. */
  List() : SeqBase(ListObj::Empty(0)) {}
  explicit List(UnsafeInit tag) noexcept : SeqBase(tag) {}
  explicit List(ObjectPtr<Object> n) noexcept : SeqBase(std::move(n)) {}
  List(const List& other) noexcept = default;
  List(List&& other) noexcept = default;
  List& operator=(const List& other) = default;
  List& operator=(List&& other) = default;
  /*!
   * \brief Share the list of a List<U> whose elements are valid T (e.g. List<Any>
   *        from List<int>). Both then mutate the one list; a List<U> read of an
   *        element that is no U (stored through the wider reference) throws TypeError.
   */
  template <typename U, typename = std::enable_if_t<detail::shares_as_v<List, List<U>>>>
  List(const List<U>& other) noexcept : SeqBase(other) {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<detail::shares_as_v<List, List<U>>>>
  List(List<U>&& other) noexcept : SeqBase(std::move(other)) {}  // NOLINT(*)
  /*! \brief From an iterator range of values convertible to T. */
  template <typename IterType, typename = std::enable_if_t<
                                   !std::is_integral_v<IterType> &&
                                   std::is_convertible_v<decltype(*std::declval<IterType>()), T>>>
  List(IterType first, IterType last) : List() {
    this->insert(this->end(), first, last);
  }
  List(std::initializer_list<T> init) : List(init.begin(), init.end()) {}  // NOLINT(*)
  List(const std::vector<T>& init) : List(init.begin(), init.end()) {}     // NOLINT(*)
  /*! \brief n copies of val. */
  List(size_t n, const T& val) : SeqBase(ListObj::Empty(static_cast<int64_t>(n))) {
    TVMFFIAny cell = detail::MakeOwnedCell(T(val));
    ListObj* p = GetListObj();
    for (size_t i = 0; i < n; ++i) p->PushCell(detail::CopyCell(cell));
    detail::ReleaseCell(&cell);
  }

  // Reading, push_back, insert, erase, resize, Set...: SeqRefBase, in place
  // (every reference sees it) through MakeRoom.

  /*! \brief Make room for at least n elements. */
  void reserve(int64_t n) { MakeRoom(0)->Reserve(n); }
  /*! \brief Remove every element (the capacity stays). */
  void clear() {
    if (this->data_ != nullptr) GetListObj()->ShrinkTo(0);
  }

  /*! \return The list object (nullptr only for a list made with UnsafeInit). */
  ListObj* GetListObj() const noexcept { return this->Obj(); }

 private:
  /*! \brief The mutation policy: this one object, grown in place to hold `extra` more. */
  ListObj* MakeRoom(int64_t extra) {
    if (this->data_ == nullptr) this->data_ = ListObj::Empty();
    ListObj* p = GetListObj();
    p->ReserveExtra(extra);
    return p;
  }

  friend SeqBase;
};

template <typename T>
inline constexpr bool use_default_type_traits_v<List<T>> = false;

// A List value converts from a List (shared: the same mutable object) or from
// an Array (copied into a new List).
template <typename T>
struct TypeTraits<List<T>>
    : public detail::SeqTypeTraitsBase<List<T>, T, ListObj, detail::ListKind> {};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_LIST_H_
