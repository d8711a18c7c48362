// Tests of tvm/ffi/dtype.h and device.h.
#include <tvm/ffi/any.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/dtype.h>

#include <catch2/catch_test_macros.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace tvm::ffi;

TEST_CASE("Data type names round-trip through the C API", "[dtype]") {
  std::vector<std::string> names = {"int8",    "int16",   "int32",       "int64",   "uint8",
                                    "uint16",  "uint32",  "uint64",      "float16", "float32",
                                    "float64", "bfloat16", "bool",       "int8x4",  "float32x8",
                                    "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"};
  for (const std::string& name : names) {
    INFO(name);
    DLDataType dtype = StringToDLDataType(name);
    REQUIRE(std::string(DLDataTypeToString(dtype)) == name);
  }
  REQUIRE(StringToDLDataType("float32") == dl_float32);
  REQUIRE(StringToDLDataType("int8x4") == DLDataType{kDLInt, 8, 4});
  REQUIRE(DLDataTypeToString(DLDataType{kDLUInt, 1, 1}) == "uint1");
}

TEST_CASE("Unknown data type names raise ValueError", "[dtype]") {
  try {
    StringToDLDataType("float33x");
    FAIL("expected an error");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "ValueError");
    REQUIRE(err.message().find("float33x") != std::string::npos);
  }
}

TEST_CASE("Data type constants, comparison and sizes", "[dtype]") {
  REQUIRE(dl_float16 == DLDataType{kDLFloat, 16, 1});
  REQUIRE(dl_bfloat16 == DLDataType{kDLBfloat, 16, 1});
  REQUIRE(dl_bool == DLDataType{kDLBool, 8, 1});
  REQUIRE(dl_uint8 == DLDataType{kDLUInt, 8, 1});
  REQUIRE(dl_int64 != dl_uint64);
  REQUIRE(dl_float32 != DLDataType{kDLFloat, 32, 4});
  static_assert(DataTypeBits(dl_float64) == 64);
  static_assert(DataTypeBytes(dl_int16) == 2);
  static_assert(DataTypeBytes(DLDataType{kDLFloat, 32, 4}) == 16);
  static_assert(DataTypeBytes(DLDataType{kDLInt, 4, 1}) == 1);      // int4 rounds up
  static_assert(DataTypeBytes(DLDataType{kDLInt, 4, 1}, 3) == 2);   // 12 bits packed
  static_assert(DataTypeBytes(DLDataType{kDLUInt, 1, 1}, 17) == 3);  // 17 bits
}

TEST_CASE("Data types in Any and printing", "[dtype]") {
  Any v = dl_float16;
  REQUIRE(v.type_index() == kTVMFFIDataType);
  REQUIRE(v.cast<DLDataType>() == dl_float16);
  REQUIRE(v.as<DLDataType>().has_value());
  REQUIRE(Any(String("bfloat16")).cast<DLDataType>() == dl_bfloat16);
  REQUIRE_FALSE(Any(String("no-such-type")).try_cast<DLDataType>().has_value());
  std::ostringstream os;
  os << dl_int32 << "," << DLDataType{kDLFloat, 16, 2};
  REQUIRE(os.str() == "int32,float16x2");
}

TEST_CASE("Devices: comparison, names, Any", "[dtype]") {
  DLDevice cuda0{kDLCUDA, 0};
  DLDevice cuda1{kDLCUDA, 1};
  REQUIRE(cuda0 == DLDevice{kDLCUDA, 0});
  REQUIRE(cuda0 != cuda1);
  REQUIRE(cuda0 != DLDevice{kDLCPU, 0});
  REQUIRE(DLDeviceToString(cuda1) == "cuda:1");
  REQUIRE(DLDeviceToString(DLDevice{kDLCPU, 0}) == "cpu:0");
  REQUIRE(DLDeviceToString(DLDevice{kDLROCM, 3}) == "rocm:3");
  REQUIRE(std::string(DLDeviceTypeToString(kDLCUDAHost)) == "cuda_host");
  REQUIRE(DLDeviceTypeToString(1000) == nullptr);
  Any v = cuda1;
  REQUIRE(v.type_index() == kTVMFFIDevice);
  REQUIRE(v.cast<DLDevice>() == cuda1);
  std::ostringstream os;
  os << cuda1;
  REQUIRE(os.str() == "cuda:1");
}
