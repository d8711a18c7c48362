/*
 * tvmffi C++ layer: SeqBaseObj, the storage shared by Array (type index 71)
 * and List (type index 75).
 *
 * Object layout (ABI, the same for both types):
 *
 * | offset | field        | type             | meaning                                  |
 * |--------|--------------|------------------|------------------------------------------|
 * | 0      | header       | TVMFFIObject     | type index 71 (Array) or 75 (List)       |
 * | 24     | data         | void*            | `capacity` TVMFFIAny cells               |
 * | 32     | size         | int64_t          | the first `size` cells are owned elements |
 * | 40     | capacity     | int64_t          | number of cells at `data`                |
 * | 48     | data_deleter | void (*)(void*)  | frees `data`; NULL when `data` is inline |
 *
 * Other binaries read data/size inline, and may grow a List in place: they
 * allocate new cells, move the elements and call data_deleter(old data), so a
 * List always has a data_deleter (which accepts NULL). The object's deleter
 * releases the `size` elements, then calls data_deleter(data) when set.
 */
#ifndef TVM_FFI_CONTAINER_SEQ_BASE_H_
#define TVM_FFI_CONTAINER_SEQ_BASE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief Header + TVMFFISeqCell (see the top of this file). No type index of its own. */
class SeqBaseObj : public Object, public TVMFFISeqCell {
 public:
  SeqBaseObj() noexcept {
    data = nullptr;
    TVMFFISeqCell::size = 0;
    TVMFFISeqCell::capacity = 0;
    data_deleter = nullptr;
  }
  SeqBaseObj(const SeqBaseObj&) = delete;
  SeqBaseObj& operator=(const SeqBaseObj&) = delete;
  ~SeqBaseObj() {
    TVMFFIAny* cells = Cells();
    int64_t n = TVMFFISeqCell::size;
    // Plain values need nothing: only the cells from the first block that may
    // hold an object on are released (none are reset: the object is dying).
    int64_t first = detail::PlainPrefix(cells, n);
    if (first < n) DropCells(cells + first, n - first);
    if (data_deleter != nullptr) data_deleter(data);
  }

  /*! \return The number of elements. */
  size_t size() const noexcept { return static_cast<size_t>(TVMFFISeqCell::size); }
  /*! \return The number of element slots. */
  size_t capacity() const noexcept { return static_cast<size_t>(TVMFFISeqCell::capacity); }
  bool empty() const noexcept { return TVMFFISeqCell::size == 0; }
  const Any* begin() const noexcept { return reinterpret_cast<const Any*>(data); }
  const Any* end() const noexcept { return begin() + TVMFFISeqCell::size; }
  /*! \return Element i (unchecked). */
  const Any& operator[](int64_t i) const noexcept { return begin()[i]; }
  /*! \return Element i; IndexError naming the index and the size when out of range. */
  const Any& at(int64_t i) const {
    CheckIndex(i);
    return begin()[i];
  }
  /*! \return The first element; IndexError when empty. */
  const Any& front() const { return at(0); }
  /*! \return The last element; IndexError when empty. */
  const Any& back() const { return at(TVMFFISeqCell::size - 1); }
  /*!
   * \brief Replace element i in place (upstream's name); IndexError when out of
   *        range. The object must not be shared: Array<T>::Set copies on write.
   */
  void SetItem(int64_t i, Any item) {
    CheckIndex(i);
    SetCell(i, detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(item)));
  }

  // ---- in-place edits of this object (upstream's names). The object must not
  // be shared with a holder that expects it unchanged (List: every holder sees
  // the edit); growing ones need the room already there (List::reserve). ----

  /*! \brief Remove the last element; IndexError when empty. */
  void pop_back() {
    if (TVMFFISeqCell::size == 0) ThrowIndexError(-1, 0, KindName());
    ShrinkTo(TVMFFISeqCell::size - 1);
  }
  /*! \brief Remove element idx; IndexError unless 0 <= idx < size. */
  void erase(int64_t idx) {
    CheckIndex(idx);
    EraseRange(idx, idx + 1);
  }
  /*! \brief Remove elements [first, last); IndexError unless 0 <= first <= last <= size. */
  void erase(int64_t first, int64_t last) {
    if (first < 0 || first > last || last > TVMFFISeqCell::size) {
      TVM_FFI_THROW(IndexError) << KindName() << "::erase: range [" << first << ", " << last
                                << ") is not within " << Article() << KindName() << " of size "
                                << TVMFFISeqCell::size;
    }
    if (first != last) EraseRange(first, last);
  }
  /*!
   * \brief Insert item before element idx (idx == size appends); IndexError
   *        unless 0 <= idx <= size, ValueError when there is no room.
   */
  void insert(int64_t idx, Any item) {
    if (idx < 0 || idx > TVMFFISeqCell::size) {
      TVM_FFI_THROW(IndexError) << KindName() << "::insert: index " << idx << " is not within [0, "
                                << TVMFFISeqCell::size << "]";
    }
    RequireRoom(1);
    OpenGap(idx, 1);
    Cells()[idx] = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(item));
  }
  /*!
   * \brief Shrink to n elements, or grow with None; ValueError when n < 0 or
   *        there is no room.
   */
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << KindName() << "::resize: negative size " << n;
    if (n <= TVMFFISeqCell::size) {
      ShrinkTo(n);
      return;
    }
    RequireRoom(n - TVMFFISeqCell::size);
    OpenGap(TVMFFISeqCell::size, n - TVMFFISeqCell::size);
  }
  /*! \brief ValueError unless `extra` more elements fit in the capacity. */
  void RequireRoom(int64_t extra) const {
    if (extra > TVMFFISeqCell::capacity - TVMFFISeqCell::size) {
      TVM_FFI_THROW(ValueError) << KindName() << ": no room for " << extra
                                << " more element(s) (size " << TVMFFISeqCell::size << ", capacity "
                                << TVMFFISeqCell::capacity << "); reserve first";
    }
  }

  /*! \brief IndexError unless 0 <= i < size. */
  TVM_FFI_INLINE void CheckIndex(int64_t i) const {
    if (TVM_FFI_PREDICT_FALSE(i < 0 || i >= TVMFFISeqCell::size)) {
      ThrowIndexError(i, TVMFFISeqCell::size, KindName());
    }
  }
  /*! \return "List" or "Array", for messages. */
  const char* KindName() const noexcept {
    return header_.type_index == TypeIndex::kTVMFFIList ? "List" : "Array";
  }
  const char* Article() const noexcept {
    return header_.type_index == TypeIndex::kTVMFFIList ? "a " : "an ";
  }
  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowIndexError(int64_t i, int64_t n,
                                                             const char* kind = "Array") {
    const char* article = kind[0] == 'A' ? "an " : "a ";
    TVM_FFI_THROW(IndexError) << kind << " index " << i << " out of range for " << article << kind
                              << " of size " << n;
  }

  // ---- low level, for the containers' own code: `this` must be unique ----

  /*! \brief Release n owned cells of a dying container (left as they are). */
  TVM_FFI_NOINLINE static void DropCells(const TVMFFIAny* cells, int64_t n) noexcept {
    // Bounded recursion: a chain of nested containers is released in a loop.
    detail::ContainerReleaseScope release;
    for (int64_t i = 0; i < n; ++i) release.Drop(cells[i]);
  }

  /*! \return The cells. */
  TVMFFIAny* Cells() const noexcept { return static_cast<TVMFFIAny*>(data); }
  /*! \brief Append an owned cell, taking it over (capacity must allow it). */
  void PushCell(TVMFFIAny cell) noexcept { Cells()[TVMFFISeqCell::size++] = cell; }
  /*! \brief Replace element i with an owned cell (the old one is released last). */
  void SetCell(int64_t i, TVMFFIAny cell) {
    TVMFFIAny old = Cells()[i];
    Cells()[i] = cell;
    detail::ReleaseCell(&old);
  }
  /*! \brief Open a gap of `count` None cells at `idx` (capacity must allow it). */
  void OpenGap(int64_t idx, int64_t count) noexcept {
    TVMFFIAny* cells = Cells();
    int64_t n = TVMFFISeqCell::size;
    std::memmove(static_cast<void*>(cells + idx + count), cells + idx,
                 sizeof(TVMFFIAny) * static_cast<size_t>(n - idx));
    for (int64_t i = idx; i < idx + count; ++i) detail::SetAnyNone(cells + i);
    TVMFFISeqCell::size = n + count;
  }
  /*! \brief Remove elements [first, last). */
  void EraseRange(int64_t first, int64_t last) {
    TVMFFIAny* cells = Cells();
    int64_t n = TVMFFISeqCell::size;
    // Take the cells out before releasing them: a destructor may run arbitrary code.
    std::vector<TVMFFIAny> doomed(cells + first, cells + last);
    std::memmove(static_cast<void*>(cells + first), cells + last,
                 sizeof(TVMFFIAny) * static_cast<size_t>(n - last));
    TVMFFISeqCell::size = n - (last - first);
    for (TVMFFIAny& cell : doomed) detail::ReleaseCell(&cell);
  }
  /*! \brief Shrink to n elements. */
  void ShrinkTo(int64_t n) {
    if (n < TVMFFISeqCell::size) EraseRange(n, TVMFFISeqCell::size);
  }
};

static_assert(sizeof(SeqBaseObj) == sizeof(TVMFFIObject) + sizeof(TVMFFISeqCell),
              "SeqBaseObj layout: header + TVMFFISeqCell");

namespace detail {

/*! \brief Release owned cells that could not be handed over (growing the container threw). */
inline void ReleaseCells(std::vector<TVMFFIAny>* cells) noexcept {
  for (TVMFFIAny& c : *cells) ReleaseCell(&c);
}

/*!
 * \brief The values of [first, last) converted to owned T cells. A throwing
 *        conversion releases the cells made so far and leaves the caller's
 *        container untouched.
 */
template <typename T, typename IterType>
std::vector<TVMFFIAny> MakeOwnedCells(IterType first, IterType last) {
  std::vector<TVMFFIAny> cells;
  try {
    for (; first != last; ++first) cells.push_back(MakeOwnedCell(T(*first)));
  } catch (...) {
    ReleaseCells(&cells);
    throw;
  }
  return cells;
}

/*! \brief What names Array and List (messages, type keys, conversions). */
struct ArrayKind {
  static constexpr int32_t kIndex = TypeIndex::kTVMFFIArray;
  static constexpr int32_t kOtherIndex = TypeIndex::kTVMFFIList;
  static constexpr const char* kName = "Array";
  /*! \brief Whether every reference shares one mutable object (element reads are then checked). */
  static constexpr bool kShared = false;
  static constexpr const char* kKey = StaticTypeKey::kTVMFFIArray;
};
struct ListKind {
  static constexpr int32_t kIndex = TypeIndex::kTVMFFIList;
  static constexpr int32_t kOtherIndex = TypeIndex::kTVMFFIArray;
  static constexpr const char* kName = "List";
  static constexpr bool kShared = true;
  static constexpr const char* kKey = StaticTypeKey::kTVMFFIList;
};

/*!
 * \brief The reference methods Array<T> and List<T> share: reading, and every
 *        mutation that only needs "a unique object with room for n more".
 *
 * The two differ only in their mutation policy, which Derived supplies as
 * `ObjT* Writable(int64_t extra)`: Array copies a shared object first
 * (copy-on-write), List grows its one shared object in place.
 */
template <typename Derived, typename T, typename ObjT, typename Kind>
class SeqRefBase : public ObjectRef {
 public:
  static_assert(storage_enabled_v<T>, "Array<T> / List<T>: T must be storable in an Any");
  using value_type = T;

  /*! \brief Converts a cell to T for the iterators. */
  struct ValueConverter {
    using ResultType = T;
    static T convert(const TVMFFIAny* cell) {
      return ElemOps<T>::template Read<Kind::kShared>(cell);
    }
    static T convert(const Any* cell) {
      return ElemOps<T>::template Read<Kind::kShared>(AnyUnsafe::TVMFFIAnyPtrFromAny(*cell));
    }
  };
  using iterator = IterAdapter<ValueConverter, const Any*>;
  using const_iterator = iterator;
  using reverse_iterator = ReverseIterAdapter<ValueConverter, const Any*>;

  // ---- reading ----
  iterator begin() const { return iterator(Base()); }
  iterator end() const { return iterator(Base() + size()); }
  reverse_iterator rbegin() const { return reverse_iterator(Base() + size() - 1); }
  reverse_iterator rend() const { return reverse_iterator(Base() - 1); }
  /*! \return Element i; IndexError naming the index and the size when out of range. */
  T operator[](int64_t i) const { return at(i); }
  /*! \return Element i; IndexError naming the index and the size when out of range. */
  T at(int64_t i) const {
    return ElemOps<T>::template Read<Kind::kShared>(Checked(i)->Cells() + i);
  }
  size_t size() const noexcept {
    const ObjT* p = Obj();
    return p == nullptr ? 0 : p->size();
  }
  size_t capacity() const noexcept {
    const ObjT* p = Obj();
    return p == nullptr ? 0 : p->capacity();
  }
  bool empty() const noexcept { return size() == 0; }
  /*! \return The first element; IndexError when empty. */
  T front() const { return at(0); }
  /*! \return The last element; IndexError when empty. */
  T back() const { return at(static_cast<int64_t>(size()) - 1); }

  // ---- mutation, through Derived::Writable ----
  // Room first, then the owned cell: making room may throw (out of memory),
  // and must not leak a cell already made.
  void push_back(const T& item) {
    ObjT* p = Obj();
    if (TVM_FFI_PREDICT_TRUE(p != nullptr)) {
      // The common case inline: a free cell in an object this reference may
      // write in place. Growing and copy-on-write go out of line.
      int64_t n = p->TVMFFISeqCell::size;
      if (TVM_FFI_PREDICT_TRUE(n < p->TVMFFISeqCell::capacity && (Kind::kShared || p->unique()))) {
        p->Cells()[n] = MakeOwnedCell(T(item));
        p->TVMFFISeqCell::size = n + 1;
        return;
      }
    }
    p = GrowForOne();
    p->PushCell(MakeOwnedCell(T(item)));
  }
  template <typename... Args>
  void emplace_back(Args&&... args) {
    ObjT* p = Writable(1);
    p->PushCell(MakeOwnedCell(T(std::forward<Args>(args)...)));
  }
  /*! \brief Insert val before position. */
  void insert(iterator position, const T& val) {
    int64_t idx = IndexOf(position);
    ObjT* p = Writable(1);
    TVMFFIAny cell = MakeOwnedCell(T(val));
    p->OpenGap(idx, 1);
    p->Cells()[idx] = cell;
  }
  /*! \brief Insert the values of [first, last) before position. */
  template <typename IterType>
  void insert(iterator position, IterType first, IterType last) {
    int64_t idx = IndexOf(position);
    std::vector<TVMFFIAny> cells = MakeOwnedCells<T>(first, last);
    if (cells.empty()) return;
    int64_t count = static_cast<int64_t>(cells.size());
    ObjT* p;
    try {
      p = Writable(count);
    } catch (...) {
      ReleaseCells(&cells);
      throw;
    }
    p->OpenGap(idx, count);
    std::memcpy(static_cast<void*>(p->Cells() + idx), cells.data(),
                sizeof(TVMFFIAny) * static_cast<size_t>(count));
  }
  /*! \brief Remove the last element; IndexError when empty. */
  void pop_back() {
    int64_t n = static_cast<int64_t>(size());
    if (n == 0) SeqBaseObj::ThrowIndexError(-1, 0, Kind::kName);
    Writable(0)->ShrinkTo(n - 1);
  }
  /*! \brief Remove the element at position. */
  void erase(iterator position) {
    int64_t idx = IndexOf(position);
    Checked(idx);
    Writable(0)->EraseRange(idx, idx + 1);
  }
  /*! \brief Remove the elements of [first, last). */
  void erase(iterator first, iterator last) {
    int64_t st = IndexOf(first), ed = IndexOf(last);
    if (st > ed) Obj()->erase(st, ed);  // throws before any copy-on-write: reversed
    if (st != ed) Writable(0)->erase(st, ed);
  }
  /*! \brief Grow (with default-constructed T, None for Any) or shrink to n elements. */
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << Kind::kName << "::resize: negative size " << n;
    int64_t cur = static_cast<int64_t>(size());
    if (n <= cur) {
      if (n < cur) Writable(0)->ShrinkTo(n);
      return;
    }
    ObjT* p = Writable(n - cur);
    TVMFFIAny fill = MakeOwnedCell(DefaultValue());
    for (int64_t i = cur; i < n; ++i) p->PushCell(CopyCell(fill));
    ReleaseCell(&fill);
  }
  /*! \brief Set element i; IndexError when out of range. */
  void Set(int64_t i, T value) {
    Checked(i);
    ObjT* p = Writable(0);
    p->SetCell(i, MakeOwnedCell(std::move(value)));
  }

  using ContainerType = ObjT;
  static constexpr bool _type_is_nullable = false;
  /*! \brief The element types are checked at run time: not every object is a valid value. */
  static constexpr bool _type_container_is_exact = false;

 protected:
  explicit SeqRefBase(ObjectPtr<Object> n) noexcept : ObjectRef(std::move(n)) {}
  explicit SeqRefBase(UnsafeInit tag) noexcept : ObjectRef(tag) {}
  explicit SeqRefBase(std::nullptr_t) noexcept : ObjectRef(nullptr) {}
  /*! \brief Share the object of another sequence reference. */
  explicit SeqRefBase(const ObjectRef& other) noexcept : ObjectRef(other) {}
  explicit SeqRefBase(ObjectRef&& other) noexcept : ObjectRef(std::move(other)) {}

  /*! \return The object (nullptr only for a reference made with UnsafeInit). */
  ObjT* Obj() const noexcept { return static_cast<ObjT*>(data_.get()); }
  const Any* Base() const noexcept {
    const ObjT* p = Obj();
    return p == nullptr ? nullptr : p->begin();
  }
  /*! \return The object; IndexError unless 0 <= i < size. */
  ObjT* Checked(int64_t i) const {
    ObjT* p = Obj();
    if (TVM_FFI_PREDICT_FALSE(p == nullptr)) SeqBaseObj::ThrowIndexError(i, 0, Kind::kName);
    p->CheckIndex(i);
    return p;
  }
  int64_t IndexOf(const iterator& it) const {
    int64_t idx = it.base() - Base();
    if (idx < 0 || idx > static_cast<int64_t>(size())) {
      TVM_FFI_THROW(IndexError) << Kind::kName << ": iterator at " << idx << " is not in this "
                                << Kind::kName << " of size " << size();
    }
    return idx;
  }
  ObjT* Writable(int64_t extra) { return static_cast<Derived*>(this)->MakeRoom(extra); }
  /*! \brief Writable(1), out of line: push_back's uncommon case. */
  TVM_FFI_NOINLINE ObjT* GrowForOne() { return Writable(1); }
  static T DefaultValue() {
    if constexpr (std::is_same_v<T, Any>) {
      return Any();
    } else if constexpr (std::is_default_constructible_v<T>) {
      return T();
    } else {
      TVM_FFI_THROW(ValueError) << Kind::kName << "<" << ElemOps<T>::TypeStr()
                                << ">::resize cannot grow: the element type has no default";
      TVM_FFI_UNREACHABLE();
    }
  }
};

/*!
 * \brief Any conversions shared by Array and List. Kind names the reference:
 *        kIndex (its type index), kOtherIndex (the other sequence type, which
 *        converts by copying), kName ("Array") and kKey ("ffi.Array"); ObjT is
 *        its object type (ObjT::Empty(n), PushCell). A value converts to
 *        Ref<T> when every element converts to T; a new object is built only
 *        when something must convert.
 */
template <typename Ref, typename T, typename ObjT, typename Kind>
struct SeqTypeTraitsBase : public ObjectRefTypeTraitsBase<Ref> {
  static constexpr int32_t field_static_type_index = Kind::kIndex;
  using ObjectRefTypeTraitsBase<Ref>::CopyFromAnyViewAfterCheck;

  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index != Kind::kIndex) return false;
    if constexpr (std::is_same_v<T, Any>) {
      return true;
    } else {
      const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(src->v_obj);
      const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
      for (int64_t i = 0; i < cell->size; ++i) {
        if (!ElemOps<T>::CheckStrict(items + i)) return false;
      }
      return true;
    }
  }

  static std::optional<Ref> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != Kind::kIndex && src->type_index != Kind::kOtherIndex) {
      return std::nullopt;
    }
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(src->v_obj);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
    ObjectPtr<ObjT> out = ObjT::Empty(cell->size);
    for (int64_t i = 0; i < cell->size; ++i) {
      std::optional<T> value = ElemOps<T>::TryCast(items + i);
      if (!value.has_value()) return std::nullopt;
      out->PushCell(MakeOwnedCell(*std::move(value)));
    }
    return Ref(ObjectPtr<Object>(std::move(out)));
  }

  /*! \return e.g. `Array[index 1: str]`: the first element that does not convert. */
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index != Kind::kIndex && src->type_index != Kind::kOtherIndex) {
      return TypeTraitsBase::GetMismatchTypeInfo(src);
    }
    const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(src->v_obj);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
    for (int64_t i = 0; i < cell->size; ++i) {
      if (!ElemOps<T>::Convertible(items + i)) {
        return std::string(Kind::kName) + "[index " + std::to_string(i) + ": " +
               ElemOps<T>::MismatchInfo(items + i) + "]";
      }
    }
    return Kind::kKey;
  }

  static std::string TypeStr() {
    return std::string(Kind::kName) + "<" + ElemOps<T>::TypeStr() + ">";
  }
  static std::string TypeSchema() {
    return std::string("{\"type\":\"") + Kind::kKey + "\",\"args\":[" + ElemTypeSchema<T>() + "]}";
  }
};

}  // namespace detail

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_SEQ_BASE_H_
