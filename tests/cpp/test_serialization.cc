// Tests of tvm/ffi/extra/serialization.h: ToJSONGraph / FromJSONGraph
// (runtime/serialization_{write,read}.cc) on plain values, containers, shared nodes,
// reflected objects (fields registered through the C ABI), hooks, and
// malformed graphs.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/reflection/access_path.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "containers_test_util.h"

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;

// A reflected type: a name (an object field, stored as a node), a count (an
// int field, stored inline), a dtype (inline) and an optional note with a default.
class NodeObj : public Object {
 public:
  String name;
  int64_t count = 0;
  DLDataType dtype{kDLInt, 32, 1};
  Any note;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.ser.Node", NodeObj, Object);
};
class Node : public ObjectRef {
 public:
  Node(String name, int64_t count, Any note = nullptr) : Node(make_object<NodeObj>()) {
    auto* n = const_cast<NodeObj*>(get());
    n->name = name;
    n->count = count;
    n->note = note;
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Node, ObjectRef, NodeObj);
};
// Serialized by its hooks only.
class TokenObj : public Object {
 public:
  int64_t id = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.ser.Token", TokenObj, Object);
};
// No creator: cannot be serialized.
class OpaqueObj : public Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.ser.Opaque", OpaqueObj, Object);
};

template <typename T>
int GetAny(void* field, TVMFFIAny* out) {
  *out = detail::AnyUnsafe::MoveAnyToTVMFFIAny(Any(*static_cast<T*>(field)));
  return 0;
}
template <typename T>
int SetAny(void* field, const TVMFFIAny* value) {
  try {
    *static_cast<T*>(field) = AnyView::CopyFromTVMFFIAny(*value).cast<T>();
    return 0;
  } catch (const Error& e) {
    TVMFFIErrorSetRaisedFromCStr(e.kind().c_str(), e.message().c_str());
    return -1;
  }
}
int SetAnyField(void* field, const TVMFFIAny* value) {
  *static_cast<Any*>(field) = Any(AnyView::CopyFromTVMFFIAny(*value));
  return 0;
}
int CreateNode(TVMFFIObjectHandle* out) {
  *out = detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(make_object<NodeObj>());
  return 0;
}

template <typename C, typename F>
int64_t OffsetIn(const ObjectPtr<C>& obj, F C::*member) {
  return reinterpret_cast<const char*>(&((*obj).*member)) -
         reinterpret_cast<const char*>(obj.get());
}

void AddField(int32_t type_index, const char* name, int64_t offset, TVMFFIFieldGetter get,
              TVMFFIFieldSetter set, int32_t static_type, const TVMFFIAny* dflt = nullptr) {
  TVMFFIFieldInfo info{};
  info.name = TVMFFIByteArray{name, std::char_traits<char>::length(name)};
  info.offset = offset;
  info.getter = get;
  info.setter = set;
  info.field_static_type_index = static_type;
  if (dflt != nullptr) {
    info.flags = kTVMFFIFieldFlagBitMaskHasDefault;
    info.default_value_or_factory = *dflt;
  }
  REQUIRE(TVMFFITypeRegisterField(type_index, &info) == 0);
}

void RegisterOnce() {
  static bool done = [] {
    const int32_t ti = NodeObj::RuntimeTypeIndex();
    auto probe = make_object<NodeObj>();
    TVMFFIAny none{};
    AddField(ti, "name", OffsetIn(probe, &NodeObj::name), GetAny<String>, SetAny<String>,
             kTVMFFIStr);
    AddField(ti, "count", OffsetIn(probe, &NodeObj::count), GetAny<int64_t>, SetAny<int64_t>,
             kTVMFFIInt);
    AddField(ti, "dtype", OffsetIn(probe, &NodeObj::dtype), GetAny<DLDataType>, SetAny<DLDataType>,
             kTVMFFIDataType);
    AddField(ti, "note", OffsetIn(probe, &NodeObj::note), GetAny<Any>, SetAnyField, kTVMFFIAny,
             &none);
    TVMFFITypeMetadata meta{};
    meta.creator = CreateNode;
    REQUIRE(TVMFFITypeRegisterMetadata(ti, &meta) == 0);

    const int32_t tok = TokenObj::RuntimeTypeIndex();
    Function to_json =
        Function::FromTyped([](const TokenObj* t) -> Any { return "#" + std::to_string(t->id); });
    Function from_json = Function::FromTyped([](String s) -> ObjectRef {
      auto t = make_object<TokenObj>();
      t->id = std::stoll(std::string(s).substr(1));
      return ObjectRef(t);
    });
    for (auto [name, fn] : {std::pair<const char*, Function>{"__data_to_json__", to_json},
                            {"__data_from_json__", from_json}}) {
      TVMFFIByteArray attr{name, std::char_traits<char>::length(name)};
      TVMFFIAny v = AnyView(fn).CopyToTVMFFIAny();
      REQUIRE(TVMFFITypeRegisterAttr(tok, &attr, &v) == 0);
    }
    return true;
  }();
  (void)done;
}

std::string Text(const Any& graph) {
  return std::string(json::Stringify(graph));
}

// "Kind: message" of the Error `fn` must throw.
template <typename Fn>
std::string Thrown(Fn fn) {
  auto [kind, message] = containers_test::ErrorOf(fn);
  return kind + ": " + message;
}
}  // namespace

TEST_CASE("ToJSONGraph writes plain values as single nodes", "[serialization]") {
  REQUIRE(Text(ToJSONGraph(nullptr)) == R"({"root_index":0,"nodes":[{"type":"None"}]})");
  REQUIRE(Text(ToJSONGraph(true)) == R"({"root_index":0,"nodes":[{"type":"bool","data":true}]})");
  REQUIRE(Text(ToJSONGraph(42)) == R"({"root_index":0,"nodes":[{"type":"int","data":42}]})");
  REQUIRE(Text(ToJSONGraph(2.5)) == R"({"root_index":0,"nodes":[{"type":"float","data":2.5}]})");
  REQUIRE(Text(ToJSONGraph(String("hi\n"))) ==
          R"({"root_index":0,"nodes":[{"type":"ffi.String","data":"hi\n"}]})");
  REQUIRE(Text(ToJSONGraph(Bytes("abcd", 4))) ==
          R"({"root_index":0,"nodes":[{"type":"ffi.Bytes","data":"YWJjZA=="}]})");
  REQUIRE(Text(ToJSONGraph(DLDataType{kDLFloat, 32, 4})) ==
          R"({"root_index":0,"nodes":[{"type":"DataType","data":"float32x4"}]})");
  REQUIRE(Text(ToJSONGraph(DLDevice{kDLCUDA, 1})) ==
          R"({"root_index":0,"nodes":[{"type":"Device","data":[2,1]}]})");
  REQUIRE(Text(ToJSONGraph(Shape({1, 2, 3}))) ==
          R"({"root_index":0,"nodes":[{"type":"ffi.Shape","data":[1,2,3]}]})");
  REQUIRE(Text(ToJSONGraph(1, json::Object{{"v", 1}})) ==
          R"({"root_index":0,"nodes":[{"type":"int","data":1}],"metadata":{"v":1}})");
}

TEST_CASE("ToJSONGraph shares equal values and writes containers by node index",
          "[serialization]") {
  Array<Any> arr{42, String("hello"), true, nullptr, 42, String("hello")};
  REQUIRE(Text(ToJSONGraph(arr)) ==
          R"({"root_index":4,"nodes":[{"type":"int","data":42},)"
          R"({"type":"ffi.String","data":"hello"},{"type":"bool","data":true},)"
          R"({"type":"None"},{"type":"ffi.Array","data":[0,1,2,3,0,1]}]})");
  Map<String, Any> map{{"b", 42}, {"a", 42}};
  REQUIRE(Text(ToJSONGraph(map)) == R"({"root_index":3,"nodes":[{"type":"ffi.String","data":"b"},)"
                                    R"({"type":"int","data":42},{"type":"ffi.String","data":"a"},)"
                                    R"({"type":"ffi.Map","data":[0,1,2,1]}]})");
  REQUIRE(Text(ToJSONGraph(Dict<Any, Any>{})) ==
          R"({"root_index":0,"nodes":[{"type":"ffi.Dict","data":[]}]})");
  REQUIRE(Text(ToJSONGraph(List<Any>{1})) ==
          R"({"root_index":1,"nodes":[{"type":"int","data":1},{"type":"ffi.List","data":[0]}]})");
}

TEST_CASE("FromJSONGraph rebuilds what ToJSONGraph wrote", "[serialization]") {
  Bytes bytes(std::string("\x01\x02\x03\x04\x01\x0b\0", 7));
  Array<Any> shared{1, 2};
  List<Any> list{String("x"), shared, shared};
  Any value = Array<Any>{nullptr,
                         true,
                         -7,
                         0.5,
                         String("s"),
                         bytes,
                         DLDataType{kDLBfloat, 16, 1},
                         DLDevice{kDLCPU, 0},
                         Shape({4}),
                         list,
                         Map<Any, Any>{{1, String("one")}},
                         Dict<Any, Any>{{String("k"), shared}}};
  Any back = FromJSONGraph(ToJSONGraph(value));
  REQUIRE(Text(ToJSONGraph(back)) == Text(ToJSONGraph(value)));
  Array<Any> items = back.cast<Array<Any>>();
  REQUIRE(items[5].cast<Bytes>() == bytes);
  REQUIRE(items[6].cast<DLDataType>().code == kDLBfloat);
  REQUIRE(items[9].type_index() == TypeIndex::kTVMFFIList);
  List<Any> back_list = items[9].cast<List<Any>>();
  // One node, one object: sharing survives the round trip.
  REQUIRE(back_list[1].same_as(back_list[2]));
  REQUIRE(items[11].cast<Dict<Any, Any>>()[String("k")].same_as(back_list[1]));
  // Text forms.
  Function to_text = Function::GetGlobalRequired("ffi.ToJSONGraphString");
  Function from_text = Function::GetGlobalRequired("ffi.FromJSONGraphString");
  String text = to_text(value, nullptr).cast<String>();
  REQUIRE(Text(ToJSONGraph(from_text(text))) == Text(ToJSONGraph(value)));
}

// A subclass whose reflected field repeats its parent's name (the registry
// refuses that only within one type): in the graph the later one wins.
class TwinBaseObj : public Object {
 public:
  int64_t first = 1;
  String third = "t";
  TVM_FFI_DECLARE_OBJECT_INFO("test.ser.TwinBase", TwinBaseObj, Object);
};
class TwinObj : public TwinBaseObj {
 public:
  int64_t second = 2;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.ser.Twin", TwinObj, TwinBaseObj);
};
int CreateTwin(TVMFFIObjectHandle* out) {
  *out = detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(make_object<TwinObj>());
  return 0;
}
void RegisterTwinOnce() {
  static bool done = [] {
    auto base = make_object<TwinBaseObj>();
    auto twin = make_object<TwinObj>();
    AddField(TwinBaseObj::RuntimeTypeIndex(), "x", OffsetIn(base, &TwinBaseObj::first),
             GetAny<int64_t>, SetAny<int64_t>, kTVMFFIInt);
    AddField(TwinBaseObj::RuntimeTypeIndex(), "y", OffsetIn(base, &TwinBaseObj::third),
             GetAny<String>, SetAny<String>, kTVMFFIStr);
    AddField(TwinObj::RuntimeTypeIndex(), "x", OffsetIn(twin, &TwinObj::second), GetAny<int64_t>,
             SetAny<int64_t>, kTVMFFIInt);
    TVMFFITypeMetadata meta{};
    meta.creator = CreateTwin;
    REQUIRE(TVMFFITypeRegisterMetadata(TwinObj::RuntimeTypeIndex(), &meta) == 0);
    return true;
  }();
  (void)done;
}

TEST_CASE("ToJSONGraphString writes what writing ToJSONGraph's graph gives, byte for byte",
          "[serialization]") {
  // The string form writes each node as it completes instead of building the
  // graph as json values first; the text must not differ.
  RegisterOnce();
  RegisterTwinOnce();
  Function to_text = Function::GetGlobalRequired("ffi.ToJSONGraphString");
  auto same = [&](const Any& value, const Any& metadata) {
    const std::string text = std::string(to_text(value, metadata).cast<String>());
    REQUIRE(text == Text(ToJSONGraph(value, metadata)));
    return text;
  };
  auto t = make_object<TokenObj>();
  t->id = 5;
  Array<Any> shared{1, String("shared")};
  Any notes = Map<Any, Any>{{String("k"), shared}, {7, 0.25}, {shared, nullptr}};
  Node leaf("leaf \"quoted\"\n", -3, notes);
  Node root("root", 1, Array<Any>{leaf, leaf, ObjectRef(t)});
  Any value = Array<Any>{nullptr,
                         true,
                         false,
                         int64_t{0},
                         int64_t{-9223372036854775807LL - 1},
                         1.0,
                         0.1,
                         -1e300,
                         std::nan(""),
                         -std::numeric_limits<double>::infinity(),
                         String(""),
                         String("short"),
                         String(std::string(100, 'x') + "\x01\t\\\xc3\xa9"),
                         Bytes(std::string("\0\xff\x10", 3)),
                         Bytes(""),
                         DLDataType{kDLFloat, 32, 1},
                         DLDataType{kDLOpaqueHandle, 0, 0},
                         DLDevice{kDLCUDA, 3},
                         Shape({2, 0, 7}),
                         Shape(std::vector<int64_t>{}),
                         Array<Any>{},
                         List<Any>{shared, shared},
                         Map<Any, Any>{},
                         Dict<Any, Any>{{String("d"), root}},
                         root,
                         ObjectRef(make_object<TwinObj>()),
                         shared};
  same(value, nullptr);
  same(value, Map<String, Any>{{"version", String("1")}, {"list", Array<Any>{1, 2.5, true}}});
  same(Any(int64_t{42}), nullptr);
  same(Any(String("only")), Map<String, Any>{});
  // The twin's data object has the later "x" and keeps "y" between.
  const std::string twin = same(ObjectRef(make_object<TwinObj>()), nullptr);
  REQUIRE_THAT(twin, ContainsSubstring(R"({"type":"test.ser.Twin","data":{"x":2,"y":0}})"));
  // Errors are the same too.
  List<Any> loop{1};
  loop.push_back(loop);
  REQUIRE(Thrown([&] { to_text(loop, nullptr); }) == Thrown([&] { ToJSONGraph(loop); }));
  loop.pop_back();  // the cycle would leak
  REQUIRE(Thrown([&] { to_text(1, Any(reinterpret_cast<void*>(8))); }) ==
          Thrown([&] { Text(ToJSONGraph(1, Any(reinterpret_cast<void*>(8)))); }));
  // A big graph, and back.
  Array<Any> records;
  for (int64_t i = 0; i < 3000; ++i) {
    Map<String, Any> rec{{"id", i}, {"name", String("record_" + std::to_string(i))}};
    if (i > 0) rec.Set("parent", records[i / 2]);
    records.push_back(rec);
  }
  const std::string text = same(records, nullptr);
  Function from_text = Function::GetGlobalRequired("ffi.FromJSONGraphString");
  REQUIRE(Text(ToJSONGraph(from_text(String(text)))) == text);
}

TEST_CASE("Reflected objects go field by field and come back through the creator",
          "[serialization]") {
  RegisterOnce();
  Node x("x", 3);
  Array<Any> pair{x, x};
  REQUIRE(Text(ToJSONGraph(pair)) ==
          R"({"root_index":3,"nodes":[{"type":"ffi.String","data":"x"},{"type":"None"},)"
          R"({"type":"test.ser.Node","data":{"name":0,"count":3,"dtype":"int32","note":1}},)"
          R"({"type":"ffi.Array","data":[2,2]}]})");
  Array<Any> back = FromJSONGraph(ToJSONGraph(pair)).cast<Array<Any>>();
  REQUIRE(back[0].same_as(back[1]));
  Node n = back[0].cast<Node>();
  REQUIRE(!n.same_as(x));
  REQUIRE(n->name == "x");
  REQUIRE(n->count == 3);
  REQUIRE(n->dtype.bits == 32);
  // A missing field with a default takes it; without one it is a TypeError.
  json::Value graph =
      json::Parse(R"({"root_index":1,"nodes":[{"type":"ffi.String","data":"y"},)"
                  R"({"type":"test.ser.Node","data":{"name":0,"count":5,"dtype":"float16"}}]})");
  Node y = FromJSONGraph(graph).cast<Node>();
  REQUIRE(y->count == 5);
  REQUIRE(y->note == nullptr);
  REQUIRE(y->dtype.code == kDLFloat);
  REQUIRE(Thrown([] {
            FromJSONGraph(json::Parse(R"({"root_index":0,"nodes":[{"type":"test.ser.Node",)"
                                      R"("data":{"count":1,"dtype":"int8"}}]})"));
          }) == "TypeError: FromJSONGraph: required field `name` not set in type `test.ser.Node`");
}

TEST_CASE("__data_to_json__ / __data_from_json__ replace the field walk", "[serialization]") {
  RegisterOnce();
  auto t = make_object<TokenObj>();
  t->id = 17;
  json::Value graph = ToJSONGraph(ObjectRef(t));
  REQUIRE(Text(graph) == R"({"root_index":0,"nodes":[{"type":"test.ser.Token","data":"#17"}]})");
  Any back = FromJSONGraph(graph);
  REQUIRE(back.as<TokenObj>()->id == 17);
}

TEST_CASE("What cannot be serialized, and cycles, are errors", "[serialization]") {
  REQUIRE(Thrown([] { ToJSONGraph(ObjectRef(make_object<OpaqueObj>())); }) ==
          "TypeError: ToJSONGraph: type `test.ser.Opaque` cannot be serialized (no creator, no "
          "__ffi_new__ type attribute)");
  REQUIRE_THAT(Thrown([] { ToJSONGraph(Any(reinterpret_cast<void*>(8))); }),
               ContainsSubstring("TypeError: ToJSONGraph: cannot serialize type `"));
  List<Any> list{1};
  list.push_back(list);
  REQUIRE(Thrown([&] { ToJSONGraph(list); }) ==
          "ValueError: ToJSONGraph: cycle detected: a `ffi.List` contains itself");
  list.pop_back();
  Array<Any> deep;
  for (int i = 0; i < 1100; ++i) deep = Array<Any>{deep};
  REQUIRE_THAT(Thrown([&] { ToJSONGraph(deep); }), ContainsSubstring("nesting deeper than 1000"));
}

TEST_CASE("Malformed graphs are ValueErrors naming the node", "[serialization]") {
  auto bad = [](const char* text) { return Thrown([&] { FromJSONGraph(json::Parse(text)); }); };
  REQUIRE(Thrown([] { FromJSONGraph(json::Array{}); }) ==
          "ValueError: Invalid JSON Object Graph: expected an object, got `ffi.Array`");
  REQUIRE(bad(R"({"nodes":[]})") ==
          "ValueError: Invalid JSON Object Graph: expected an int `root_index`");
  REQUIRE(bad(R"({"root_index":0})") ==
          "ValueError: Invalid JSON Object Graph: expected a `nodes` array");
  REQUIRE(bad(R"({"root_index":1,"nodes":[{"type":"None"}]})") ==
          "ValueError: Invalid JSON Object Graph: node index 1 out of range (1 nodes)");
  REQUIRE(bad(R"({"root_index":0,"nodes":[{"type":"ffi.Array","data":[0]}]})") ==
          "ValueError: Invalid JSON Object Graph: node 0 contains itself");
  REQUIRE(bad(R"({"root_index":0,"nodes":[{"type":"no.such.Type","data":1}]})") ==
          "ValueError: Invalid JSON Object Graph: node 0: unknown type `no.such.Type`");
  REQUIRE(bad(R"({"root_index":0,"nodes":[{"type":"int","data":"x"}]})") ==
          "ValueError: Invalid JSON Object Graph: node 0: `data` must be an int");
  REQUIRE(bad(R"({"root_index":0,"nodes":[3]})") ==
          "ValueError: Invalid JSON Object Graph: node 0: not an object");
  REQUIRE(bad(R"({"root_index":0,"nodes":[{"type":"ffi.Map","data":[0]}]})") ==
          "ValueError: Invalid JSON Object Graph: node 0: map `data` must hold key, value pairs");
  REQUIRE(bad(R"({"root_index":0,"nodes":[{"type":"ffi.Bytes","data":"abc"}]})") ==
          "ValueError: Invalid JSON Object Graph: ffi.Bytes data: Base64Decode: length 3 is not "
          "a multiple of 4");
  REQUIRE(bad(R"({"root_index":0,"nodes":[{"type":"Device","data":[1]}]})") ==
          "ValueError: Invalid JSON Object Graph: node 0: Device `data` must be [device_type, "
          "device_id]");
  // A chain of 2000 arrays each holding the next: bounded, not a stack overflow.
  std::string chain = R"({"root_index":0,"nodes":[)";
  for (int i = 0; i < 2000; ++i) {
    chain += R"({"type":"ffi.Array","data":[)" + std::to_string(i + 1) + "]},";
  }
  chain += R"({"type":"None"}]})";
  REQUIRE_THAT(bad(chain.c_str()), ContainsSubstring("nesting deeper than 1000 levels"));
}

// Issue #25, untrusted graph JSON: every field is checked against the
// reflected field's type, and the runtime's own types against their
// invariants (an AccessPath is walked as a chain of AccessPaths, and its
// depth sizes ToSteps' allocation).
namespace {
// {"root_index":0,"nodes":[<nodes>]}
std::string Graph(const std::string& nodes) {
  return R"({"root_index":0,"nodes":[)" + nodes + "]}";
}
std::string PathNode(int parent, int step, const std::string& depth) {
  return R"({"type":"ffi.reflection.AccessPath","data":{"parent":)" + std::to_string(parent) +
         R"(,"step":)" + std::to_string(step) + R"(,"depth":)" + depth + "}}";
}
std::string StepNode(int kind, int key) {
  return R"({"type":"ffi.reflection.AccessStep","data":{"kind":)" + std::to_string(kind) +
         R"(,"key":)" + std::to_string(key) + "}}";
}
const char* const kNone = R"({"type":"None"})";
const char* const kStr = R"({"type":"ffi.String","data":"x"})";
}  // namespace

TEST_CASE("FromJSONGraph: an AccessPath must be a chain of AccessPaths of the right depth",
          "[serialization][hostile]") {
  using reflection::AccessPath;
  auto bad = [](const std::string& nodes) {
    return Thrown([&] { FromJSONGraph(json::Parse(Graph(nodes))); });
  };
  // parent None with a step: was a NULL dereference in ToSteps / PathEqual.
  REQUIRE(bad(PathNode(1, 2, "1") + "," + kNone + "," + StepNode(0, 3) + "," + kStr) ==
          "ValueError: Invalid JSON Object Graph: node 0: an AccessPath's `parent` and `step` must "
          "both be set, or both be None (the root)");
  // parent of another type: was read as an AccessPath.
  REQUIRE(bad(PathNode(1, 2, "1") + R"(,{"type":"ffi.Array","data":[]},)" + StepNode(0, 3) + "," +
              kStr) ==
          "ValueError: Invalid JSON Object Graph: node 0: an AccessPath's `parent` must be an "
          "ffi.reflection.AccessPath, not `ffi.Array`");
  // depth believed: a 2e9-element allocation in ToSteps.
  const std::string rest =
      "," + PathNode(2, 2, "0") + "," + kNone + "," + StepNode(0, 4) + "," + kStr;
  REQUIRE(bad(PathNode(1, 3, "2000000000") + rest) ==
          "ValueError: Invalid JSON Object Graph: node 0: an AccessPath's depth must be its "
          "parent's plus one (1), not 2000000000");
  REQUIRE(bad(PathNode(1, 1, "7") + "," + kNone) ==
          "ValueError: Invalid JSON Object Graph: node 0: the root AccessPath's depth must be 0, "
          "not 7");
  // depth is an int32 field: a wider value is refused, not truncated.
  REQUIRE(bad(PathNode(1, 3, "4294967297") + rest) ==
          "ValueError: Invalid JSON Object Graph: node 0: field `depth` of "
          "`ffi.reflection.AccessPath` does not hold 4294967297 (a 32-bit integer)");
  // step of the wrong type: checked against the field's reflected type.
  REQUIRE(bad(PathNode(1, 3, "1") + "," + PathNode(2, 2, "0") + "," + kNone + "," + kStr) ==
          "ValueError: Invalid JSON Object Graph: node 0: field `step` of "
          "`ffi.reflection.AccessPath`: TypeError: Cannot convert from type `str` to "
          "`Optional<ffi.reflection.AccessStep>`");
  // With every check passed, the path is sound.
  AccessPath ok = FromJSONGraph(json::Parse(Graph(PathNode(1, 3, "1") + rest))).cast<AccessPath>();
  REQUIRE(ok->depth == 1);
  REQUIRE(ok->ToSteps().size() == 1);
  // AccessStep: a known kind, a key that fits it.
  REQUIRE(bad(StepNode(99, 1) + R"(,{"type":"int","data":1})") ==
          "ValueError: Invalid JSON Object Graph: node 0: unknown access step kind 99 (0 to 5)");
  REQUIRE(bad(StepNode(1, 1) + "," + kStr) ==
          "ValueError: Invalid JSON Object Graph: node 0: an array step's key must be an int, not "
          "`str`");
  // A sound path still round-trips.
  AccessPath path = AccessPath::Root()->Attr("body")->ArrayItem(2)->MapItem(String("k"));
  AccessPath back = FromJSONGraph(ToJSONGraph(path)).cast<AccessPath>();
  REQUIRE(back->depth == 3);
  REQUIRE(back->PathEqual(path));
  REQUIRE(back->ToSteps().size() == 3);
}

TEST_CASE("FromJSONGraph: fields are checked against their reflected types",
          "[serialization][hostile]") {
  RegisterOnce();
  auto bad = [](const std::string& text) {
    return Thrown([&] { FromJSONGraph(json::Parse(text)); });
  };
  // An object node where the field declares a string.
  REQUIRE(
      bad(R"({"root_index":0,"nodes":[{"type":"test.ser.Node","data":{"name":1,"count":1,"dtype":"int32"}},{"type":"ffi.Array","data":[]}]})") ==
      "ValueError: Invalid JSON Object Graph: node 0: field `name` of `test.ser.Node` must be "
      "a `str`, not `ffi.Array`");
  // An inline field of the wrong JSON type.
  REQUIRE(
      bad(R"({"root_index":0,"nodes":[{"type":"test.ser.Node","data":{"name":1,"count":"many","dtype":"int32"}},{"type":"ffi.String","data":"n"}]})") ==
      "ValueError: Invalid JSON Object Graph: node 0: field `count` of `test.ser.Node` must "
      "be an int, not `str`");
  REQUIRE(
      bad(R"({"root_index":0,"nodes":[{"type":"test.ser.Node","data":{"name":1,"count":1,"dtype":7}},{"type":"ffi.String","data":"n"}]})") ==
      "ValueError: Invalid JSON Object Graph: node 0: field `dtype` must be a data type "
      "string, not `int`");
  // A device outside int32 is refused, not truncated.
  REQUIRE(bad(R"({"root_index":0,"nodes":[{"type":"Device","data":[1,4294967296]}]})") ==
          "ValueError: Invalid JSON Object Graph: node 0: Device `data` holds 4294967296, outside "
          "int32");
}

// Issue #25: a 2 KB graph of shared nodes (each level holds the one below
// twice: 2^60 paths) costs every walker time linear in its 62 nodes.
TEST_CASE("A small JSON DAG costs every walker time linear in its nodes",
          "[serialization][hostile]") {
  std::string nodes = R"({"type":"int","data":1},{"type":"ffi.Array","data":[0]})";
  for (int i = 2; i < 62; ++i) {
    nodes += R"(,{"type":"ffi.Array","data":[)" + std::to_string(i - 1) + "," +
             std::to_string(i - 1) + "]}";
  }
  const std::string text = R"({"root_index":61,"nodes":[)" + nodes + "]}";
  REQUIRE(text.size() < 2500);
  Function from_text = Function::GetGlobalRequired("ffi.FromJSONGraphString");
  Function to_text = Function::GetGlobalRequired("ffi.ToJSONGraphString");
  Any a = from_text(String(text));
  Any b = from_text(String(text));
  CHECK(StructuralEqual::Equal(a, b));
  CHECK_FALSE(StructuralEqual::GetFirstMismatch(a, b).has_value());
  CHECK(StructuralHash::Hash(a) == StructuralHash::Hash(b));
  CHECK(RecursiveEq(a, b));
  CHECK(RecursiveHash(a) == RecursiveHash(b));
  CHECK_FALSE(RecursiveLt(a, b));
  CHECK(RecursiveEq(DeepCopy(a), a));
  CHECK_THAT(Thrown([&] { ReprPrint(a); }),
             ContainsSubstring("ValueError: ReprPrint: the text would be longer than"));
  // The round trip writes each shared node once.
  String again = to_text(a, nullptr).cast<String>();
  CHECK(again.size() < 2 * text.size());
  CHECK(StructuralEqual::Equal(from_text(again), a));
}
