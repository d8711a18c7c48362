/*
 * tvmffi C++ layer: helpers shared by the containers (Array, Map, Tuple,
 * Variant and the std:: bridges).
 *
 * Internal: the contents of namespace tvm::ffi::detail are not an API.
 * Containers store their elements as owned TVMFFIAny cells; the helpers
 * below move C++ values in and out of such cells for any element type T,
 * including Any itself (which has no TypeTraits of its own).
 */
#ifndef TVM_FFI_CONTAINER_CONTAINER_DETAIL_H_
#define TVM_FFI_CONTAINER_CONTAINER_DETAIL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

template <typename T, typename>
class Array;
template <typename K, typename V, typename>
class Map;
template <typename T, typename>
class List;
template <typename K, typename V, typename>
class Dict;
template <typename... Types>
class Tuple;
template <typename... Vs>
class Variant;

namespace detail {

/*! \brief Whether T may be stored in a container (Any, or a type with storage-enabled traits). */
template <typename T, typename = void>
inline constexpr bool storage_enabled_v = false;
template <typename T>
inline constexpr bool storage_enabled_v<T, std::enable_if_t<TypeTraits<T>::storage_enabled>> = true;
template <>
inline constexpr bool storage_enabled_v<Any, void> = true;

/*!
 * \brief Whether M is a std:: map (ordered or not) of exactly K to V: it names
 *        key_type, mapped_type and allocator_type, which ffi containers do
 *        not. Detected rather than declared, so that <map> and
 *        <unordered_map> stay the caller's includes.
 */
template <typename M, typename K, typename V, typename = void>
inline constexpr bool is_std_assoc_v = false;
template <typename M, typename K, typename V>
inline constexpr bool is_std_assoc_v<
    M, K, V,
    std::void_t<typename M::key_type, typename M::mapped_type, typename M::allocator_type>> =
    std::is_same_v<typename M::key_type, K>&& std::is_same_v<typename M::mapped_type, V>;

/*! \brief The larger of two sizes (std::max without <algorithm>). */
constexpr int64_t LargerSize(int64_t a, int64_t b) {
  return a < b ? b : a;
}

/*! \brief Whether every one of Ts may be stored in a container. */
template <typename... Ts>
inline constexpr bool all_storage_enabled_v = (storage_enabled_v<Ts> && ...);

template <typename X, typename U>
struct TypeSubsumes<Optional<X>, U>
    : std::bool_constant<std::is_same_v<Optional<X>, U> || std::is_same_v<U, std::nullptr_t> ||
                         TypeSubsumes<X, U>::value> {};

// Containers: one holds another when its element types hold the other's
// (the cells are the same objects), so Array<Array<Any>> shares Array<Array<int>>.
template <typename T, typename U>
struct TypeSubsumes<Array<T, void>, Array<U, void>> : TypeSubsumes<T, U> {};
template <typename K, typename V, typename K2, typename V2>
struct TypeSubsumes<Map<K, V, void>, Map<K2, V2, void>>
    : std::bool_constant<TypeSubsumes<K, K2>::value && TypeSubsumes<V, V2>::value> {};
// The mutable kinds too (upstream allows it): a List<Any> sharing a List<int>
// can then store a non-int, which reads from the List<int> throw TypeError.
template <typename T, typename U>
struct TypeSubsumes<List<T, void>, List<U, void>> : TypeSubsumes<T, U> {};
template <typename K, typename V, typename K2, typename V2>
struct TypeSubsumes<Dict<K, V, void>, Dict<K2, V2, void>>
    : std::bool_constant<TypeSubsumes<K, K2>::value && TypeSubsumes<V, V2>::value> {};
template <typename... Ts, typename... Us>
struct TypeSubsumes<Tuple<Ts...>, Tuple<Us...>> {
  static constexpr bool value = [] {
    if constexpr (sizeof...(Ts) == sizeof...(Us)) {
      return (TypeSubsumes<Ts, Us>::value && ...);
    } else {
      return false;
    }
  }();
};
// A Variant holds what one of its alternatives holds, and a Variant all of
// whose alternatives it holds.
template <typename... Vs, typename U>
struct TypeSubsumes<Variant<Vs...>, U>
    : std::bool_constant<std::is_same_v<Variant<Vs...>, U> || (TypeSubsumes<Vs, U>::value || ...)> {
};
template <typename... Vs, typename... Us>
struct TypeSubsumes<Variant<Vs...>, Variant<Us...>>
    : std::bool_constant<(TypeSubsumes<Variant<Vs...>, Us>::value && ...)> {};

// The containers above use the name unqualified.
using ::tvm::ffi::type_subsumes_v;

/*!
 * \brief Whether a Source container reference converts to Target by sharing its
 *        object (the containers' converting constructors): Target's element
 *        types hold Source's, e.g. Map<String, Array<Any>> from
 *        Map<String, Array<int>>, List<ObjectPtr<Base>> from List<ObjectPtr<Derived>>.
 */
template <typename Target, typename Source>
inline constexpr bool shares_as_v =
    !std::is_same_v<Target, Source> && type_subsumes_v<Target, Source>;

/*! \brief Element access for any T a container can hold (T = Any needs no check). */
template <typename T>
struct ElemOps {
  static std::string TypeStr() {
    if constexpr (std::is_same_v<T, Any>) {
      return "Any";
    } else {
      return TypeTraits<T>::TypeStr();
    }
  }
  /*! \return Whether the stored cell is exactly what T stores (no conversion needed). */
  TVM_FFI_INLINE static bool CheckStrict(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return true;
    } else {
      return TypeTraits<T>::CheckAnyStrict(v);
    }
  }
  /*! \return A T copied out of a cell that passed CheckStrict. */
  TVM_FFI_INLINE static T CopyAfterCheck(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return Any(AnyView::CopyFromTVMFFIAny(*v));
    } else {
      return TypeTraits<T>::CopyFromAnyViewAfterCheck(v);
    }
  }
  /*!
   * \brief A T copied out of a cell of a mutable container (List, Dict): another
   *        reference of a wider type (List<Any> sharing a List<int>) may have
   *        stored something else there. kChecked = false: the cell is known good.
   * \throws TypeError naming what the cell holds and T.
   */
  template <bool kChecked>
  TVM_FFI_INLINE static T Read(const TVMFFIAny* v) {
    if constexpr (kChecked && !std::is_same_v<T, Any>) {
      if (TVM_FFI_PREDICT_FALSE(!TypeTraits<T>::CheckAnyStrict(v))) ThrowWrongElement(v);
    }
    return CopyAfterCheck(v);
  }
  [[noreturn]] TVM_FFI_NOINLINE static void ThrowWrongElement(const TVMFFIAny* v) {
    TVM_FFI_THROW(TypeError) << "Container element is `" << MismatchInfo(v) << "`, not `"
                             << TypeStr() << "`: a reference of a wider type stored it";
    TVM_FFI_UNREACHABLE();
  }
  /*! \return A T taken out of an owned cell that passed CheckStrict (the cell becomes None). */
  TVM_FFI_INLINE static T MoveAfterCheck(TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return AnyUnsafe::MoveTVMFFIAnyToAny(v);
    } else {
      return TypeTraits<T>::MoveFromAnyAfterCheck(v);
    }
  }
  /*! \return The cell converted to T (with the allowed conversions), or nullopt. */
  TVM_FFI_INLINE static std::optional<T> TryCast(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return Any(AnyView::CopyFromTVMFFIAny(*v));
    } else {
      return TypeTraits<T>::TryCastFromAnyView(v);
    }
  }
  /*! \return What the cell holds, for "expected T but got X" messages. */
  static std::string MismatchInfo(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return TypeIndexToTypeKey(v->type_index);
    } else {
      return TypeTraits<T>::GetMismatchTypeInfo(v);
    }
  }
  /*! \return Whether the cell can become a T (strictly or by conversion). */
  static bool Convertible(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return true;
    } else {
      return TypeTraits<T>::CheckAnyStrict(v) || TypeTraits<T>::TryCastFromAnyView(v).has_value();
    }
  }
};

/*! \brief One step of TakeFirstAlternative: take(T) when the cell is (kStrict) or converts to a T.
 */
template <bool kStrict, typename T, typename Take>
bool TakeAlternative(const TVMFFIAny* src, Take& take) {
  if constexpr (kStrict) {
    if (!ElemOps<T>::CheckStrict(src)) return false;
    take(ElemOps<T>::CopyAfterCheck(src));
  } else {
    std::optional<T> value = ElemOps<T>::TryCast(src);
    if (!value.has_value()) return false;
    take(*std::move(value));
  }
  return true;
}

/*!
 * \brief The alternative rule of Variant<Ts...> and std::variant<Ts...>: call
 *        take(value) with the cell as the first of Ts, in declaration order,
 *        that holds it exactly (kStrict) or that it converts to.
 * \return Whether some alternative took it.
 */
template <bool kStrict, typename... Ts, typename Take>
bool TakeFirstAlternative(const TVMFFIAny* src, Take&& take) {
  return (TakeAlternative<kStrict, Ts>(src, take) || ...);
}

/*! \brief `{"type":"<name>"}` with the name JSON-escaped. */
inline std::string PlainTypeSchema(const std::string& name) {
  std::string s = "{\"type\":";
  AppendJSONString(&s, name);
  return s + "}";
}

/*!
 * \brief The type schema of an element type, in the JSON layout of function
 *        metadata: {"type":"int"}, {"type":"ffi.Array","args":[...]}, ...
 */
template <typename T>
inline std::string ElemTypeSchema() {
  using Inner = typename OptionalInner<T>::type;
  if constexpr (std::is_same_v<T, Any>) {
    return PlainTypeSchema("Any");
  } else if constexpr (!std::is_void_v<Inner>) {
    return "{\"type\":\"Optional\",\"args\":[" + ElemTypeSchema<Inner>() + "]}";
  } else if constexpr (HasTypeSchema<T>::value) {
    return TypeTraits<T>::TypeSchema();
  } else {
    return PlainTypeSchema(TypeTraits<T>::TypeStr());
  }
}

/*! \brief `Name<T0, T1, ...>` from the element type names. */
template <typename... Ts>
inline std::string ParamTypeStr(const char* name) {
  std::string s = std::string(name) + "<";
  const char* sep = "";
  ((s += sep, s += ElemOps<Ts>::TypeStr(), sep = ", "), ...);
  return s + ">";
}

/*! \brief `{"type":"<key>","args":[<schema of T0>,...]}`. */
template <typename... Ts>
inline std::string ParamTypeSchema(const char* key) {
  std::string s = std::string("{\"type\":\"") + key + "\",\"args\":[";
  const char* sep = "";
  ((s += sep, s += ElemTypeSchema<Ts>(), sep = ","), ...);
  return s + "]}";
}

/*! \brief Turn a value into an owned cell (the caller owns the result). */
template <typename T>
TVM_FFI_INLINE TVMFFIAny MakeOwnedCell(T&& value) {
  return AnyUnsafe::MoveAnyToTVMFFIAny(Any(std::forward<T>(value)));
}

/*! \brief Release whatever an owned cell holds; the cell is None afterwards. */
TVM_FFI_INLINE void ReleaseCell(TVMFFIAny* cell) {
  if (cell->type_index >= TypeIndex::kTVMFFIStaticObjectBegin) {
    TVMFFIObject* obj = cell->v_obj;
    SetAnyNone(cell);
    HeaderDecRef(obj);
  } else {
    SetAnyNone(cell);
  }
}

/*!
 * \brief Releases the elements of a container from its destructor with a
 *        bounded C stack. Releasing the last reference of an element that is
 *        itself a container releases its elements in turn: a chain of
 *        containers 200,000 deep would recurse 200,000 times. Past
 *        kMaxNesting nested container releases on this thread, the element
 *        references are handed to the outermost release instead, which drops
 *        them one after another before it returns. Reference counting itself
 *        (HeaderDecRef) is unchanged; only container destructors use this.
 *        (Each binary keeps its own per-thread count; a chain alternating
 *        between binaries is bounded all the same.)
 */
class ContainerReleaseScope {
 public:
  static constexpr int kMaxNesting = 64;

  ContainerReleaseScope() noexcept = default;
  ~ContainerReleaseScope() {
    if (TVM_FFI_PREDICT_FALSE(state_ != nullptr)) Leave();
  }
  ContainerReleaseScope(const ContainerReleaseScope&) = delete;
  ContainerReleaseScope& operator=(const ContainerReleaseScope&) = delete;

  /*! \brief Release an owned cell (None afterwards), now or by the outermost scope. */
  TVM_FFI_INLINE void Release(TVMFFIAny* cell) noexcept {
    if (cell->type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
      SetAnyNone(cell);
      return;
    }
    TVMFFIObject* obj = cell->v_obj;
    SetAnyNone(cell);
    // The per-thread count is touched only by containers that hold objects:
    // releasing a container of plain values costs nothing more than before.
    if (TVM_FFI_PREDICT_FALSE(state_ == nullptr)) Enter();
    if (TVM_FFI_PREDICT_FALSE(state_->depth > kMaxNesting) && Defer(obj)) return;
    HeaderDecRef(obj);
  }
  /*! \brief As Release, for a cell of a container being destroyed: the cell is left as is. */
  TVM_FFI_INLINE void Drop(const TVMFFIAny& cell) noexcept {
    if (cell.type_index < TypeIndex::kTVMFFIStaticObjectBegin) return;
    if (TVM_FFI_PREDICT_FALSE(state_ == nullptr)) Enter();
    if (TVM_FFI_PREDICT_FALSE(state_->depth > kMaxNesting) && Defer(cell.v_obj)) return;
    HeaderDecRef(cell.v_obj);
  }

 private:
  struct State {
    int depth;                            // nested container releases on this thread
    std::vector<TVMFFIObject*>* pending;  // deferred references (made on the first one)
  };
  static State& GetState() noexcept {
    static thread_local State state{0, nullptr};
    return state;
  }
  TVM_FFI_NOINLINE void Enter() noexcept {
    state_ = &GetState();
    ++state_->depth;
  }
  TVM_FFI_NOINLINE void Leave() noexcept {
    if (state_->depth == 1 && state_->pending != nullptr) {
      // The outermost: drop what deeper releases deferred (they may defer more).
      std::vector<TVMFFIObject*>* pending = state_->pending;
      while (!pending->empty()) {
        TVMFFIObject* obj = pending->back();
        pending->pop_back();
        HeaderDecRef(obj);
      }
      state_->pending = nullptr;
      delete pending;
    }
    --state_->depth;
  }
  TVM_FFI_NOINLINE bool Defer(TVMFFIObject* obj) noexcept {
    try {
      if (state_->pending == nullptr) state_->pending = new std::vector<TVMFFIObject*>();
      state_->pending->push_back(obj);
      return true;
    } catch (...) {
      return false;  // out of memory: release it here, recursing
    }
  }

  State* state_ = nullptr;
};

/*! \brief A new owned copy of an owned cell (objects gain a reference). */
TVM_FFI_INLINE TVMFFIAny CopyCell(const TVMFFIAny& cell) noexcept {
  if (cell.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) HeaderIncRef(cell.v_obj);
  return cell;
}

/*! \brief The type index of a cell as an unsigned value (negative ones become large). */
TVM_FFI_INLINE uint32_t CellTypeBits(const TVMFFIAny& cell) noexcept {
  return static_cast<uint32_t>(cell.type_index);
}

/*!
 * \brief Whether an OR of type indices (CellTypeBits) shows a cell that may
 *        hold an object: the OR stays below kTVMFFIStaticObjectBegin, a power
 *        of two, only when every index does. A negative index (never stored)
 *        reads as an object, which only sends the caller the careful way.
 */
TVM_FFI_INLINE bool MayHoldObject(uint32_t type_bits_or) noexcept {
  constexpr int32_t kBegin = TypeIndex::kTVMFFIStaticObjectBegin;
  static_assert((kBegin & (kBegin - 1)) == 0, "the OR test needs a power of two");
  return type_bits_or >= static_cast<uint32_t>(TypeIndex::kTVMFFIStaticObjectBegin);
}

/*! \brief Cells PlainPrefix looks at together (one early exit per block). */
inline constexpr int64_t kPlainScanBlock = 16;

/*!
 * \brief The length of a prefix of cells[0, n) that holds no object: every
 *        cell before it is a plain value (no reference to take or drop). A
 *        whole block is skipped only when all its cells are plain, so an
 *        array of objects costs one block of reads; an array of numbers is
 *        one read-only pass, with no per-cell branch.
 */
TVM_FFI_INLINE int64_t PlainPrefix(const TVMFFIAny* cells, int64_t n) noexcept {
  const TVMFFIAny* c = cells;
  const TVMFFIAny* end = cells + n;
  for (; end - c >= kPlainScanBlock; c += kPlainScanBlock) {
    // Written out: -O2 does not unroll, and a loop here would double the count.
    uint32_t a = CellTypeBits(c[0]) | CellTypeBits(c[1]) | CellTypeBits(c[2]) | CellTypeBits(c[3]);
    uint32_t b = CellTypeBits(c[4]) | CellTypeBits(c[5]) | CellTypeBits(c[6]) | CellTypeBits(c[7]);
    a |= CellTypeBits(c[8]) | CellTypeBits(c[9]) | CellTypeBits(c[10]) | CellTypeBits(c[11]);
    b |= CellTypeBits(c[12]) | CellTypeBits(c[13]) | CellTypeBits(c[14]) | CellTypeBits(c[15]);
    if (MayHoldObject(a | b)) return c - cells;
  }
  const TVMFFIAny* block = c;
  auto bits4 = [](const TVMFFIAny* q) {
    return CellTypeBits(q[0]) | CellTypeBits(q[1]) | CellTypeBits(q[2]) | CellTypeBits(q[3]);
  };
  uint32_t rest = 0;
  if (n >= 4) {
    for (; end - c > 4; c += 4) rest |= bits4(c);
    rest |= bits4(end - 4);  // the last four, overlapping cells already read: no tail loop
  } else {
    for (; c != end; ++c) rest |= CellTypeBits(*c);
  }
  return MayHoldObject(rest) ? block - cells : n;
}

/*!
 * \brief Copy n owned cells to dst (uninitialised), each object gaining a
 *        reference. One pass copies the bytes and ORs the type indices; only
 *        when that shows an object does a second pass take the references.
 */
inline void CopyCells(TVMFFIAny* dst, const TVMFFIAny* src, int64_t n) noexcept {
  uint32_t bits = 0;
  auto copy4 = [&](int64_t i) {
    bits |= CellTypeBits(src[i]) | CellTypeBits(src[i + 1]) | CellTypeBits(src[i + 2]) |
            CellTypeBits(src[i + 3]);
    dst[i] = src[i];
    dst[i + 1] = src[i + 1];
    dst[i + 2] = src[i + 2];
    dst[i + 3] = src[i + 3];
  };
  if (n >= 4) {
    int64_t i = 0;
    for (; n - i > 4; i += 4) copy4(i);
    copy4(n - 4);  // the last four, overlapping cells already copied: no tail loop
  } else {
    for (int64_t i = 0; i < n; ++i) {
      bits |= CellTypeBits(src[i]);
      dst[i] = src[i];
    }
  }
  if (!MayHoldObject(bits)) return;
  for (int64_t i = 0; i < n; ++i) {
    if (src[i].type_index >= TypeIndex::kTVMFFIStaticObjectBegin) HeaderIncRef(src[i].v_obj);
  }
}

/*! \brief A short printable rendering of a key for error messages ("\"abc\"", "42", "ffi.Tensor").
 */
inline std::string CellToShortString(const TVMFFIAny* v) {
  std::string_view bytes;
  int32_t klass;
  if (StringLikeView(v, &bytes, &klass)) {
    constexpr size_t kMax = 64;
    std::string out = klass == TypeIndex::kTVMFFIBytes ? "b\"" : "\"";
    out.append(bytes.data(), bytes.size() < kMax ? bytes.size() : kMax);
    if (bytes.size() > kMax) out.append("...");
    out.push_back('"');
    return out;
  }
  switch (v->type_index) {
    case TypeIndex::kTVMFFINone:
      return "None";
    case TypeIndex::kTVMFFIInt:
      return std::to_string(v->v_int64);
    case TypeIndex::kTVMFFIBool:
      return v->v_int64 != 0 ? "True" : "False";
    case TypeIndex::kTVMFFIFloat: {
      ErrorMessageStream os;
      os << v->v_float64;
      return std::move(os.str());
    }
    default:
      return TypeIndexToTypeKey(v->type_index);
  }
}

/*!
 * \brief Adapts a pointer over cells into an iterator over converted values,
 *        walking forwards (kStep = 1) or backwards (kStep = -1).
 * \tparam Converter has `using ResultType` and `static ResultType convert(const TVMFFIAny*)`.
 */
template <typename Converter, typename CellPtr, std::ptrdiff_t kStep>
class CellIterAdapter {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using difference_type = std::ptrdiff_t;
  using value_type = typename Converter::ResultType;
  using pointer = const value_type*;
  using reference = value_type;

  CellIterAdapter() noexcept = default;
  /*! \param iter Points at the element this iterator yields. */
  explicit CellIterAdapter(CellPtr iter) noexcept : iter_(iter) {}

  reference operator*() const { return Converter::convert(iter_); }
  reference operator[](difference_type n) const { return Converter::convert(iter_ + kStep * n); }
  CellIterAdapter& operator++() noexcept {
    iter_ += kStep;
    return *this;
  }
  CellIterAdapter operator++(int) noexcept {
    CellIterAdapter copy = *this;
    iter_ += kStep;
    return copy;
  }
  CellIterAdapter& operator--() noexcept {
    iter_ -= kStep;
    return *this;
  }
  CellIterAdapter operator--(int) noexcept {
    CellIterAdapter copy = *this;
    iter_ -= kStep;
    return copy;
  }
  CellIterAdapter& operator+=(difference_type n) noexcept {
    iter_ += kStep * n;
    return *this;
  }
  CellIterAdapter& operator-=(difference_type n) noexcept {
    iter_ -= kStep * n;
    return *this;
  }
  CellIterAdapter operator+(difference_type n) const noexcept {
    return CellIterAdapter(iter_ + kStep * n);
  }
  friend CellIterAdapter operator+(difference_type n, const CellIterAdapter& it) noexcept {
    return it + n;
  }
  CellIterAdapter operator-(difference_type n) const noexcept {
    return CellIterAdapter(iter_ - kStep * n);
  }
  difference_type operator-(const CellIterAdapter& other) const noexcept {
    return (iter_ - other.iter_) * kStep;
  }
  bool operator==(const CellIterAdapter& other) const noexcept { return iter_ == other.iter_; }
  bool operator!=(const CellIterAdapter& other) const noexcept { return iter_ != other.iter_; }
  bool operator<(const CellIterAdapter& other) const noexcept { return *this - other < 0; }
  bool operator>(const CellIterAdapter& other) const noexcept { return *this - other > 0; }
  bool operator<=(const CellIterAdapter& other) const noexcept { return *this - other <= 0; }
  bool operator>=(const CellIterAdapter& other) const noexcept { return *this - other >= 0; }

  /*! \return The underlying cell pointer (the cell this iterator yields). */
  CellPtr base() const noexcept { return iter_; }

 private:
  CellPtr iter_{};
};

template <typename Converter, typename CellPtr>
using IterAdapter = CellIterAdapter<Converter, CellPtr, 1>;
template <typename Converter, typename CellPtr>
using ReverseIterAdapter = CellIterAdapter<Converter, CellPtr, -1>;

// ---------------------------------------------------------------------------
// Hashing and equality of cells (Map keys, content comparison).
// ---------------------------------------------------------------------------

/*!
 * \brief Deep content equality used by Array/Map comparison: arrays and lists,
 *        maps and dicts element by element, shapes by their extents, strings
 *        by content, floats by value, other objects by identity.
 */
inline bool CellContentEqual(const TVMFFIAny* a, const TVMFFIAny* b);

}  // namespace detail

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_CONTAINER_DETAIL_H_
