/*
 * tvmffi C++ layer: reference-counted objects.
 *
 * Every heap object starts with a TVMFFIObject header (see c_api.h). Objects
 * may be created by any binary; reference counting is done inline with the
 * exact atomics of the ABI so that all binaries agree, and the last release
 * calls the header's deleter (which lives in whichever binary made the object).
 *
 * The pieces, each in tvm/ffi/details/: object_header.h (built-in type keys,
 * header initialisation, the subtype rule, reference counting and release),
 * object_core.h (Object, ObjectPtr, Arc, WeakObjectPtr, ObjectRef, raw
 * access), object_macros.h (the type declaration macros) and
 * object_traits.h (TypeTraits of references and pointers, subsumption).
 */
#ifndef TVM_FFI_OBJECT_H_
#define TVM_FFI_OBJECT_H_

#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/details/object_core.h>
#include <tvm/ffi/details/object_header.h>
#include <tvm/ffi/details/object_macros.h>
#include <tvm/ffi/details/object_traits.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// error.h defines what the pieces declare (ThrowRaisedError, RegisterObjectType);
// it needs the classes above.
#include <tvm/ffi/error.h>

#endif  // TVM_FFI_OBJECT_H_
