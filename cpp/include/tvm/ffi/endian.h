/*
 * tvmffi C++ layer: the host's byte order, and swapping it (upstream 0.1.15's
 * <tvm/ffi/endian.h>).
 *
 * Binary formats written by tvm-ffi (saved tensors, module blobs) are
 * little-endian; a reader or writer on a big-endian host swaps each element:
 *
 *   if (!TVM_FFI_IO_NO_ENDIAN_SWAP) ByteSwap(values, sizeof(uint32_t), n);
 *
 * TVM_FFI_LITTLE_ENDIAN       1 on a little-endian host, else 0. A build may
 *                             decide it by defining TVM_FFI_CMAKE_LITTLE_ENDIAN.
 * TVM_FFI_IO_USE_LITTLE_ENDIAN the byte order of the files (default 1).
 * TVM_FFI_IO_NO_ENDIAN_SWAP   1 when the two agree: nothing to swap.
 */
#ifndef TVM_FFI_ENDIAN_H_
#define TVM_FFI_ENDIAN_H_

#include <cstddef>
#include <cstdint>

#ifndef TVM_FFI_IO_USE_LITTLE_ENDIAN
#define TVM_FFI_IO_USE_LITTLE_ENDIAN 1
#endif

#if defined(TVM_FFI_CMAKE_LITTLE_ENDIAN)
#define TVM_FFI_LITTLE_ENDIAN TVM_FFI_CMAKE_LITTLE_ENDIAN
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
// GCC, Clang, ICX and NVCC's host compilers predefine these on every target.
#define TVM_FFI_LITTLE_ENDIAN (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#elif defined(_WIN32) || defined(__APPLE__) || defined(__EMSCRIPTEN__)
// Every Windows, Apple and WebAssembly target is little-endian.
#define TVM_FFI_LITTLE_ENDIAN 1
#else
#error "tvm/ffi/endian.h: cannot tell this host's byte order; define TVM_FFI_CMAKE_LITTLE_ENDIAN"
#endif

#define TVM_FFI_IO_NO_ENDIAN_SWAP (TVM_FFI_LITTLE_ENDIAN == TVM_FFI_IO_USE_LITTLE_ENDIAN)

namespace tvm {
namespace ffi {

/*!
 * \brief Reverse the bytes of each of `num_elems` elements of `elem_bytes` bytes, in place.
 *
 * \param data The first element; `elem_bytes * num_elems` bytes are read and written.
 * \param elem_bytes The size of one element (1 leaves the data as it is).
 * \param num_elems How many elements.
 */
inline void ByteSwap(void* data, size_t elem_bytes, size_t num_elems) {
  unsigned char* elem = static_cast<unsigned char*>(data);
  for (size_t i = 0; i < num_elems; ++i, elem += elem_bytes) {
    for (size_t lo = 0, hi = elem_bytes; lo + 1 < hi; ++lo, --hi) {
      unsigned char tmp = elem[lo];
      elem[lo] = elem[hi - 1];
      elem[hi - 1] = tmp;
    }
  }
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_ENDIAN_H_
