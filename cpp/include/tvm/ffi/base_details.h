/*
 * tvmffi C++ layer: the 0.1.14 name of <tvm/ffi/base_detail.h>.
 *
 * Upstream 0.1.15 renamed the *_details.h headers to *_detail.h; code written
 * for 0.1.14 still includes this name, so it forwards to the new one.
 */
#ifndef TVM_FFI_BASE_DETAILS_H_
#define TVM_FFI_BASE_DETAILS_H_

#include <tvm/ffi/base_detail.h>

#endif  // TVM_FFI_BASE_DETAILS_H_
