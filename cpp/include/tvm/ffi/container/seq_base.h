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
#include <tvm/ffi/container/container_details.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
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
    for (int64_t i = 0; i < TVMFFISeqCell::size; ++i) details::ReleaseCell(cells + i);
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
    SetCell(i, details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(item)));
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
  [[noreturn]] TVM_FFI_NOINLINE TVM_FFI_COLD static void ThrowIndexError(int64_t i, int64_t n,
                                                                        const char* kind = "Array") {
    const char* article = kind[0] == 'A' ? "an " : "a ";
    TVM_FFI_THROW(IndexError) << kind << " index " << i << " out of range for " << article << kind
                              << " of size " << n;
  }

  // ---- low level, for the containers' own code: `this` must be unique ----

  /*! \return The cells. */
  TVMFFIAny* Cells() const noexcept { return static_cast<TVMFFIAny*>(data); }
  /*! \brief Append an owned cell, taking it over (capacity must allow it). */
  void PushCell(TVMFFIAny cell) noexcept { Cells()[TVMFFISeqCell::size++] = cell; }
  /*! \brief Replace element i with an owned cell (the old one is released last). */
  void SetCell(int64_t i, TVMFFIAny cell) {
    TVMFFIAny old = Cells()[i];
    Cells()[i] = cell;
    details::ReleaseCell(&old);
  }
  /*! \brief Open a gap of `count` None cells at `idx` (capacity must allow it). */
  void OpenGap(int64_t idx, int64_t count) noexcept {
    TVMFFIAny* cells = Cells();
    int64_t n = TVMFFISeqCell::size;
    std::memmove(static_cast<void*>(cells + idx + count), cells + idx,
                 sizeof(TVMFFIAny) * (n - idx));
    for (int64_t i = idx; i < idx + count; ++i) details::SetAnyNone(cells + i);
    TVMFFISeqCell::size = n + count;
  }
  /*! \brief Remove elements [first, last). */
  void EraseRange(int64_t first, int64_t last) {
    TVMFFIAny* cells = Cells();
    int64_t n = TVMFFISeqCell::size;
    // Take the cells out before releasing them: a destructor may run arbitrary code.
    std::vector<TVMFFIAny> doomed(cells + first, cells + last);
    std::memmove(static_cast<void*>(cells + first), cells + last, sizeof(TVMFFIAny) * (n - last));
    TVMFFISeqCell::size = n - (last - first);
    for (TVMFFIAny& cell : doomed) details::ReleaseCell(&cell);
  }
  /*! \brief Shrink to n elements. */
  void ShrinkTo(int64_t n) {
    if (n < TVMFFISeqCell::size) EraseRange(n, TVMFFISeqCell::size);
  }
};

static_assert(sizeof(SeqBaseObj) == sizeof(TVMFFIObject) + sizeof(TVMFFISeqCell),
              "SeqBaseObj layout: header + TVMFFISeqCell");

namespace details {

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

  static std::string TypeStr() { return std::string(Kind::kName) + "<" + ElemOps<T>::TypeStr() + ">"; }
  static std::string TypeSchema() {
    return std::string("{\"type\":\"") + Kind::kKey + "\",\"args\":[" + ElemTypeSchema<T>() +
           "]}";
  }
};

}  // namespace details

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_SEQ_BASE_H_
