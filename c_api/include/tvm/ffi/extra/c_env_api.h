/*
 * tvmffi: the environment half of the TVM-FFI 0.1 C ABI.
 *
 * What a host (a framework adapter, a C program) hands to kernels: the
 * current stream of each device, the tensor allocator, and the symbol tables
 * used by loaded libraries. Same conventions as tvm/ffi/c_api.h: 0 / -1
 * returns with a raised error, outputs owned by the caller, every function
 * callable from any thread.
 */
#ifndef TVM_FFI_EXTRA_C_ENV_API_H_
#define TVM_FFI_EXTRA_C_ENV_API_H_

#include <tvm/ffi/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/* Section: streams                                                          */
/* ------------------------------------------------------------------------- */

/*! \brief A device stream (cudaStream_t and the like), never owned by the runtime. */
typedef void* TVMFFIStreamHandle;

/*!
 * \brief Set the calling thread's current stream for one device.
 *
 * The table is per thread and grows for any (device_type, device_id); an
 * unset entry reads as NULL (the device's default stream).
 * \param device_type A DLDeviceType value, or TVM's RPC encoding of one;
 *        0 <= device_type < 65536 (the table is keyed by the pair).
 * \param device_id The device ordinal (>= 0).
 * \param stream The stream; NULL resets to the default stream.
 * \param opt_out_original_stream If not NULL, receives the stream that was set before.
 * \return 0, or -1 (ValueError for a device type out of range or a
 *         negative device id).
 */
TVM_FFI_DLL int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id,
                                   TVMFFIStreamHandle stream,
                                   TVMFFIStreamHandle* opt_out_original_stream);

/*!
 * \brief Get the calling thread's current stream for one device.
 * \return The stream, or NULL when none was set. Never raises.
 */
TVM_FFI_DLL TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id);

/* ------------------------------------------------------------------------- */
/* Section: tensor allocator                                                 */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Install the DLPack tensor allocator (DLPackManagedTensorAllocator
 *        comes from dlpack.h, DLPack >= 1.2).
 *
 * The thread-local setting takes precedence over the global one.
 * \param allocator The allocator; NULL clears the setting.
 * \param write_to_global_context Nonzero: set the process-wide allocator (and
 *        clear nothing else); zero: set the calling thread's allocator.
 * \param opt_out_original_allocator If not NULL, receives the allocator that
 *        was in effect for this thread before the call.
 * \return 0.
 */
TVM_FFI_DLL int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator);

/*!
 * \brief The allocator in effect for the calling thread: its own if set, else
 *        the global one, else NULL. Never raises.
 */
TVM_FFI_DLL DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void);

/*!
 * \brief Allocate a tensor with the allocator in effect.
 *
 * The allocator owns the memory: the resulting Tensor calls the allocator's
 * DLPack deleter when it dies, so its memory outlives any library that asked
 * for it.
 * \param prototype Shape, dtype and device of the tensor (data is ignored).
 * \param out Receives the Tensor.
 * \return 0, or -1: RuntimeError when no allocator is set; the allocator's own
 *         kind and message when it fails (via its SetError callback).
 */
TVM_FFI_DLL int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out);

/* ------------------------------------------------------------------------- */
/* Section: host hooks                                                       */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Ask the host whether a signal (e.g. Ctrl-C) is pending.
 *
 * Calls the function registered as "TVMFFIEnvCheckSignals" through
 * TVMFFIEnvRegisterCAPI (signature `int (*)(void)`), if any.
 * \return 0, or -1 with the host's error raised.
 */
TVM_FFI_DLL int TVMFFIEnvCheckSignals(void);

/*!
 * \brief Register a host-provided C function by name (e.g. "TVMFFIEnvCheckSignals").
 * \param name The name (copied).
 * \param symbol The function pointer; NULL removes the entry.
 * \return 0, or -1 (ValueError for a NULL name).
 */
TVM_FFI_DLL int TVMFFIEnvRegisterCAPI(const char* name, void* symbol);

/* ------------------------------------------------------------------------- */
/* Section: module symbols                                                   */
/* ------------------------------------------------------------------------- */

/*!
 * \brief Find a function among the imports of a loaded library's module.
 *
 * Used by generated code: `library_ctx` is the value the loader stored in the
 * library's `__tvm_ffi__library_ctx`.
 * \param library_ctx The module handle.
 * \param func_name The function's name.
 * \param out Receives the function. It is a borrowed handle cached by the
 *        module: valid while the module lives; do not DecRef it.
 * \return 0, or -1 (AttributeError naming the function when no import has it).
 */
TVM_FFI_DLL int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char* func_name,
                                              TVMFFIObjectHandle* out);

/*!
 * \brief Register a value that the loader writes into a library's symbol of
 *        the same name (if the library has it) when the library is loaded.
 * \param name The symbol name, e.g. "__TVMFFIMyHook" (copied).
 * \param symbol The value to store (a pointer).
 * \return 0, or -1 (ValueError for a NULL name).
 */
TVM_FFI_DLL int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol);

/*!
 * \brief Register a symbol of the system library (code linked into the
 *        process, reachable as the Module "SystemLib"): a name "__tvm_ffi_f"
 *        makes function "f" available.
 * \param name The symbol name (copied).
 * \param symbol The symbol (for functions, a TVMFFISafeCallType).
 * \return 0, or -1 (ValueError for a NULL name).
 */
TVM_FFI_DLL int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol);

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* TVM_FFI_EXTRA_C_ENV_API_H_ */
