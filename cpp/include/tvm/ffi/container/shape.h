/*
 * tvmffi C++ layer: shapes.
 *
 * ShapeView is a borrowed (pointer, length) run of int64 extents, the type
 * tensor accessors return. Shape is the reference-counted ffi.Shape object
 * (type index 69): the ABI header, a TVMFFIShapeCell at offset 24, and, for
 * shapes made here, the extents stored inline right after the cell.
 */
#ifndef TVM_FFI_CONTAINER_SHAPE_H_
#define TVM_FFI_CONTAINER_SHAPE_H_

// Upstream's shape.h includes array.h, so clients use Array with tensor.h
// alone (FlashInfer's batch prefill binding does).
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/details/tensor_geometry.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tvm {
namespace ffi {

/*!
 * \brief A non-owning view of int64 extents (a shape or strides).
 *
 * Like std::string_view, it borrows: whatever it was made from must outlive
 * it. A view made from a braced list (`{2, 3}`) lives only until the end of
 * the full expression, which is enough for passing it to a function.
 */
class ShapeView {
 public:
  /*! \brief An empty view. */
  ShapeView() noexcept = default;
  /*! \brief View `size` extents starting at `data`. */
  ShapeView(const int64_t* data, size_t size) noexcept : data_(data), size_(size) {}
  // Borrowing the list's array is the point (as for string_view): silence GCC's warning.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  /*! \brief View a braced list; valid until the end of the full expression. */
  ShapeView(std::initializer_list<int64_t> values) noexcept  // NOLINT(*)
      : data_(values.begin()), size_(values.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  /*!
   * \brief View the elements of a vector (valid while it is unchanged).
   *        A template so that std::vector<int64_t> is instantiated only where used.
   */
  template <typename Alloc>
  ShapeView(const std::vector<int64_t, Alloc>& values) noexcept  // NOLINT(*)
      : data_(values.data()), size_(values.size()) {}

  /*! \return The first extent (may be NULL when empty). */
  const int64_t* data() const noexcept {
    return data_;
  }
  /*! \return The number of extents. */
  size_t size() const noexcept {
    return size_;
  }
  /*! \return Whether there are no extents. */
  bool empty() const noexcept {
    return size_ == 0;
  }
  /*! \return The idx-th extent; idx must be < size() (unchecked, see at()). */
  int64_t operator[](size_t idx) const noexcept {
    return data_[idx];
  }
  /*! \return The idx-th extent; IndexError when out of range. */
  int64_t at(size_t idx) const {
    if (TVM_FFI_PREDICT_FALSE(idx >= size_)) ThrowIndexError(idx, size_);
    return data_[idx];
  }
  /*! \return The first extent; IndexError when empty. */
  int64_t front() const {
    return at(0);
  }
  /*! \return The last extent; IndexError when empty. */
  int64_t back() const {
    return at(size_ - 1);
  }
  const int64_t* begin() const noexcept {
    return data_;
  }
  const int64_t* end() const noexcept {
    return data_ + size_;
  }
  /*! \return The product of the extents (1 when empty): the element count of this shape. */
  int64_t Product() const noexcept {
    // Unsigned: wraps instead of undefined behaviour for absurd shapes.
    uint64_t product = 1;
    for (size_t i = 0; i < size_; ++i) product *= static_cast<uint64_t>(data_[i]);
    return static_cast<int64_t>(product);
  }

  /*! \brief Element-wise equality. */
  friend bool operator==(ShapeView lhs, ShapeView rhs) noexcept {
    if (lhs.size_ != rhs.size_) return false;
    for (size_t i = 0; i < lhs.size_; ++i) {
      if (lhs.data_[i] != rhs.data_[i]) return false;
    }
    return true;
  }
  friend bool operator!=(ShapeView lhs, ShapeView rhs) noexcept {
    return !(lhs == rhs);
  }

  /*! \return The extents as text, e.g. "[2, 3]". */
  std::string ToString() const {
    std::string out = "[";
    for (size_t i = 0; i < size_; ++i) {
      if (i != 0) out += ", ";
      out += std::to_string(data_[i]);
    }
    out += ']';
    return out;
  }

 private:
  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowIndexError(size_t idx, size_t size) {
    TVM_FFI_THROW(IndexError) << "index " << idx << " is out of range for a shape of size " << size;
  }

  const int64_t* data_{nullptr};
  size_t size_{0};
};

/*! \brief The ffi.Shape object: header, then TVMFFIShapeCell {data, size} at offset 24. */
class ShapeObj : public Object, public TVMFFIShapeCell {
 public:
  /*! \brief The element type. */
  using index_type = int64_t;

  /*! \return The product of the extents (1 when empty). */
  int64_t Product() const noexcept { return ShapeView(this->data, this->size).Product(); }

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIShape;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIShape, ShapeObj, Object);

  ShapeObj() noexcept {
    this->data = nullptr;
    this->size = 0;
  }
};

namespace detail {

/*! \brief A Shape object with room for n extents right after it; data points there. */
inline ObjectPtr<ShapeObj> MakeEmptyShape(size_t n, int64_t** out_data) {
  static_assert(sizeof(ShapeObj) % alignof(int64_t) == 0, "extents must follow the cell aligned");
  ObjectPtr<ShapeObj> p = make_inplace_array_object<ShapeObj, int64_t>(n);
  int64_t* data = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(p.get()) + sizeof(ShapeObj));
  p->data = data;
  p->size = n;
  if (out_data != nullptr) *out_data = data;
  return p;
}

// Iterators without <iterator> (it brings the stream iterators, ~0.1 s of
// compile time for every kernel file): anything that steps, compares and
// dereferences to a number; random-access ones are measured by subtraction.
template <typename Iter, typename = void>
struct is_int64_iterator : std::false_type {};
template <typename Iter>
struct is_int64_iterator<
    Iter, std::enable_if_t<std::is_convertible_v<decltype(*std::declval<Iter&>()), int64_t> &&
                               std::is_convertible_v<
                                   decltype(std::declval<Iter&>() != std::declval<Iter&>()), bool>,
                           std::void_t<decltype(++std::declval<Iter&>())>>> : std::true_type {};
template <typename Iter, typename = void>
struct has_iterator_difference : std::false_type {};
template <typename Iter>
struct has_iterator_difference<
    Iter, std::void_t<decltype(std::declval<const Iter&>() - std::declval<const Iter&>())>>
    : std::true_type {};

/*! \brief The number of steps from begin to end (negative if end precedes a random-access begin).
 */
template <typename Iter>
inline int64_t IteratorDistance(Iter begin, Iter end) {
  if constexpr (has_iterator_difference<Iter>::value) {
    return static_cast<int64_t>(end - begin);
  } else {
    int64_t n = 0;
    for (; begin != end; ++begin) ++n;
    return n;
  }
}

/*! \brief A Shape object holding a copy of [begin, end). */
template <typename Iter>
inline ObjectPtr<ShapeObj> MakeInplaceShape(Iter begin, Iter end) {
  const int64_t n = IteratorDistance(begin, end);
  if (TVM_FFI_PREDICT_FALSE(n < 0)) {
    TVM_FFI_THROW(ValueError) << "Shape: the iterator range has negative length " << n;
  }
  int64_t* data = nullptr;
  ObjectPtr<ShapeObj> p = MakeEmptyShape(static_cast<size_t>(n), &data);
  for (; begin != end; ++begin) *data++ = static_cast<int64_t>(*begin);
  return p;
}

}  // namespace detail
class ArrayObj;  // container/array.h (not included: kernels that use shapes stay light)
namespace detail {

/*! \brief Whether T is Array<int64_t>, recognised without array.h. */
template <typename T, typename = void>
inline constexpr bool is_int64_array_v = false;
template <typename T>
inline constexpr bool
    is_int64_array_v<T, std::void_t<typename T::ContainerType, typename T::value_type>> =
        std::is_same_v<typename T::ContainerType, ArrayObj>&&
            std::is_same_v<typename T::value_type, int64_t>;

/*!
 * \brief A Shape object with the elements of an ffi.Array (a TVMFFISeqCell of
 *        Any cells), read through the C cell: null when an element is not an int.
 */
inline ObjectPtr<ShapeObj> MakeShapeFromIntSeq(TVMFFIObject* array) {
  const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(array);
  const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
  // Read once: the writes below could alias cell->size as far as the compiler knows.
  const int64_t n = cell->size;
  for (int64_t i = 0; i < n; ++i) {
    if (items[i].type_index != TypeIndex::kTVMFFIInt) return nullptr;
  }
  int64_t* data = nullptr;
  ObjectPtr<ShapeObj> p = MakeEmptyShape(static_cast<size_t>(n), &data);
  for (int64_t i = 0; i < n; ++i) data[i] = items[i].v_int64;
  return p;
}

/*! \brief Write the compact row-major strides of `shape` to out_strides[0..size). */
TVM_FFI_INLINE void FillStridesFromShape(ShapeView shape, int64_t* out_strides) noexcept {
  FillCompactStrides(shape.data(), static_cast<int32_t>(shape.size()), out_strides);
}

}  // namespace detail

/*!
 * \brief Reference to an ffi.Shape: an immutable, reference-counted tuple of
 *        int64 extents. Never null (a default Shape is empty).
 *
 * Prefer ShapeView for arguments that are only read; use Shape to keep a
 * shape alive or to pass it through Any.
 */
class Shape : public ObjectRef {
 public:
  /*! \brief The element type. */
  using index_type = int64_t;

  /*! \brief An empty shape. */
  Shape() : ObjectRef(detail::MakeEmptyShape(0, nullptr)) {}
  /*! \brief Copy the elements of [begin, end) (anything convertible to int64_t). */
  template <typename Iter, typename = std::enable_if_t<detail::is_int64_iterator<Iter>::value>>
  Shape(Iter begin, Iter end) : ObjectRef(detail::MakeInplaceShape(begin, end)) {}
  /*! \brief Copy a braced list: `Shape{2, 3}`. */
  Shape(std::initializer_list<int64_t> values)  // NOLINT(*)
      : Shape(values.begin(), values.end()) {}
  /*! \brief Copy a vector (a template: see ShapeView's). */
  template <typename Alloc>
  Shape(const std::vector<int64_t, Alloc>& values)  // NOLINT(*)
      : Shape(values.begin(), values.end()) {}
  /*! \brief Copy a view. */
  Shape(ShapeView view)  // NOLINT(*)
      : Shape(view.begin(), view.end()) {}
  /*! \brief The extents of an Array<int64_t> (upstream's Shape(Array<int64_t>)). */
  template <typename TArray, std::enable_if_t<detail::is_int64_array_v<TArray>, int> = 0>
  Shape(const TArray& array)  // NOLINT(*)
      : ObjectRef(FromInt64Array(detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(array))) {}

  /*! \return The compact row-major strides of `shape`, as a Shape. */
  static Shape StridesFromShape(ShapeView shape) {
    int64_t* data = nullptr;
    ObjectPtr<ShapeObj> p = detail::MakeEmptyShape(shape.size(), &data);
    detail::FillStridesFromShape(shape, data);
    return Shape(std::move(p));
  }

  /*! \brief Borrow as a view (valid while this Shape lives). */
  operator ShapeView() const noexcept { return ShapeView(data(), size()); }  // NOLINT(*)
  /*! \return A copy of the extents. */
  template <typename Alloc = std::allocator<int64_t>>
  explicit operator std::vector<int64_t, Alloc>() const {
    return std::vector<int64_t, Alloc>(begin(), end());
  }

  const int64_t* data() const noexcept { return get()->data; }
  size_t size() const noexcept { return get()->size; }
  bool empty() const noexcept { return size() == 0; }
  /*! \return The idx-th extent; IndexError when out of range. */
  int64_t operator[](size_t idx) const { return ShapeView(*this).at(idx); }
  /*! \return The idx-th extent; IndexError when out of range. */
  int64_t at(size_t idx) const { return ShapeView(*this).at(idx); }
  int64_t front() const { return at(0); }
  int64_t back() const { return at(size() - 1); }
  const int64_t* begin() const noexcept { return data(); }
  const int64_t* end() const noexcept { return data() + size(); }
  /*! \return The product of the extents (1 when empty). */
  int64_t Product() const noexcept { return get()->Product(); }
  /*! \return The extents as text, e.g. "[2, 3]". */
  std::string ToString() const { return ShapeView(*this).ToString(); }

  /*! \brief Element-wise equality (not identity: use same_as() for that). */
  friend bool operator==(const Shape& lhs, const Shape& rhs) noexcept {
    return ShapeView(lhs) == ShapeView(rhs);
  }
  friend bool operator!=(const Shape& lhs, const Shape& rhs) noexcept { return !(lhs == rhs); }
  friend bool operator==(const Shape& lhs, ShapeView rhs) noexcept { return ShapeView(lhs) == rhs; }
  friend bool operator==(ShapeView lhs, const Shape& rhs) noexcept { return lhs == ShapeView(rhs); }
  friend bool operator!=(const Shape& lhs, ShapeView rhs) noexcept { return !(lhs == rhs); }
  friend bool operator!=(ShapeView lhs, const Shape& rhs) noexcept { return !(lhs == rhs); }

  // An Array<int64_t> holds only ints; the check guards against a corrupted one.
  static ObjectPtr<ShapeObj> FromInt64Array(TVMFFIObject* array) {
    ObjectPtr<ShapeObj> p = detail::MakeShapeFromIntSeq(array);
    if (TVM_FFI_PREDICT_FALSE(p == nullptr)) {
      TVM_FFI_THROW(TypeError) << "Shape: an Array<int64_t> element is not an int";
    }
    return p;
  }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Shape, ObjectRef, ShapeObj);
};

template <>
inline constexpr bool use_default_type_traits_v<Shape> = false;

/*!
 * \brief Shape <-> Any: an ffi.Shape (never None). An ffi.Array whose elements
 *        are all ints also converts (into a new Shape), as upstream allows.
 */
template <>
struct TypeTraits<Shape> : public ObjectRefTypeTraitsBase<Shape> {
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIShape;
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFIShape;
  }
  template <typename LazyT_ = Shape>  // lazy std::optional: see TypeTraitsBase
  static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    if (src->type_index == TypeIndex::kTVMFFIArray) return FromIntArray<LazyT_>(src);
    return std::nullopt;
  }

 private:
  template <typename LazyT_ = Shape>  // lazy std::optional: see TypeTraitsBase
  static std::optional<LazyT_> FromIntArray(const TVMFFIAny* src) {
    ObjectPtr<ShapeObj> p = detail::MakeShapeFromIntSeq(src->v_obj);
    if (p == nullptr) return std::nullopt;
    return Shape(std::move(p));
  }
};

/*! \brief `TVM_FFI_THROW(...) << shape` prints "[2, 3]". */
inline detail::ErrorMessageStream& operator<<(detail::ErrorMessageStream& os, ShapeView shape) {
  return os << shape.ToString();
}
inline detail::ErrorMessageStream& operator<<(detail::ErrorMessageStream& os, const Shape& shape) {
  return os << shape.ToString();
}

/*!
 * \brief `stream << shape` for any std::ostream-like stream (anything with
 *        write(const char*, n)); this header does not include <ostream>.
 */
template <typename Stream,
          typename = decltype(std::declval<Stream&>().write(static_cast<const char*>(nullptr), 0))>
inline Stream& operator<<(Stream& os, ShapeView shape) {
  std::string text = shape.ToString();
  os.write(text.data(), static_cast<std::ptrdiff_t>(text.size()));
  return os;
}
template <typename Stream,
          typename = decltype(std::declval<Stream&>().write(static_cast<const char*>(nullptr), 0))>
inline Stream& operator<<(Stream& os, const Shape& shape) {
  return os << ShapeView(shape);
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_SHAPE_H_
