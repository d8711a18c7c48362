// Loading libtvmffi with an allocation failing in its static initialisers
// (test_oom, "OOM: loading the library"). Run with TVMFFI_FAULT_INJECTION_LOAD=N
// (and TVMFFI_FAULT_INJECTION_LOAD_STICKY=1): the runtime's constructor arms the
// countdown before the other initialisers run. Prints, one item a line:
//   injected <failures during load>
//   global <name>            for every registered global
//   raise <kind>             the kind read back after raising a ValueError
//   loadfailures <n lines>   what ffi.LoadFailures reports (absent if unregistered)
// The process must reach the end and exit 0 (no abort, no terminate, no leak
// under ASan); test_oom judges the rest.
#include <tvm/ffi/c_api.h>

#include <cstdio>
#include <string>

#include "fault_injection.h"

int main() {
  std::printf("injected %lld\n", static_cast<long long>(TVMFFIFaultInjectionSet(0, 0)));
  TVMFFIFunctionListGlobalNames(
      [](void*, const TVMFFIByteArray* name) {
        std::printf("global %.*s\n", static_cast<int>(name->size), name->data);
        return 0;
      },
      nullptr);
  TVMFFIErrorSetRaisedFromCStr("ValueError", "after loading");
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != nullptr) {
    const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    std::printf("raise %.*s\n", static_cast<int>(cell->kind.size), cell->kind.data);
    TVMFFIObjectDecRef(err);
  }
  TVMFFIByteArray name{"ffi.LoadFailures", 16};
  TVMFFIObjectHandle f = nullptr;
  if (TVMFFIFunctionGetGlobal(&name, &f) == 0 && f != nullptr) {
    TVMFFIAny result{};
    if (TVMFFIFunctionCall(f, nullptr, 0, &result) == 0) {
      std::string text;
      if (result.type_index == kTVMFFISmallStr) {
        TVMFFIByteArray b = TVMFFISmallBytesGetContentByteArray(&result);
        text.assign(b.data, b.size);
      } else if (result.type_index == kTVMFFIStr) {
        const TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(result.v_obj);
        text.assign(b->data, b->size);
        TVMFFIObjectDecRef(result.v_obj);
      }
      size_t lines = 0;
      for (char c : text) lines += c == '\n';
      std::printf("loadfailures %zu\n", lines);
    }
    TVMFFIObjectDecRef(f);
  }
  return 0;
}
