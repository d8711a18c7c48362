// Call-path benchmark of the core C++ layer.
//
// Every case is timed against a floor measured in the same run: a call of a
// noinline `int add(int, int)` through a volatile C function pointer. Each
// case is auto-calibrated to ~0.2 s and the best of 5 repetitions is kept.
#include <tvm/ffi/function.h>

#include <tvm/ffi/memory.h>
#include "bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace tvm::ffi;

using namespace bench;

TVMFFIAny IntAny(int64_t v) {
  TVMFFIAny a;
  a.type_index = kTVMFFIInt;
  a.zero_padding = 0;
  a.v_int64 = v;
  return a;
}

// A String object made in this binary (for comparison with the C API path).
String MakeInlineHeapString(const char* data, size_t size) {
  ObjectPtr<detail::StringObj> obj = make_inplace_array_object<detail::StringObj, char>(size + 1);
  char* dest = reinterpret_cast<char*>(obj.get()) + sizeof(detail::StringObj);
  std::memcpy(dest, data, size);
  dest[size] = '\0';
  obj->data = dest;
  obj->size = size;
  TVMFFIAny any;
  any.type_index = kTVMFFIStr;
  any.zero_padding = 0;
  any.v_obj = detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(obj));
  return TypeTraits<String>::MoveFromAnyAfterCheck(&any);
}

}  // namespace

int main() {
  std::vector<Row> rows;

  // The floor is measured at the start, in the middle and at the end; the
  // smallest is used (conservative: it makes every ratio larger).
  auto measure_floor = [] {
    return MeasureNs([](int i) {
      int r = g_add(i, 1);
      DoNotOptimize(r);
    });
  };
  std::vector<double> floors = {measure_floor()};
  rows.push_back({"floor: add(int,int) via volatile C fn ptr", 0, 0});

  Function fadd = Function::FromTyped([](int a, int b) { return add(a, b); });
  rows.push_back({"Function operator()(int,int)->int, C++", MeasureNs([fadd](int i) {
                    int r = fadd(i, 1).cast<int>();
                    DoNotOptimize(r);
                  }),
                  2.2});

  TVMFFIObjectHandle fadd_handle = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(fadd);
  rows.push_back({"TVMFFIFunctionCall(int,int)->int, C API", MeasureNs([&](int i) {
                    TVMFFIAny args[2] = {IntAny(i), IntAny(1)};
                    TVMFFIAny result;
                    result.type_index = kTVMFFINone;
                    int rc = TVMFFIFunctionCall(fadd_handle, args, 2, &result);
                    DoNotOptimize(rc);
                    DoNotOptimize(result.v_int64);
                  }),
                  3.4});

  Function::SetGlobal("bench.add", fadd, true);
  rows.push_back({"Function::GetGlobal(\"bench.add\")", MeasureNs([](int) {
                    Optional<Function> f = Function::GetGlobal("bench.add");
                    DoNotOptimize(f);
                  }),
                  30});

  Function fthrow = Function::FromTyped([](int) -> int { TVM_FFI_THROW(ValueError) << "bench"; });
  TVMFFIObjectHandle fthrow_handle = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(fthrow);
  rows.push_back({"throw ValueError -> -1 + MoveFromRaised", MeasureNs([&](int i) {
                    TVMFFIAny args[1] = {IntAny(i)};
                    TVMFFIAny result;
                    result.type_index = kTVMFFINone;
                    int rc = TVMFFIFunctionCall(fthrow_handle, args, 1, &result);
                    TVMFFIObjectHandle err = nullptr;
                    if (rc != 0) TVMFFIErrorMoveFromRaised(&err);
                    DoNotOptimize(err);
                    TVMFFIObjectDecRef(err);
                  }),
                  1500});

  floors.push_back(measure_floor());

  // ---------------------------------------------------------------------
  // [tensor] "three TensorView args": the tensor engineer adds the row here,
  // e.g. Function::FromTyped([](TensorView a, TensorView b, TensorView c) {})
  // called with three DLTensor* views, with its target ratio.
  // ---------------------------------------------------------------------

  // Informational rows (no target).
  TVMFFIObjectHandle c_handle = nullptr;
  TVMFFIFunctionCreate(
      nullptr,
      [](void*, const TVMFFIAny* args, int32_t, TVMFFIAny* result) -> int {
        *result = IntAny(args[0].v_int64 + args[1].v_int64);
        return 0;
      },
      nullptr, &c_handle);
  Function cfunc(
      detail::ObjectUnsafe::ObjectPtrFromOwned<FunctionObj>(static_cast<TVMFFIObject*>(c_handle)));
  rows.push_back({"TVMFFIFunctionGetGlobal + DecRef, C API only", MeasureNs([](int) {
                    TVMFFIByteArray name{"bench.add", 9};
                    TVMFFIObjectHandle f = nullptr;
                    TVMFFIFunctionGetGlobal(&name, &f);
                    DoNotOptimize(f);
                    TVMFFIObjectDecRef(f);
                  }),
                  0});
  rows.push_back({"Function operator() of a C function", MeasureNs([&](int i) {
                    int r = cfunc(i, 1).cast<int>();
                    DoNotOptimize(r);
                  }),
                  0});
  Function fstr = Function::FromTyped([](const String& s) { return static_cast<int>(s.size()); });
  rows.push_back({"Function operator()(const char*) -> String param", MeasureNs([&](int) {
                    int r = fstr("sixteen chars!!!").cast<int>();
                    DoNotOptimize(r);
                  }),
                  0});
  const char* text = "a thirty-two byte string payload";
  rows.push_back({"String(32 bytes) create+free, C API object", MeasureNs([&](int) {
                    String s(text, 32);
                    DoNotOptimize(s);
                  }),
                  0});
  rows.push_back({"String(32 bytes) create+free, inline object", MeasureNs([&](int) {
                    String s = MakeInlineHeapString(text, 32);
                    DoNotOptimize(s);
                  }),
                  0});
  rows.push_back({"String(7 bytes) create+free, small", MeasureNs([&](int) {
                    String s(text, 7);
                    DoNotOptimize(s);
                  }),
                  0});

  floors.push_back(measure_floor());
  double floor_ns = *std::min_element(floors.begin(), floors.end());
  rows[0].ns = floor_ns;
  std::printf("floor samples (ns):");
  for (double f : floors) std::printf(" %.2f", f);
  std::printf("\n");
  int missed = PrintRows(rows, floor_ns, 50);
  std::printf("%d case(s) over target\n", missed);
  return 0;
}
