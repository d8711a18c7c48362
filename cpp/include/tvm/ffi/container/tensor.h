/*
 * tvmffi C++ layer: tensors.
 *
 * - TensorObj: the ffi.Tensor object (type index 70), the ABI header followed
 *   immediately by a DLTensor, so `(char*)obj + 24` is a DLTensor*. Objects
 *   made by this header keep their shape/strides (and the allocator) after it.
 * - Tensor: the owning, reference-counted handle to a TensorObj.
 * - TensorView: a non-owning view with exactly the layout of a DLTensor (it
 *   holds a copy of the descriptor, not the data). Use it for kernel
 *   arguments: it accepts both borrowed DLTensor* and owned Tensor values.
 *
 * Conversions through Any/AnyView follow the tensor concept doc: a borrowed
 * DLTensor* (kTVMFFIDLTensorPtr) converts to TensorView but never to Tensor;
 * an ffi.Tensor converts to both; Tensor goes into Any owning; TensorView goes
 * into an AnyView as a borrowed kTVMFFIDLTensorPtr.
 */
#ifndef TVM_FFI_CONTAINER_TENSOR_H_
#define TVM_FFI_CONTAINER_TENSOR_H_

// any.h: code written for upstream uses Any after including tensor.h alone.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/details/tensor_geometry.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/type_traits.h>

#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <utility>

namespace tvm {
namespace ffi {

// ---------------------------------------------------------------------------
// DLTensor helpers
// ---------------------------------------------------------------------------

namespace detail {
/*!
 * \brief Move byte_offset into the data pointer where pointers are plain
 *        addresses (as upstream's strided views do); other devices keep it.
 */
TVM_FFI_INLINE void FoldByteOffsetIntoData(DLTensor* t) noexcept {
  if (t->byte_offset != 0 && IsDirectAddressDevice(t->device)) {
    t->data = static_cast<char*>(t->data) + t->byte_offset;
    t->byte_offset = 0;
  }
}
}  // namespace detail

namespace detail {

/*!
 * \brief dim (possibly negative, Python style) as an index into [0, ndim);
 *        IndexError naming the accessor when out of range.
 */
[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowDimIndexError(const char* accessor, int64_t dim,
                                                              int32_t ndim) {
  if (ndim == 0) {
    TVM_FFI_THROW(IndexError) << accessor << "(" << dim
                              << "): a 0-dimensional tensor has no dimensions";
  }
  TVM_FFI_THROW(IndexError) << accessor << "(" << dim
                            << "): dimension index out of range for a tensor with " << ndim
                            << " dimensions (expected " << -static_cast<int64_t>(ndim) << ".."
                            << (ndim - 1) << ")";
}

TVM_FFI_INLINE int32_t NormalizeDimIndex(const char* accessor, int64_t dim, int32_t ndim) {
  const int64_t i = dim < 0 ? dim + ndim : dim;
  if (TVM_FFI_PREDICT_FALSE(static_cast<uint64_t>(i) >= static_cast<uint64_t>(ndim))) {
    ThrowDimIndexError(accessor, dim, ndim);
  }
  return static_cast<int32_t>(i);
}

/*!
 * \brief Compact strides for a tensor that carries none (strides == NULL).
 *
 * The view accessors return a ShapeView, which must point at memory that
 * outlives it, and a TensorView has exactly a DLTensor's layout, so there is
 * no room in the view. Compact strides are a pure function of the shape, so
 * one copy per distinct shape is kept for the life of the process: the
 * returned pointer never dangles. Only stride-less tensors of two or more
 * dimensions reach the table (Tensor objects always carry strides).
 *
 * The table is a lock-free list (push at the head with a compare-and-swap,
 * nodes never freed), so this header needs neither <mutex> nor a map: two
 * threads that add the same shape at once may both add it, which costs a
 * node and nothing else.
 */
TVM_FFI_NOINLINE inline const int64_t* InternCompactStrides(const int64_t* shape, int32_t ndim) {
  static constexpr int64_t kUnitStride = 1;
  if (ndim <= 0) return nullptr;
  if (ndim == 1) return &kUnitStride;
  struct Node {
    Node* next;
    int32_t ndim;
    int64_t* shape;    // ndim extents, then
    int64_t* strides;  // ndim strides, in the same block
  };
  static Node* head = nullptr;  // leaked on purpose: valid during static destruction
  auto find = [&](Node* n) -> const int64_t* {
    for (; n != nullptr; n = n->next) {
      if (n->ndim == ndim &&
          std::memcmp(n->shape, shape, sizeof(int64_t) * static_cast<size_t>(ndim)) == 0) {
        return n->strides;
      }
    }
    return nullptr;
  };
  Node* first = __atomic_load_n(&head, __ATOMIC_ACQUIRE);
  if (const int64_t* hit = find(first)) return hit;
  auto* node = static_cast<Node*>(
      ::operator new(sizeof(Node) + 2 * sizeof(int64_t) * static_cast<size_t>(ndim)));
  node->ndim = ndim;
  node->shape = reinterpret_cast<int64_t*>(node + 1);
  node->strides = node->shape + ndim;
  std::memcpy(node->shape, shape, sizeof(int64_t) * static_cast<size_t>(ndim));
  FillStridesFromShape(ShapeView(shape, static_cast<size_t>(ndim)), node->strides);
  node->next = first;
  while (!__atomic_compare_exchange_n(&head, &node->next, node, /*weak=*/true, __ATOMIC_RELEASE,
                                      __ATOMIC_ACQUIRE)) {
  }
  return node->strides;
}

/*! \brief Strides of a DLTensor as a view; compact ones when it has none. */
TVM_FFI_INLINE ShapeView StridesOf(const DLTensor& t) {
  if (TVM_FFI_PREDICT_TRUE(t.strides != nullptr || t.ndim == 0)) {
    return ShapeView(t.strides, static_cast<size_t>(t.ndim));
  }
  return ShapeView(InternCompactStrides(t.shape, t.ndim), static_cast<size_t>(t.ndim));
}

/*! \brief Stride of dimension i; computed from the shape when there are no strides. */
TVM_FFI_INLINE int64_t StrideOf(const DLTensor& t, int32_t i) noexcept {
  return t.strides != nullptr ? t.strides[i] : CompactStride(t.shape, t.ndim, i);
}

/*! \brief The error of CheckNewTensorShape (out of line: the check stays a few instructions). */
[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowBadNewTensorShape(const char* api,
                                                                  ShapeView shape) {
  if (shape.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    TVM_FFI_THROW(ValueError) << api << ": too many dimensions (" << shape.size() << ")";
  }
  size_t i = 0;
  while (i < shape.size() && shape[i] >= 0) ++i;
  TVM_FFI_THROW(ValueError) << api << ": shape " << shape << " has a negative extent in dimension "
                            << i;
}

/*! \brief ValueError unless the extents are non-negative (shape/strides of a new tensor). */
TVM_FFI_INLINE void CheckNewTensorShape(const char* api, ShapeView shape) {
  if (TVM_FFI_PREDICT_FALSE(shape.size() >
                            static_cast<size_t>(std::numeric_limits<int32_t>::max()))) {
    ThrowBadNewTensorShape(api, shape);
  }
  // One test for all extents: the OR of the extents is negative if one is.
  int64_t sign = 0;
  for (size_t i = 0; i < shape.size(); ++i) sign |= shape[i];
  if (TVM_FFI_PREDICT_FALSE(sign < 0)) ThrowBadNewTensorShape(api, shape);
}

}  // namespace detail

// ---------------------------------------------------------------------------
// TensorObj
// ---------------------------------------------------------------------------

/*!
 * \brief The ffi.Tensor object: the ABI header, then a DLTensor at offset 24.
 *
 * Tensor objects may come from any binary (this header, libtvmffi's DLPack
 * import, a kernel library built against upstream headers): only the header
 * and the DLTensor are common to all of them.
 */
class TensorObj : public Object, public DLTensor {
 public:
  static constexpr int32_t _type_index = TypeIndex::kTVMFFITensor;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFITensor, TensorObj, Object);

  /*!
   * \brief Export as a legacy DLPack tensor sharing this tensor's data (through
   *        TVMFFITensorToDLPack). The export holds a reference to this object
   *        until the consumer calls its deleter (exactly once).
   */
  DLManagedTensor* ToDLPack() const {
    DLManagedTensor* out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorToDLPack(Handle(), &out));
    return out;
  }
  /*! \brief As ToDLPack, versioned (flags such as read-only carry over). */
  DLManagedTensorVersioned* ToDLPackVersioned() const {
    DLManagedTensorVersioned* out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorToDLPackVersioned(Handle(), &out));
    return out;
  }

 protected:
  /*! \brief All DLTensor fields zero. */
  TensorObj() noexcept : Object() {
    this->data = nullptr;
    this->device = DLDevice{static_cast<DLDeviceType>(0), 0};
    this->ndim = 0;
    this->dtype = DLDataType{0, 0, 0};
    this->shape = nullptr;
    this->strides = nullptr;
    this->byte_offset = 0;
  }
  /*! \brief Tag of the constructor that leaves the DLTensor for the subclass to fill. */
  struct SubclassFillsDLTensor {};
  // The subclass writes every field right away: zeroing first would only cost time.
  explicit TensorObj(SubclassFillsDLTensor) noexcept : Object() {}

 private:
  TVMFFIObjectHandle Handle() const noexcept {
    return detail::ObjectUnsafe::GetHeader(static_cast<const Object*>(this));
  }
};

namespace detail {

/*!
 * \brief A TensorObj whose data comes from an NDAllocator (AllocData/FreeData),
 *        followed in the same block by its shape and strides (2 * ndim int64).
 */
template <typename TNDAlloc>
class TensorObjFromNDAlloc : public TensorObj {
 public:
  template <typename... ExtraArgs>
  TensorObjFromNDAlloc(TNDAlloc alloc, ShapeView shape_in, const int64_t* strides_in,
                       DLDataType dtype_in, DLDevice device_in, ExtraArgs&&... extra_args)
      : TensorObj(SubclassFillsDLTensor{}), alloc_(std::move(alloc)) {
    const int32_t nd = static_cast<int32_t>(shape_in.size());
    int64_t* tail = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(this) + sizeof(*this));
    this->data = nullptr;
    this->device = device_in;
    this->ndim = nd;
    this->dtype = dtype_in;
    this->byte_offset = 0;
    this->shape = nd > 0 ? tail : nullptr;
    this->strides = nd > 0 ? tail + nd : nullptr;
    if (nd > 0) std::memcpy(tail, shape_in.data(), sizeof(int64_t) * static_cast<size_t>(nd));
    if (strides_in != nullptr) {
      if (nd > 0) std::memcpy(tail + nd, strides_in, sizeof(int64_t) * static_cast<size_t>(nd));
    } else {
      FillStridesFromShape(shape_in, tail + nd);
    }
    // If AllocData throws, ~TensorObjFromNDAlloc does not run: no FreeData for nothing.
    alloc_.AllocData(static_cast<DLTensor*>(this), std::forward<ExtraArgs>(extra_args)...);
  }
  ~TensorObjFromNDAlloc() { alloc_.FreeData(static_cast<DLTensor*>(this)); }

 private:
  TNDAlloc alloc_;
};

/*
 * Blocks of FromNDAlloc tensors, recycled per thread: the object's malloc and
 * free are otherwise most of the cost of a small tensor. Every block of at
 * most kNDAllocBlockBytes is allocated at that size, so any one serves any
 * such tensor, whichever binary or thread made it. A thread's blocks are
 * freed when it exits. Sanitizer builds do not recycle (use-after-free stays
 * visible).
 */
inline constexpr size_t kNDAllocBlockBytes = 128;
inline constexpr int32_t kNDAllocPoolMax = 32;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kNDAllocUsePool = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kNDAllocUsePool = false;
#else
inline constexpr bool kNDAllocUsePool = true;
#endif
#else
inline constexpr bool kNDAllocUsePool = true;
#endif

/*!
 * \brief A thread's pool of blocks of one size, the one per-thread block pool
 *        of the project: FromNDAlloc tensors here, libtvmffi's own tensors in
 *        runtime/tensor.cc, each with its own thread_local instance. The block
 *        released last is taken first (a make/drop loop only touches `slot`);
 *        up to kMax others wait in a list linked through their first word.
 *        Trivially destructible and constant-initialised, so a thread_local of
 *        it needs no TLS guard; its owner's closer (a thread_local with a
 *        destructor, touched once per thread by the `arm` of Put) drains it
 *        when the thread ends.
 */
template <int32_t kMax>
struct ThreadBlockPool {
  void* slot;     // the block released last, taken first
  void* head;     // the others, a list of at most kMax
  int32_t count;  // blocks in the list
  bool armed;     // the closer is registered for this thread (false again once it ran)
  bool closed;    // the closer ran: nothing joins any more

  /*! \brief A block of the pool, or NULL when it has none. */
  TVM_FFI_INLINE void* Take() noexcept {
    if (void* mem = slot; TVM_FFI_PREDICT_TRUE(mem != nullptr)) {
      slot = nullptr;
      return mem;
    }
    if (void* mem = head) {
      head = *static_cast<void**>(mem);
      --count;
      return mem;
    }
    return nullptr;
  }
  /*! \brief Put's usual case, with no call: armed and the slot free. */
  TVM_FFI_INLINE bool PutInSlot(void* mem) noexcept {
    if (TVM_FFI_PREDICT_TRUE(armed && slot == nullptr)) {
      slot = mem;
      return true;
    }
    return false;
  }
  /*!
   * \brief Keep `mem` for a later Take. `arm()` registers the closer on the
   *        thread's first Put. \return false (the caller frees `mem`) when the
   *        closer already ran or the pool is full.
   */
  template <typename Arm>
  TVM_FFI_INLINE bool Put(void* mem, Arm arm) noexcept {
    if (closed) return false;
    if (TVM_FFI_PREDICT_FALSE(!armed)) arm();
    if (slot == nullptr) {
      slot = mem;
      return true;
    }
    if (count < kMax) {
      *static_cast<void**>(mem) = head;
      head = mem;
      ++count;
      return true;
    }
    return false;
  }
  /*! \brief The closer's work: every block to `free_block`; nothing joins after. */
  template <typename Free>
  void Drain(Free free_block) noexcept {
    closed = true;
    armed = false;  // off PutInSlot's fast path
    free_block(slot);
    slot = nullptr;
    while (head != nullptr) {
      void* next = *static_cast<void**>(head);
      free_block(head);
      head = next;
    }
    count = 0;
  }
};

using NDAllocPool = ThreadBlockPool<kNDAllocPoolMax>;
inline thread_local NDAllocPool nd_alloc_pool{nullptr, nullptr, 0, false, false};

struct NDAllocPoolCloser {
  ~NDAllocPoolCloser() {
    nd_alloc_pool.Drain([](void* block) { ::operator delete(block); });
  }
  void Arm() noexcept { nd_alloc_pool.armed = true; }
};
inline thread_local NDAllocPoolCloser nd_alloc_pool_closer;

// Registers the closer (its first use does): a thread_local with a destructor
// is reached through a guard, so only once per thread.
TVM_FFI_NOINLINE inline void ArmNDAllocPool() noexcept {
  nd_alloc_pool_closer.Arm();
}

TVM_FFI_INLINE void* NDAllocBlock(size_t size) {
  if (kNDAllocUsePool && size <= kNDAllocBlockBytes) {
    if (void* mem = nd_alloc_pool.Take()) return mem;
    return ::operator new(kNDAllocBlockBytes);
  }
  return ::operator new(size);
}

// `size` is the size NDAllocBlock was asked for.
TVM_FFI_INLINE void NDFreeBlock(void* mem, size_t size) noexcept {
  if (kNDAllocUsePool && size <= kNDAllocBlockBytes) {
    NDAllocPool& pool = nd_alloc_pool;
    if (pool.PutInSlot(mem) || pool.Put(mem, ArmNDAllocPool)) return;
  }
  ::operator delete(mem);
}

/*! \brief The deleter of FromNDAlloc tensors: FreeData, then the block back. */
template <typename T>
void NDAllocTensorDeleter(void* self, int flags) {
  T* tptr = ObjectUnsafe::RawObjectPtrFromUnowned<T>(static_cast<TVMFFIObject*>(self));
  if (flags == kTVMFFIObjectDeleterFlagBitMaskBoth) {
    const size_t size = sizeof(T) + 2 * sizeof(int64_t) * static_cast<size_t>(tptr->ndim);
    tptr->T::~T();
    NDFreeBlock(tptr, size);
    return;
  }
  // With weak references the size is gone by the time the block is: no recycling.
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) tptr->T::~T();
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) ::operator delete(tptr);
}

/*! \brief make_inplace_array_object for FromNDAlloc tensors, with recycled blocks. */
template <typename TNDAlloc, typename... Args>
ObjectPtr<TensorObjFromNDAlloc<TNDAlloc>> MakeNDAllocTensor(size_t ndim, Args&&... args) {
  using T = TensorObjFromNDAlloc<TNDAlloc>;
  if constexpr (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    // An over-aligned allocator object: make_object's aligned allocation, no recycling.
    return make_inplace_array_object<T, int64_t>(2 * ndim, std::forward<Args>(args)...);
  } else {
    static_assert(sizeof(T) % alignof(int64_t) == 0, "shape and strides follow the object");
    const size_t size = sizeof(T) + 2 * sizeof(int64_t) * static_cast<size_t>(ndim);
    void* mem = NDAllocBlock(size);
    T* ptr;
    try {
      ptr = new (mem) T(std::forward<Args>(args)...);
    } catch (...) {
      NDFreeBlock(mem, size);
      throw;
    }
    // As make_object's header, with this deleter.
    InitObjectHeader(ObjectUnsafe::GetHeader(ptr), T::RuntimeTypeIndex(), &NDAllocTensorDeleter<T>);
    return ObjectUnsafe::ObjectPtrFromOwned<T>(static_cast<Object*>(ptr));
  }
}

}  // namespace detail

// ---------------------------------------------------------------------------
// Tensor
// ---------------------------------------------------------------------------

/*!
 * \brief An owning, reference-counted tensor (an ffi.Tensor object). May be null.
 *
 * Accessors follow at::Tensor (dim, sizes, size, strides, stride, numel,
 * data_ptr, device, is_contiguous) with the tvm-ffi spellings alongside
 * (ndim, shape, IsContiguous). Calling them on a null Tensor is a ValueError.
 */
class Tensor : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Tensor, ObjectRef, TensorObj);

  /*! \return The address of the first element (data + byte_offset on direct-address devices). */
  TVM_FFI_INLINE void* data_ptr() const { return detail::DataPtrOf(dl()); }
  /*! \return The device. */
  DLDevice device() const { return dl().device; }
  /*! \return The number of dimensions. */
  int32_t ndim() const { return dl().ndim; }
  /*! \return The number of dimensions (at::Tensor spelling). */
  int32_t dim() const { return dl().ndim; }
  /*! \return The element type. */
  DLDataType dtype() const { return dl().dtype; }
  /*! \return The extents (valid while this tensor lives). */
  ShapeView shape() const { return ShapeView(dl().shape, static_cast<size_t>(dl().ndim)); }
  /*! \return The extents (at::Tensor spelling). */
  ShapeView sizes() const { return shape(); }
  /*! \return The strides in elements; compact ones when the tensor carries none. */
  ShapeView strides() const { return detail::StridesOf(dl()); }
  /*! \return The extent of dimension idx; negative idx counts from the end. IndexError if out of
   * range. */
  int64_t size(int64_t idx) const {
    const DLTensor& t = dl();
    return t.shape[detail::NormalizeDimIndex("size", idx, t.ndim)];
  }
  /*! \return The stride of dimension idx; negative idx counts from the end. IndexError if out of
   * range. */
  int64_t stride(int64_t idx) const {
    const DLTensor& t = dl();
    return detail::StrideOf(t, detail::NormalizeDimIndex("stride", idx, t.ndim));
  }
  /*! \return The number of elements. */
  int64_t numel() const { return shape().Product(); }
  /*! \return The offset in bytes of the first element from data. */
  uint64_t byte_offset() const { return dl().byte_offset; }
  /*! \return Whether the layout is compact row-major. */
  bool IsContiguous() const { return tvm::ffi::IsContiguous(dl()); }
  /*! \return Whether the layout is compact row-major (at::Tensor spelling). */
  bool is_contiguous() const { return IsContiguous(); }
  /*! \return Whether the first element is aligned to `alignment` bytes. */
  bool IsAligned(size_t alignment) const { return tvm::ffi::IsAligned(dl(), alignment); }
  /*! \return The DLTensor inside the object (NULL for a null Tensor). */
  const DLTensor* GetDLTensorPtr() const noexcept { return get(); }

  /*!
   * \brief A Tensor viewing this one's memory with another shape and strides
   *        (through TVMFFITensorCreateUnsafeView; the view keeps this tensor alive).
   * \param element_offset Added to the start, in elements of dtype.
   * \note Unchecked beyond the shape itself: the caller vouches that the view
   *       stays inside this tensor's memory.
   */
  // A template only so that files which never call it do not instantiate
  // std::optional<int64_t>; call it as a plain function.
  template <typename LazyInt_ = int64_t>
  Tensor as_strided(
      ShapeView shape, ShapeView strides,
      detail::TypeIdentity<std::optional<LazyInt_>> element_offset = std::nullopt) const {
    TVM_FFI_CHECK(shape.size() == strides.size(), ValueError)
        << "as_strided: shape " << shape << " and strides " << strides << " differ in length";
    DLTensor prototype = dl();
    prototype.shape = const_cast<int64_t*>(shape.data());
    prototype.strides = const_cast<int64_t*>(strides.data());
    prototype.ndim = static_cast<int32_t>(shape.size());
    const int64_t offset = element_offset.value_or(0);
    TVM_FFI_CHECK(offset >= 0, ValueError) << "as_strided: negative element_offset " << offset;
    prototype.byte_offset += GetDataSize(static_cast<size_t>(offset), prototype.dtype);
    detail::FoldByteOffsetIntoData(&prototype);
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorCreateUnsafeView(
        detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(*this), &prototype, &out));
    return FromOwnedHandle(out);
  }

  /*!
   * \brief Allocate a compact tensor with an NDAllocator: an object with
   *        `void AllocData(DLTensor*, extra_args...)` (sets data) and
   *        `void FreeData(DLTensor*)`. The Tensor keeps a copy of `alloc` and
   *        calls FreeData when its last reference goes.
   *
   * \code
   * struct CPUNDAlloc {
   *   void AllocData(DLTensor* t) { t->data = malloc(ffi::GetDataSize(*t)); }
   *   void FreeData(DLTensor* t) { free(t->data); }
   * };
   * ffi::Tensor t = ffi::Tensor::FromNDAlloc(CPUNDAlloc(), {2, 3}, dl_float32, {kDLCPU, 0});
   * \endcode
   *
   * \note FreeData is code of the binary that called FromNDAlloc: a tensor made
   *       by a loaded library must not outlive it (prefer FromEnvAlloc there).
   * \param shape Extents (ShapeView, Shape, std::vector<int64_t> or a braced list).
   */
  template <typename TNDAlloc, typename... ExtraArgs>
  static Tensor FromNDAlloc(TNDAlloc alloc, ShapeView shape, DLDataType dtype, DLDevice device,
                            ExtraArgs&&... extra_args) {
    detail::CheckNewTensorShape("FromNDAlloc", shape);
    return Tensor(detail::MakeNDAllocTensor<TNDAlloc>(shape.size(), std::move(alloc), shape,
                                                      nullptr, dtype, device,
                                                      std::forward<ExtraArgs>(extra_args)...));
  }

  /*!
   * \brief As FromNDAlloc with explicit strides. AllocData still sees the
   *        compact byte size (GetDataSize), so the strides must address only
   *        elements inside it: non-negative and, for a non-empty tensor,
   *        sum((shape[i] - 1) * strides[i]) < numel (any permutation of a
   *        compact layout qualifies). ValueError otherwise.
   */
  template <typename TNDAlloc, typename... ExtraArgs>
  static Tensor FromNDAllocStrided(TNDAlloc alloc, ShapeView shape, ShapeView strides,
                                   DLDataType dtype, DLDevice device, ExtraArgs&&... extra_args) {
    detail::CheckNewTensorShape("FromNDAllocStrided", shape);
    // Checked here, with a noreturn throw, so the compiler sees equal lengths below.
    if (TVM_FFI_PREDICT_FALSE(shape.size() != strides.size())) {
      ThrowStridesLengthMismatch("FromNDAllocStrided", shape, strides);
    }
    CheckStridesFitCompact(shape, strides);
    return Tensor(detail::MakeNDAllocTensor<TNDAlloc>(shape.size(), std::move(alloc), shape,
                                                      strides.data(), dtype, device,
                                                      std::forward<ExtraArgs>(extra_args)...));
  }

  /*!
   * \brief Allocate through the environment's allocator:
   *        `Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2, 3}, dtype, device)`.
   *
   * The function is passed explicitly so that the dependency on
   * extra/c_env_api.h is visible. The memory belongs to the host's allocator
   * (its deleter lives in the host), so such tensors may outlive the library
   * that made them. Throws the error the allocator reported (RuntimeError
   * when no allocator is installed).
   */
  static Tensor FromEnvAlloc(int (*env_alloc)(DLTensor*, TVMFFIObjectHandle*), ShapeView shape,
                             DLDataType dtype, DLDevice device) {
    TVM_FFI_CHECK(env_alloc != nullptr, ValueError) << "FromEnvAlloc: env_alloc is NULL";
    detail::CheckNewTensorShape("FromEnvAlloc", shape);
    DLTensor prototype{};
    prototype.device = device;
    prototype.dtype = dtype;
    prototype.ndim = static_cast<int32_t>(shape.size());
    prototype.shape = const_cast<int64_t*>(shape.data());
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(env_alloc(&prototype, &out));
    return FromOwnedHandle(out);
  }

  /*!
   * \brief Take ownership of a legacy DLPack tensor without copying (through
   *        TVMFFITensorFromDLPack). Ownership passes in every case: on
   *        failure the producer's deleter has already run when this throws.
   * \param require_alignment If > 0, the first element must be aligned to it.
   * \param require_contiguous Require a compact row-major layout.
   * \throws ValueError for malformed, misaligned or non-contiguous input.
   */
  static Tensor FromDLPack(DLManagedTensor* tensor, size_t require_alignment = 0,
                           bool require_contiguous = false) {
    if (TVM_FFI_PREDICT_FALSE(require_alignment >
                              static_cast<size_t>(std::numeric_limits<int32_t>::max()))) {
      if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
      ThrowAlignmentTooLarge("FromDLPack", require_alignment);
    }
    TVMFFIObjectHandle out;  // set whenever the call returns 0, read only then
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorFromDLPack(tensor, static_cast<int32_t>(require_alignment),
                                                   require_contiguous ? 1 : 0, &out));
    return FromImported(out);
  }

  /*! \brief As FromDLPack for a versioned DLPack tensor; flags (read-only) are kept. */
  static Tensor FromDLPackVersioned(DLManagedTensorVersioned* tensor, size_t require_alignment = 0,
                                    bool require_contiguous = false) {
    if (TVM_FFI_PREDICT_FALSE(require_alignment >
                              static_cast<size_t>(std::numeric_limits<int32_t>::max()))) {
      if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
      ThrowAlignmentTooLarge("FromDLPackVersioned", require_alignment);
    }
    TVMFFIObjectHandle out;  // set whenever the call returns 0, read only then
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorFromDLPackVersioned(
        tensor, static_cast<int32_t>(require_alignment), require_contiguous ? 1 : 0, &out));
    return FromImported(out);
  }

  /*! \brief Export as a legacy DLPack tensor sharing the data; the consumer calls its deleter once.
   */
  DLManagedTensor* ToDLPack() const {
    DLManagedTensor* out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFITensorToDLPack(detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(*this), &out));
    return out;
  }
  /*! \brief Export as a versioned DLPack tensor (flags such as read-only carry over). */
  DLManagedTensorVersioned* ToDLPackVersioned() const {
    DLManagedTensorVersioned* out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorToDLPackVersioned(
        detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(*this), &out));
    return out;
  }

 private:
  // The DLTensor of a non-null Tensor; ValueError for a null one.
  TVM_FFI_INLINE const DLTensor& dl() const {
    const TensorObj* obj = get();
    if (TVM_FFI_PREDICT_FALSE(obj == nullptr)) ThrowNullAccess();
    return *obj;
  }
  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowNullAccess() {
    TVM_FFI_THROW(ValueError) << "accessing a null Tensor";
  }
  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowAlignmentTooLarge(const char* api,
                                                                    size_t alignment) {
    TVM_FFI_THROW(ValueError) << api << ": require_alignment " << alignment
                              << " is larger than the C API accepts (int32)";
  }
  // The import's C function returns an ffi.Tensor whenever it returns 0 (its
  // contract, ours and upstream's): no second check.
  static Tensor FromImported(TVMFFIObjectHandle handle) noexcept {
    return Tensor(
        detail::ObjectUnsafe::ObjectPtrFromOwned<TensorObj>(static_cast<TVMFFIObject*>(handle)));
  }
  static Tensor FromOwnedHandle(TVMFFIObjectHandle handle) {
    TVMFFIObject* obj = static_cast<TVMFFIObject*>(handle);
    if (TVM_FFI_PREDICT_FALSE(obj == nullptr || obj->type_index != TypeIndex::kTVMFFITensor)) {
      ThrowNotATensor(obj);
    }
    return Tensor(detail::ObjectUnsafe::ObjectPtrFromOwned<TensorObj>(obj));
  }
  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowNotATensor(TVMFFIObject* obj) {
    if (obj == nullptr) {
      TVM_FFI_THROW(RuntimeError) << "the tensor allocator reported success but returned no tensor";
    }
    std::string key = detail::TypeIndexToTypeKey(obj->type_index);
    detail::HeaderDecRef(obj);
    TVM_FFI_THROW(RuntimeError) << "the tensor allocator returned a `" << key
                                << "` instead of an ffi.Tensor";
  }
  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowStridesLengthMismatch(const char* api,
                                                                        ShapeView shape,
                                                                        ShapeView strides) {
    TVM_FFI_THROW(ValueError) << api << ": shape " << shape << " and strides " << strides
                              << " differ in length";
  }
  static void CheckStridesFitCompact(ShapeView shape, ShapeView strides) {
    int64_t numel = shape.Product();
    if (numel == 0) return;
    int64_t last = 0;
    for (size_t i = 0; i < shape.size(); ++i) {
      TVM_FFI_CHECK(strides[i] >= 0, ValueError) << "FromNDAllocStrided: strides " << strides
                                                 << " has a negative stride in dimension " << i;
      int64_t step = 0;
      if (__builtin_mul_overflow(shape[i] - 1, strides[i], &step) ||
          __builtin_add_overflow(last, step, &last)) {
        last = std::numeric_limits<int64_t>::max();
      }
    }
    TVM_FFI_CHECK(last < numel, ValueError)
        << "FromNDAllocStrided: strides " << strides << " reach element " << last
        << ", outside the compact allocation of " << numel << " elements for shape " << shape;
  }
};

// ---------------------------------------------------------------------------
// TensorView
// ---------------------------------------------------------------------------

/*!
 * \brief A non-owning view of a tensor, laid out exactly like a DLTensor (it
 *        holds a copy of the descriptor).
 *
 * Whoever made the view keeps the tensor alive: its data and its shape and
 * strides arrays must outlive the view. The recommended type for kernel
 * arguments: callers may pass a borrowed DLTensor* or an owned ffi.Tensor.
 */
class TensorView {
 public:
  /*! \brief View a Tensor (ValueError if null). The Tensor must outlive the view. */
  TensorView(const Tensor& tensor) : tensor_(CheckedTensor(tensor)) {}  // NOLINT(*)
  /*! \brief View a DLTensor (ValueError if NULL). Its arrays must outlive the view. */
  TensorView(const DLTensor* tensor) : tensor_(CheckedDLTensor(tensor)) {}  // NOLINT(*)
  // A view of a temporary Tensor would dangle at once.
  TensorView(Tensor&& tensor) = delete;  // NOLINT(*)
  TensorView(const TensorView&) noexcept = default;
  TensorView(TensorView&&) noexcept = default;
  TensorView& operator=(const TensorView&) noexcept = default;
  TensorView& operator=(TensorView&&) noexcept = default;
  /*! \brief View another Tensor (ValueError if null). */
  TensorView& operator=(const Tensor& tensor) {
    tensor_ = CheckedTensor(tensor);
    return *this;
  }
  TensorView& operator=(Tensor&& tensor) = delete;

  /*! \return The address of the first element (data + byte_offset on direct-address devices). */
  TVM_FFI_INLINE void* data_ptr() const noexcept { return detail::DataPtrOf(tensor_); }
  DLDevice device() const noexcept { return tensor_.device; }
  int32_t ndim() const noexcept { return tensor_.ndim; }
  /*! \return The number of dimensions (at::Tensor spelling). */
  int32_t dim() const noexcept { return tensor_.ndim; }
  DLDataType dtype() const noexcept { return tensor_.dtype; }
  /*! \return The extents (borrowed from the viewed tensor). */
  ShapeView shape() const noexcept {
    return ShapeView(tensor_.shape, static_cast<size_t>(tensor_.ndim));
  }
  ShapeView sizes() const noexcept { return shape(); }
  /*!
   * \return The strides in elements. When the viewed DLTensor has none
   *         (compact), compact strides are returned from a process-wide
   *         table of immutable arrays, so the view never dangles.
   */
  ShapeView strides() const { return detail::StridesOf(tensor_); }
  /*! \return The extent of dimension idx; negative idx counts from the end. IndexError if out of
   * range. */
  int64_t size(int64_t idx) const {
    return tensor_.shape[detail::NormalizeDimIndex("size", idx, tensor_.ndim)];
  }
  /*! \return The stride of dimension idx; negative idx counts from the end. IndexError if out of
   * range. */
  int64_t stride(int64_t idx) const {
    return detail::StrideOf(tensor_, detail::NormalizeDimIndex("stride", idx, tensor_.ndim));
  }
  int64_t numel() const noexcept { return shape().Product(); }
  uint64_t byte_offset() const noexcept { return tensor_.byte_offset; }
  bool IsContiguous() const noexcept { return tvm::ffi::IsContiguous(tensor_); }
  bool is_contiguous() const noexcept { return IsContiguous(); }
  bool IsAligned(size_t alignment) const noexcept {
    return tvm::ffi::IsAligned(tensor_, alignment);
  }
  /*! \return The view's own DLTensor (valid while the view lives). */
  const DLTensor* GetDLTensorPtr() const noexcept { return &tensor_; }

  /*!
   * \brief A view with another shape and strides over the same data.
   * \note The shape and strides arrays are borrowed, not copied: they must
   *       outlive the returned view (a braced list does not).
   */
  // A template only so that files which never call it do not instantiate
  // std::optional<int64_t>; call it as a plain function.
  template <typename LazyInt_ = int64_t>
  TensorView as_strided(
      ShapeView shape, ShapeView strides,
      detail::TypeIdentity<std::optional<LazyInt_>> element_offset = std::nullopt) const {
    TVM_FFI_CHECK(shape.size() == strides.size(), ValueError)
        << "as_strided: shape " << shape << " and strides " << strides << " differ in length";
    const int64_t offset = element_offset.value_or(0);
    TVM_FFI_CHECK(offset >= 0, ValueError) << "as_strided: negative element_offset " << offset;
    DLTensor prototype = tensor_;
    prototype.shape = const_cast<int64_t*>(shape.data());
    prototype.strides = const_cast<int64_t*>(strides.data());
    prototype.ndim = static_cast<int32_t>(shape.size());
    prototype.byte_offset += GetDataSize(static_cast<size_t>(offset), prototype.dtype);
    detail::FoldByteOffsetIntoData(&prototype);
    return TensorView(prototype, Unchecked{});
  }

 private:
  struct Unchecked {};
  TensorView(const DLTensor& tensor, Unchecked) noexcept : tensor_(tensor) {}

  static const DLTensor& CheckedTensor(const Tensor& tensor) {
    const DLTensor* ptr = tensor.GetDLTensorPtr();
    if (TVM_FFI_PREDICT_FALSE(ptr == nullptr)) ThrowNull("a null Tensor");
    return *ptr;
  }
  static const DLTensor& CheckedDLTensor(const DLTensor* tensor) {
    if (TVM_FFI_PREDICT_FALSE(tensor == nullptr)) ThrowNull("a NULL DLTensor*");
    return *tensor;
  }
  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowNull(const char* what) {
    TVM_FFI_THROW(ValueError) << "cannot make a TensorView of " << what;
  }

  DLTensor tensor_;

  template <typename, typename>
  friend struct TypeTraits;
};

static_assert(sizeof(TensorView) == sizeof(DLTensor) && alignof(TensorView) == alignof(DLTensor),
              "TensorView must have the layout of a DLTensor");
static_assert(std::is_trivially_copyable_v<TensorView>, "TensorView must copy like a DLTensor");

/*! \return The bytes of data of the tensor's shape, compactly. */
inline size_t GetDataSize(const Tensor& tensor) {
  return GetDataSize(static_cast<size_t>(tensor.numel()), tensor.dtype());
}
/*! \return The bytes of data of the view's shape, compactly. */
inline size_t GetDataSize(const TensorView& tensor) {
  return GetDataSize(static_cast<size_t>(tensor.numel()), tensor.dtype());
}

// ---------------------------------------------------------------------------
// Any conversions
// ---------------------------------------------------------------------------

namespace detail {
/*! \brief What a failed conversion to a tensor type found, with a hint for the owning case. */
TVM_FFI_NOINLINE inline std::string TensorMismatchTypeInfo(const TVMFFIAny* source, bool owning) {
  if (source->type_index == TypeIndex::kTVMFFIDLTensorPtr) {
    if (source->v_ptr == nullptr) return "None (a NULL DLTensor*)";
    if (owning) {
      return "DLTensor* (a borrowed DLTensor cannot be owned: it cannot be converted to an owning "
             "ffi.Tensor; take a TensorView instead)";
    }
  }
  return TypeIndexToTypeKey(source->type_index);
}
}  // namespace detail

template <>
inline constexpr bool use_default_type_traits_v<Tensor> = false;

/*!
 * \brief Tensor <-> Any: an ffi.Tensor (or None, for a null Tensor). A
 *        borrowed kTVMFFIDLTensorPtr never converts: it cannot be owned.
 */
template <>
struct TypeTraits<Tensor> : public ObjectRefTypeTraitsBase<Tensor> {
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFITensor;
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFITensor ||
           src->type_index == TypeIndex::kTVMFFINone ||
           (src->type_index >= TypeIndex::kTVMFFIStaticObjectBegin &&
            detail::IsObjectInstance<TensorObj>(src->type_index));
  }
  template <typename LazyT_ = Tensor>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* source) {
    return detail::TensorMismatchTypeInfo(source, /*owning=*/true);
  }
};

/*!
 * \brief TensorView <-> AnyView: into a view as a borrowed kTVMFFIDLTensorPtr
 *        (pointing at the TensorView's own descriptor); from a non-NULL
 *        kTVMFFIDLTensorPtr or an ffi.Tensor by copying the 48-byte
 *        descriptor (no reference count change, no allocation). Never into an
 *        owning Any.
 *
 * Both source forms count as exact (CheckAnyStrict) so that typed functions
 * take their fast path for either.
 */
template <>
struct TypeTraits<TensorView> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  /*! \brief Nothing converts to a view: an argument is one of the strict forms or an error. */
  static constexpr bool converts_only_strict = true;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIDLTensorPtr;

  TVM_FFI_INLINE static void CopyToAnyView(const TensorView& src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIDLTensorPtr;
    result->zero_padding = 0;
    TVM_FFI_CLEAR_PTR_PADDING_IN_FFI_ANY(result);
    result->v_ptr = const_cast<DLTensor*>(&src.tensor_);
  }
  template <typename U = TensorView>
  static void MoveToAny(U, TVMFFIAny*) {
    static_assert(detail::always_false_v<U>,
                  "TensorView does not own its tensor: only an AnyView can hold it (use Tensor)");
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return (src->type_index == TypeIndex::kTVMFFIDLTensorPtr && src->v_ptr != nullptr) ||
           src->type_index == TypeIndex::kTVMFFITensor;
  }
  /*!
   * \return The DLTensor a strict argument views (a non-NULL DLTensor*, or the
   *         one inside an ffi.Tensor); NULL otherwise. The typed call path's
   *         check and read in one step (see detail::ArgConverter).
   */
  TVM_FFI_INLINE static const DLTensor* StrictPeek(const TVMFFIAny* src) {
    // DLTensor* (what C, codegen and the Python binding pass) falls through;
    // an ffi.Tensor takes the branch.
    if (TVM_FFI_PREDICT_TRUE(src->type_index == TypeIndex::kTVMFFIDLTensorPtr)) {
      return static_cast<const DLTensor*>(src->v_ptr);
    }
    if (src->type_index == TypeIndex::kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(src->v_obj);
    return nullptr;
  }
  TVM_FFI_INLINE static TensorView FromPeek(const DLTensor* tensor) {
    return TensorView(*tensor, TensorView::Unchecked{});
  }
  TVM_FFI_INLINE static TensorView CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    // Selects the pointer without a branch: obj + 24 for a Tensor, v_ptr for a DLTensor*.
    const char* base = reinterpret_cast<const char*>(src->v_ptr);
    const DLTensor* tensor = reinterpret_cast<const DLTensor*>(
        base + (src->type_index == TypeIndex::kTVMFFIDLTensorPtr ? 0 : sizeof(TVMFFIObject)));
    return TensorView(*tensor, TensorView::Unchecked{});
  }
  template <typename LazyT_ = TensorView>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIDLTensorPtr; }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* source) {
    return detail::TensorMismatchTypeInfo(source, /*owning=*/false);
  }
};

namespace detail {
/*!
 * \brief Optional tensor parameters: None and a NULL DLTensor* both mean empty
 *        (C callers pass NULL for "no tensor").
 */
template <typename Opt, typename T>
struct OptionalTensorTraits : public OptionalTraitsBase<Opt, T> {
  using Base = OptionalTraitsBase<Opt, T>;
  /*! \brief As for T (Tensor, TensorView): only the strict forms are accepted. */
  static constexpr bool converts_only_strict = true;
  TVM_FFI_INLINE static bool IsNullTensorPtr(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFIDLTensorPtr && src->v_ptr == nullptr;
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return Base::CheckAnyStrict(src) || IsNullTensorPtr(src);
  }
  TVM_FFI_INLINE static Opt CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    if (IsNullTensorPtr(src)) return Opt(std::nullopt);
    return Base::CopyFromAnyViewAfterCheck(src);
  }
  TVM_FFI_INLINE static Opt MoveFromAnyAfterCheck(TVMFFIAny* src) {
    if (IsNullTensorPtr(src)) return Opt(std::nullopt);
    return Base::MoveFromAnyAfterCheck(src);
  }
  TVM_FFI_INLINE static std::optional<Opt> TryCastFromAnyView(const TVMFFIAny* src) {
    if (IsNullTensorPtr(src)) return Opt(std::nullopt);
    return Base::TryCastFromAnyView(src);
  }
};
}  // namespace detail

template <>
struct TypeTraits<Optional<Tensor>>
    : public detail::OptionalTensorTraits<Optional<Tensor>, Tensor> {};
template <>
struct TypeTraits<Optional<TensorView>>
    : public detail::OptionalTensorTraits<Optional<TensorView>, TensorView> {};
template <>
struct TypeTraits<std::optional<Tensor>>
    : public detail::OptionalTensorTraits<std::optional<Tensor>, Tensor> {
  static constexpr bool storage_enabled = false;
};
template <>
struct TypeTraits<std::optional<TensorView>>
    : public detail::OptionalTensorTraits<std::optional<TensorView>, TensorView> {
  static constexpr bool storage_enabled = false;
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_TENSOR_H_
