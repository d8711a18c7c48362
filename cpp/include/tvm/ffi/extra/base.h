/*
 * tvmffi C++ layer: the export macro of the extra API (upstream 0.1.15's
 * <tvm/ffi/extra/base.h>).
 *
 * TVM_FFI_EXTRA_CXX_API marks a C++ function of the extra layer that a shared
 * library defines and exports (upstream declares json::Parse, ToJSONGraph,
 * StructuralEqual::Equal ... with it). It is TVM_FFI_DLL unless defined
 * before the include. This tree's extra headers define those functions inline
 * over the runtime's globals, so they do not need it; code of others that
 * declares its own exported functions with it does.
 */
#ifndef TVM_FFI_EXTRA_BASE_H_
#define TVM_FFI_EXTRA_BASE_H_

#include <tvm/ffi/c_api.h>

#ifndef TVM_FFI_EXTRA_CXX_API
#define TVM_FFI_EXTRA_CXX_API TVM_FFI_DLL
#endif

#endif  // TVM_FFI_EXTRA_BASE_H_
