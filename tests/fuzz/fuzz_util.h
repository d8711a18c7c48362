// Helpers shared by the fuzz targets (C ABI only).
#ifndef TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_
#define TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_

#include <tvm/ffi/c_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz {

// A broken property: print what and abort, so libFuzzer saves the input.
[[noreturn]] inline void Fail(const std::string& what, const std::string& input = std::string()) {
  std::fprintf(stderr, "FUZZ PROPERTY FAILED: %s", what.c_str());
  if (!input.empty()) {
    std::fprintf(stderr, " [input:");
    for (unsigned char c : input) std::fprintf(stderr, " %02x", c);
    std::fprintf(stderr, "]");
  }
  std::fprintf(stderr, "\n");
  std::abort();
}

// Takes the raised error; returns its kind ("" when none was raised).
inline std::string TakeRaisedKind(std::string* message = nullptr) {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) return std::string();
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  std::string kind(cell->kind.data, cell->kind.size);
  if (message != nullptr) message->assign(cell->message.data, cell->message.size);
  TVMFFIObjectDecRef(err);
  return kind;
}

// After a call returned -1: an error of `kind` must be raised (then taken).
inline void ExpectRaised(const char* kind, const char* api) {
  std::string message;
  std::string got = TakeRaisedKind(&message);
  if (got != kind) {
    Fail(std::string(api) + " failed with `" + got + "` (" + message + "), expected " + kind);
  }
}

// The text of an owned String/Bytes value; releases it.
inline std::string TakeText(TVMFFIAny* v) {
  std::string s;
  if (v->type_index == kTVMFFISmallStr || v->type_index == kTVMFFISmallBytes) {
    TVMFFIByteArray b = TVMFFISmallBytesGetContentByteArray(v);
    s.assign(b.data, b.size);
  } else if (v->type_index == kTVMFFIStr || v->type_index == kTVMFFIBytes) {
    const TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(v->v_obj);
    s.assign(b->data, b->size);
  }
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
  v->type_index = kTVMFFINone;
  return s;
}

// TVMFFIDataTypeToString as a std::string; false (error taken) on failure.
inline bool DTypeText(const DLDataType& t, std::string* out) {
  TVMFFIAny v;
  v.type_index = kTVMFFINone;
  v.zero_padding = 0;
  v.v_int64 = 0;
  if (TVMFFIDataTypeToString(&t, &v) != 0) {
    TakeRaisedKind();
    return false;
  }
  *out = TakeText(&v);
  return true;
}

}  // namespace fuzz

#endif  // TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_
