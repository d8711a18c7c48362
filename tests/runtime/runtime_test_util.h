// Helpers for the runtime tests: they drive libtvmffi through its C ABI only.
#ifndef TVMFFI_TESTS_RUNTIME_TEST_UTIL_H_
#define TVMFFI_TESTS_RUNTIME_TEST_UTIL_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <thread>

namespace rt_test {

inline TVMFFIByteArray BA(std::string_view s) {
  return TVMFFIByteArray{s.data(), s.size()};
}

inline std::string Str(const TVMFFIByteArray& b) {
  return std::string(b.data, b.size);
}

inline uint64_t RefCount(TVMFFIObjectHandle h) {
  return __atomic_load_n(&static_cast<TVMFFIObject*>(h)->combined_ref_count, __ATOMIC_ACQUIRE);
}
inline uint32_t StrongCount(TVMFFIObjectHandle h) {
  return static_cast<uint32_t>(RefCount(h) & 0xFFFFFFFFu);
}

// The raised error, taken out of the slot.
struct RaisedError {
  bool present = false;
  std::string kind;
  std::string message;
  std::string backtrace;
};

inline RaisedError TakeRaised() {
  RaisedError r;
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) return r;
  r.present = true;
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  r.kind = Str(cell->kind);
  r.message = Str(cell->message);
  r.backtrace = Str(cell->backtrace);
  TVMFFIObjectDecRef(err);
  return r;
}

inline TVMFFIAny None() {
  TVMFFIAny a;
  std::memset(&a, 0, sizeof(a));
  return a;
}

inline TVMFFIAny Int(int64_t v) {
  TVMFFIAny a = None();
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

inline TVMFFIAny Bool(bool v) {
  TVMFFIAny a = None();
  a.type_index = kTVMFFIBool;
  a.v_int64 = v ? 1 : 0;
  return a;
}

inline TVMFFIAny Float(double v) {
  TVMFFIAny a = None();
  a.type_index = kTVMFFIFloat;
  a.v_float64 = v;
  return a;
}

/*! \brief A compact float32 CPU DLTensor over `data` and `shape` (no strides, offset 0). */
inline DLTensor HostF32Tensor(void* data, int64_t* shape, int32_t ndim) {
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = ndim;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = shape;
  return t;
}

inline TVMFFIAny TensorPtr(DLTensor* t) {
  TVMFFIAny a = None();
  a.type_index = kTVMFFIDLTensorPtr;
  a.v_ptr = t;
  return a;
}

inline TVMFFIAny ObjView(TVMFFIObjectHandle h) {
  TVMFFIAny a = None();
  a.type_index = static_cast<TVMFFIObject*>(h)->type_index;
  a.v_obj = static_cast<TVMFFIObject*>(h);
  return a;
}

inline void Release(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(a->v_obj);
  *a = None();
}

// Text of a String/Bytes value (small or object).
inline std::string AnyText(const TVMFFIAny& a) {
  if (a.type_index == kTVMFFISmallStr || a.type_index == kTVMFFISmallBytes) {
    return Str(TVMFFISmallBytesGetContentByteArray(&a));
  }
  if (a.type_index == kTVMFFIStr || a.type_index == kTVMFFIBytes) {
    return Str(*TVMFFIBytesGetByteArrayPtr(a.v_obj));
  }
  return "<not a string>";
}

// Owns one strong reference.
class Handle {
 public:
  Handle() = default;
  explicit Handle(TVMFFIObjectHandle h) : h_(h) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  ~Handle() { TVMFFIObjectDecRef(h_); }
  TVMFFIObjectHandle get() const { return h_; }
  TVMFFIObjectHandle* out() { return &h_; }
  TVMFFIObjectHandle release() {
    TVMFFIObjectHandle h = h_;
    h_ = nullptr;
    return h;
  }

 private:
  TVMFFIObjectHandle h_ = nullptr;
};

// Runs f on a new thread and waits; an exception (e.g. a failed REQUIRE) is
// rethrown on the calling thread so Catch2 reports it normally.
template <typename F>
void OnNewThread(F f) {
  std::exception_ptr error;
  std::thread([&] {
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
  }).join();
  if (error) std::rethrow_exception(error);
}

}  // namespace rt_test

#endif  // TVMFFI_TESTS_RUNTIME_TEST_UTIL_H_
