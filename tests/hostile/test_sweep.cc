// The sweep (issue #43, class 7): every registered global, called through the
// C ABI with malformed arguments of every kind -- wrong counts, wrong types,
// NULL and dangling-looking objects, malformed TVMFFIAny cells, huge and
// negative integers, NaN and infinities, empty and long strings, bad devices
// and malformed DLTensor pointers -- returns 0 or -1 with an error of a known
// kind; nothing crashes (CI runs it under AddressSanitizer and UBSan).
#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {
using namespace tvm::ffi;

// Globals whose contract trusts an argument the sweep would forge: a raw
// function address (FunctionFromExternC calls it), the storage layout of
// another language's types (registering it on a built-in type changes that
// type for the rest of the process), a name to remove, a failure to record.
const std::set<std::string> kTrusting = {
    "ffi.FunctionFromExternC",  "ffi._PyClassRegisterTypeAttrColumns",
    "ffi._RegisterFFIInit",     "ffi.MakeFieldSetter",
    "ffi.FunctionRemoveGlobal", "ffi.RecordLoadFailure",
};

// The error kinds a refusal may have.
const std::set<std::string> kKnownKinds = {
    "ValueError",  "TypeError",      "IndexError",
    "KeyError",    "AttributeError", "RuntimeError",
    "MemoryError", "OverflowError",  "NotImplementedError",
};

TVMFFIAny Cell(int32_t type_index) {
  TVMFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = type_index;
  return a;
}

// Values kept alive for the whole sweep: cells borrow from them.
struct Kinds {
  std::vector<Any> keep;
  std::vector<TVMFFIAny> cells;
  std::vector<std::string> names;
  DLTensor bad_tensor{};
  int64_t bad_shape[2] = {-1, 3};
  TVMFFIByteArray long_bytes{};
  std::string long_text = std::string(1 << 16, 'z');
  std::string with_nul = std::string("a\0b", 3);
  TVMFFIByteArray nul_bytes{};

  void Add(const char* name, TVMFFIAny cell) {
    names.push_back(name);
    cells.push_back(cell);
  }
  void AddAny(const char* name, Any value) {
    keep.push_back(std::move(value));
    Add(name, *detail::AnyUnsafe::TVMFFIAnyPtrFromAny(keep.back()));
  }

  Kinds() {
    keep.reserve(64);
    Add("None", Cell(kTVMFFINone));
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1} << 40,
                      std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
      TVMFFIAny a = Cell(kTVMFFIInt);
      a.v_int64 = v;
      Add("int", a);
    }
    TVMFFIAny b = Cell(kTVMFFIBool);
    b.v_int64 = 1;
    Add("bool", b);
    for (double d : {std::nan(""), std::numeric_limits<double>::infinity(), -0.0, 1e308}) {
      TVMFFIAny a = Cell(kTVMFFIFloat);
      a.v_float64 = d;
      Add("float", a);
    }
    Add("opaque NULL", Cell(kTVMFFIOpaquePtr));
    TVMFFIAny dt = Cell(kTVMFFIDataType);
    dt.v_dtype = DLDataType{255, 0, 0};
    Add("bad dtype", dt);
    TVMFFIAny dev = Cell(kTVMFFIDevice);
    dev.v_device = DLDevice{static_cast<DLDeviceType>(-1), -1};
    Add("device -1:-1", dev);
    bad_tensor.ndim = -1;
    TVMFFIAny t1 = Cell(kTVMFFIDLTensorPtr);
    t1.v_ptr = &bad_tensor;
    Add("DLTensor ndim -1", t1);
    static DLTensor null_shape{};
    null_shape.ndim = 2;
    null_shape.dtype = DLDataType{kDLFloat, 32, 1};
    null_shape.device = DLDevice{kDLCPU, 0};
    TVMFFIAny t2 = Cell(kTVMFFIDLTensorPtr);
    t2.v_ptr = &null_shape;
    Add("DLTensor NULL shape", t2);
    static DLTensor negative{};
    negative.ndim = 2;
    negative.shape = bad_shape;
    negative.dtype = DLDataType{kDLFloat, 32, 1};
    negative.device = DLDevice{kDLCPU, 0};
    TVMFFIAny t3 = Cell(kTVMFFIDLTensorPtr);
    t3.v_ptr = &negative;
    Add("DLTensor negative extent", t3);
    TVMFFIAny raw = Cell(kTVMFFIRawStr);
    raw.v_c_str = "";
    Add("raw empty", raw);
    raw.v_c_str = long_text.c_str();
    Add("raw long", raw);
    long_bytes = TVMFFIByteArray{long_text.data(), long_text.size()};
    TVMFFIAny ba = Cell(kTVMFFIByteArrayPtr);
    ba.v_ptr = &long_bytes;
    Add("bytes long", ba);
    nul_bytes = TVMFFIByteArray{with_nul.data(), with_nul.size()};
    ba.v_ptr = &nul_bytes;
    Add("bytes with NUL", ba);
    TVMFFIAny small = Cell(kTVMFFISmallStr);
    small.small_str_len = 0;
    Add("small empty", small);
    AddAny("String long", String(long_text));
    AddAny("Array empty", Array<Any>());
    AddAny("Array junk", Array<Any>{nullptr, -1, String("x"), Array<Any>{}});
    AddAny("List", List<Any>{1, 2});
    AddAny("Map", Map<Any, Any>{{String("k"), 1}});
    AddAny("Dict", Dict<Any, Any>{{1, String("v")}});
    AddAny("Shape", Shape({-1, 0}));
    AddAny("Function throwing", Function::FromPacked([](PackedArgs, Any*) {
             TVM_FFI_THROW(RuntimeError) << "sweep callback";
           }));
    AddAny("Function returning junk", Function::FromTyped([]() { return String("junk"); }));
    // Malformed cells: the runtime refuses them at the door.
    Add("type index -5", Cell(-5));
    Add("type index 40", Cell(40));
    Add("object NULL", Cell(kTVMFFIArray));
    TVMFFIAny liar = *detail::AnyUnsafe::TVMFFIAnyPtrFromAny(keep[1]);  // an Array
    liar.type_index = kTVMFFIMap;
    Add("object of another type", liar);
    TVMFFIAny unreg = *detail::AnyUnsafe::TVMFFIAnyPtrFromAny(keep[1]);
    unreg.type_index = 60000;
    Add("unregistered object index", unreg);
    TVMFFIAny over = Cell(kTVMFFISmallStr);
    over.small_str_len = 200;
    Add("small string len 200", over);
    Add("raw NULL", Cell(kTVMFFIRawStr));
    Add("rvalue ref NULL", Cell(kTVMFFIObjectRValueRef));
  }
};

struct Tally {
  int64_t calls = 0, ok = 0, refused = 0;
  std::map<std::string, int64_t> kinds;
  std::vector<std::string> unknown;
};

void CallOnce(TVMFFIObjectHandle f, const std::string& name, std::vector<TVMFFIAny> args,
              const std::string& label, Tally* tally) {
  TVMFFIAny result = Cell(kTVMFFINone);
  int rc = TVMFFIFunctionCall(f, args.empty() ? nullptr : args.data(),
                              static_cast<int32_t>(args.size()), &result);
  ++tally->calls;
  if (rc == 0) {
    ++tally->ok;
    if (result.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(result.v_obj);
    return;
  }
  ++tally->refused;
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  std::string kind = "<no error raised>";
  if (err != nullptr) {
    const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    kind.assign(cell->kind.data, cell->kind.size);
    TVMFFIObjectDecRef(err);
  }
  ++tally->kinds[kind];
  if (kKnownKinds.count(kind) == 0) tally->unknown.push_back(name + "(" + label + "): " + kind);
}

}  // namespace

TEST_CASE("Sweep: every global with malformed arguments of every kind", "[hostile][sweep]") {
  Kinds kinds;
  const size_t n = kinds.cells.size();
  Tally tally;
  std::vector<String> names;
  for (const auto& name : Function::ListGlobalNames()) names.push_back(String(name));
  REQUIRE(names.size() > 50);
  int64_t globals = 0;
  for (const String& name : names) {
    if (kTrusting.count(std::string(name)) != 0) continue;
    TVMFFIByteArray key{name.data(), name.size()};
    TVMFFIObjectHandle f = nullptr;
    REQUIRE(TVMFFIFunctionGetGlobal(&key, &f) == 0);
    if (f == nullptr) continue;  // removed meanwhile
    ++globals;
    CallOnce(f, name, {}, "no arguments", &tally);
    // One argument of each kind; then each kind in each position of 2, 3
    // and 4 arguments, the others a plain 0; then all arguments the same kind.
    for (size_t k = 0; k < n; ++k) {
      CallOnce(f, name, {kinds.cells[k]}, kinds.names[k], &tally);
      for (size_t count = 2; count <= 4; ++count) {
        for (size_t pos = 0; pos < count; ++pos) {
          std::vector<TVMFFIAny> args(count, kinds.cells[1]);  // int 0
          args[pos] = kinds.cells[k];
          CallOnce(f, name, args, kinds.names[k] + " at " + std::to_string(pos), &tally);
        }
        CallOnce(f, name, std::vector<TVMFFIAny>(count, kinds.cells[k]), kinds.names[k] + " x all",
                 &tally);
      }
    }
    CallOnce(f, name, std::vector<TVMFFIAny>(9, kinds.cells[0]), "9 Nones", &tally);
    TVMFFIObjectDecRef(f);
  }
  // The sweep may have put a list or dict into itself (ffi.ListAppend(l, l)):
  // break such cycles so that nothing leaks.
  for (Any& kept : kinds.keep) {
    if (auto list = kept.as<List<Any>>()) list->clear();
    if (auto dict = kept.as<Dict<Any, Any>>()) dict->clear();
  }
  for (const std::string& u : tally.unknown) UNSCOPED_INFO(u);
  CHECK(tally.unknown.empty());
  std::string summary = "sweep: " + std::to_string(globals) + " globals, " +
                        std::to_string(tally.calls) + " calls, " + std::to_string(tally.ok) +
                        " returned, " + std::to_string(tally.refused) + " refused:";
  for (const auto& [kind, count] : tally.kinds) summary += " " + kind + "=" + std::to_string(count);
  std::printf("%s\n", summary.c_str());
  CHECK(tally.calls > 5000);
}

TEST_CASE("Sweep: malformed cells are a TypeError at the door, typed or Any", "[hostile][sweep]") {
  Kinds kinds;
  for (const char* global : {"ffi.ArraySize", "ffi.Array", "ffi.ReprPrint", "ffi.StructuralHash"}) {
    TVMFFIByteArray key{global, std::strlen(global)};
    TVMFFIObjectHandle f = nullptr;
    REQUIRE(TVMFFIFunctionGetGlobal(&key, &f) == 0);
    for (size_t k = 0; k < kinds.cells.size(); ++k) {
      const std::string& label = kinds.names[k];
      const bool malformed =
          label == "type index -5" || label == "type index 40" || label == "object NULL" ||
          label == "object of another type" || label == "unregistered object index" ||
          label == "small string len 200" || label == "raw NULL" || label == "rvalue ref NULL";
      if (!malformed) continue;
      INFO(global << " " << label);
      TVMFFIAny args[3] = {kinds.cells[k], Cell(kTVMFFINone), Cell(kTVMFFINone)};
      TVMFFIAny result = Cell(kTVMFFINone);
      CHECK(TVMFFIFunctionCall(f, args, 1, &result) == -1);
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      REQUIRE(err != nullptr);
      const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
      CHECK(std::string(cell->kind.data, cell->kind.size) == "TypeError");
      TVMFFIObjectDecRef(err);
    }
    TVMFFIObjectDecRef(f);
  }
}

TEST_CASE("Malformed values: graph JSON Device [-1, -1] is refused", "[hostile][sweep]") {
  Function parse = Function::GetGlobalRequired("ffi.FromJSONGraphString");
  for (const char* text : {R"({"root_index":0,"nodes":[{"type":"Device","data":[-1,-1]}]})",
                           R"({"root_index":0,"nodes":[{"type":"Device","data":[1,-1]}]})",
                           R"({"root_index":0,"nodes":[{"type":"Device","data":[-1,0]}]})"}) {
    INFO(text);
    std::string kind;
    try {
      parse(String(text));
    } catch (const Error& e) {
      kind = e.kind();
    }
    CHECK(kind == "ValueError");
  }
  Any ok = parse(String(R"({"root_index":0,"nodes":[{"type":"Device","data":[1,0]}]})"));
  CHECK(ok.cast<DLDevice>().device_type == kDLCPU);
}

TEST_CASE("Malformed values: an AccessPath whose depth lies", "[hostile][sweep]") {
  namespace refl = tvm::ffi::reflection;
  refl::AccessPath real = refl::AccessPath::Root()->Attr("a")->ArrayItem(2);
  for (int32_t depth : {0, 1, 7, 1 << 30, -5}) {
    INFO(depth);
    // What a path rebuilt field by field (reflection, a graph JSON) may hold.
    refl::AccessPath liar(
        make_object<refl::AccessPathObj>(real, refl::AccessStep::Attr("b"), depth));
    CHECK(liar->ToSteps().size() == 3);  // the chain, not the depth
    (void)liar->PathEqual(real);
    (void)liar->IsPrefixOf(real);
    (void)real->IsPrefixOf(liar);
    CHECK(!Function::GetGlobalRequired("ffi.ToJSONGraphString")(liar, nullptr)
               .cast<String>()
               .empty());
  }
  // A parent that is not a path ends the chain.
  refl::AccessPath odd(
      make_object<refl::AccessPathObj>(Array<Any>{1, 2}, refl::AccessStep::Attr("c"), 9));
  CHECK(odd->ToSteps().size() == 1);
}
