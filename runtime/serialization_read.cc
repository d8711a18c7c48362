/*
 * The reader of object graphs (ffi.FromJSONGraph, ffi.FromJSONGraphString;
 * the format is described in serialization.cc): the Deserializer decodes the
 * nodes a graph's root reaches, from a json value or straight off a parsed
 * JSON tape, and rebuilds objects with their type's creator and field
 * setters. The graph is untrusted: every index, node shape and field value is
 * checked, and nesting is bounded (kMaxDepth).
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "internal.h"
#include "json_text.h"
#include "serialization_internal.h"
#include "walk_guard.h"

namespace tvm {
namespace ffi {
namespace json_graph {
namespace {

using tvmffi::rt::JSONTape;

class Deserializer {
 public:
  explicit Deserializer(const json::Value& graph) { Init(graph); }

  // Graph text, parsed to a tape: the nodes of built-in types are read off the
  // tape as they are; any other node (or one whose shape the tape reader does
  // not take as is, errors included) becomes the json value ParseJSONText
  // would have made and goes the way FromJSONGraph reads it, so the result
  // and every error are the same on both ways.
  explicit Deserializer(const JSONTape* tape) {
    if (!InitFromTape(tape)) Init(tape->ToAny(0));
  }

  Any Run() { return Node(root_, 0); }

 private:
  void Init(const json::Value& graph) {
    auto obj = graph.try_cast<json::Object>();
    if (!obj.has_value() || graph.type_index() != TypeIndex::kTVMFFIMap) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: expected an object, got `"
                                << graph.GetTypeKey() << "`";
    }
    Optional<Any> root = obj->Get("root_index");
    Optional<Any> nodes = obj->Get("nodes");
    if (!root.has_value() || root->type_index() != TypeIndex::kTVMFFIInt) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: expected an int `root_index`";
    }
    if (!nodes.has_value() || nodes->type_index() != TypeIndex::kTVMFFIArray) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: expected a `nodes` array";
    }
    root_ = root->cast<int64_t>();
    nodes_ = nodes->cast<json::Array>();
    num_nodes_ = static_cast<size_t>(nodes_.size());
    state_.assign(num_nodes_, kNew);
    decoded_.resize(num_nodes_);
  }

  // False where the top level is not a well-formed graph object (Init then
  // raises the error).
  bool InitFromTape(const JSONTape* tape) {
    const std::vector<JSONTape::Entry>& entries = tape->entries;
    if (entries[0].kind != JSONTape::kObject) return false;
    size_t root_at = 0;
    size_t nodes_at = 0;
    // Keys are single entries; a repeated key keeps its last value, as in a Map.
    for (size_t i = 1; i < entries[0].end; i = tape->Next(i + 1)) {
      std::string_view key = tape->Text(i);
      if (key == "root_index") {
        root_at = i + 1;
      } else if (key == "nodes") {
        nodes_at = i + 1;
      }
    }
    if (root_at == 0 || entries[root_at].kind != JSONTape::kInt) return false;
    if (nodes_at == 0 || entries[nodes_at].kind != JSONTape::kArray) return false;
    root_ = entries[root_at].i;
    node_at_.reserve(tape->Count(nodes_at));
    for (size_t i = nodes_at + 1; i < entries[nodes_at].end; i = tape->Next(i)) {
      node_at_.push_back(i);
    }
    tape_ = tape;
    num_nodes_ = node_at_.size();
    state_.assign(num_nodes_, kNew);
    decoded_.resize(num_nodes_);
    return true;
  }

  enum State : uint8_t { kNew, kBusy, kDone };

  Any Node(int64_t index, int depth) {
    if (index < 0 || index >= static_cast<int64_t>(num_nodes_)) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: node index " << index
                                << " out of range (" << num_nodes_ << " nodes)";
    }
    size_t i = static_cast<size_t>(index);
    if (state_[i] == kDone) return decoded_[i];
    if (state_[i] == kBusy) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: node " << index
                                << " contains itself";
    }
    if (depth > kMaxDepth) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: nesting deeper than " << kMaxDepth
                                << " levels";
    }
    state_[i] = kBusy;
    Any value = Decode(index, depth + 1);
    decoded_[i] = value;
    state_[i] = kDone;
    return value;
  }

  [[noreturn]] static void Bad(int64_t index, const std::string& what) {
    TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: node " << index << ": " << what;
    TVM_FFI_UNREACHABLE();
  }

  // node["data"] as T, or a ValueError naming the node.
  template <typename T>
  T Data(int64_t index, const json::Object& node, const char* expect) {
    Optional<Any> data = node.Get("data");
    if (!data.has_value()) Bad(index, "missing `data`");
    auto v = data->try_cast<T>();
    if (!v.has_value()) Bad(index, std::string("`data` must be ") + expect);
    return *std::move(v);
  }

  // node["data"] as an array of node indices (ints), checked.
  json::Array IndexArray(int64_t index, const json::Object& node) {
    json::Array data = Data<json::Array>(index, node, "an array of node indices");
    for (const Any& x : data) {
      if (x.type_index() != TypeIndex::kTVMFFIInt) Bad(index, "`data` must hold node indices");
    }
    return data;
  }
  // An element of an IndexArray.
  static int64_t IntOf(const Any& x) { return detail::AnyUnsafe::TVMFFIAnyPtrFromAny(x)->v_int64; }

  std::vector<int64_t> Indices(int64_t index, const json::Object& node) {
    json::Array data = Data<json::Array>(index, node, "an array of node indices");
    std::vector<int64_t> out;
    out.reserve(data.size());
    for (const Any& x : data) {
      if (x.type_index() != TypeIndex::kTVMFFIInt) Bad(index, "`data` must hold node indices");
      out.push_back(x.cast<int64_t>());
    }
    return out;
  }

  Any Decode(int64_t index, int depth) {
    if (tape_ == nullptr) return DecodeValue(index, nodes_[index], depth);
    Any out;
    if (DecodeFromTape(index, depth, &out)) return out;
    return DecodeValue(index, tape_->ToAny(node_at_[index]), depth);
  }

  // The type index of a type key, or false where none is registered; keys seen
  // before are found without the registry (a graph names few types).
  bool TypeIndexOf(std::string_view key, int32_t* out) {
    for (const auto& [known, type_index] : recent_types_) {
      if (known == key) {
        *out = type_index;
        return true;
      }
    }
    if (auto it = more_types_.find(key); it != more_types_.end()) {
      *out = it->second;
      return true;
    }
    TVMFFIByteArray bytes{key.data(), key.size()};
    if (TVMFFITypeKeyToIndex(&bytes, out) != 0) {
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      if (err != nullptr) TVMFFIObjectDecRef(err);
      return false;
    }
    if (recent_types_.size() < kRecentTypes) {
      recent_types_.emplace_back(key, *out);
    } else {
      more_types_.emplace(key, *out);
    }
    return true;
  }

  // A node of a built-in type whose `data` has the expected JSON kind, read
  // straight off the tape into *out; false for anything else (nothing has
  // been decoded then, and DecodeValue takes the node).
  bool DecodeFromTape(int64_t index, int depth, Any* out) {
    const JSONTape& tape = *tape_;
    const size_t at = node_at_[index];
    const JSONTape::Entry& node = tape.entries[at];
    if (node.kind != JSONTape::kObject) return false;
    size_t type_at = 0;
    size_t data_at = 0;
    for (size_t i = at + 1; i < node.end; i = tape.Next(i + 1)) {
      std::string_view key = tape.Text(i);
      if (key == "type") {
        type_at = i + 1;
      } else if (key == "data") {
        data_at = i + 1;
      }
    }
    if (type_at == 0 || tape.entries[type_at].kind != JSONTape::kStr) return false;
    int32_t type_index = -1;
    if (!TypeIndexOf(tape.Text(type_at), &type_index)) return false;
    const uint32_t kind = data_at == 0 ? JSONTape::kNull : tape.entries[data_at].kind;
    switch (type_index) {
      case TypeIndex::kTVMFFINone:
        *out = Any(nullptr);
        return true;
      case TypeIndex::kTVMFFIBool:
        if (data_at == 0 || (kind != JSONTape::kTrue && kind != JSONTape::kFalse)) return false;
        *out = Any(kind == JSONTape::kTrue);
        return true;
      case TypeIndex::kTVMFFIInt:
        if (kind != JSONTape::kInt) return false;
        *out = Any(tape.entries[data_at].i);
        return true;
      case TypeIndex::kTVMFFIFloat:
        if (kind != JSONTape::kFloat) return false;
        *out = Any(tape.entries[data_at].d);
        return true;
      case TypeIndex::kTVMFFIStr:
        if (kind != JSONTape::kStr && kind != JSONTape::kLongStr) return false;
        *out = String(tape.Text(data_at));
        return true;
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList:
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict:
        break;
      default:
        return false;
    }
    // A sequence or map: `data` must be an array of ints (an even count for maps).
    if (kind != JSONTape::kArray) return false;
    const size_t first = data_at + 1;
    const size_t last = static_cast<size_t>(tape.entries[data_at].end);
    for (size_t i = first; i < last; ++i) {
      if (tape.entries[i].kind != JSONTape::kInt) return false;
    }
    const bool is_map = type_index == TypeIndex::kTVMFFIMap || type_index == TypeIndex::kTVMFFIDict;
    if (is_map && (last - first) % 2 != 0) return false;
    // Items go on a stack shared by every level (decoding an item may decode
    // other containers), popped once the container is built.
    if (!is_map) {
      const size_t base = items_.size();
      for (size_t i = first; i < last; ++i) items_.push_back(Node(tape.entries[i].i, depth));
      auto begin = std::make_move_iterator(items_.begin() + static_cast<std::ptrdiff_t>(base));
      auto end = std::make_move_iterator(items_.end());
      if (type_index == TypeIndex::kTVMFFIArray) {
        *out = Array<Any>(begin, end);
      } else {
        *out = List<Any>(begin, end);
      }
      items_.resize(base);
      return true;
    }
    const size_t base = pairs_.size();
    for (size_t i = first; i < last; i += 2) {
      Any k = Node(tape.entries[i].i, depth);
      pairs_.emplace_back(std::move(k), Node(tape.entries[i + 1].i, depth));
    }
    auto begin = pairs_.begin() + static_cast<std::ptrdiff_t>(base);
    if (type_index == TypeIndex::kTVMFFIMap) {
      *out = Map<Any, Any>(begin, pairs_.end());
    } else {
      *out = Dict<Any, Any>(begin, pairs_.end());
    }
    pairs_.resize(base);
    return true;
  }

  // A node given as a json value (from the `nodes` array, or made from the tape).
  Any DecodeValue(int64_t index, const Any& node_value, int depth) {
    auto node_opt = node_value.try_cast<json::Object>();
    if (!node_opt.has_value() || node_value.type_index() != TypeIndex::kTVMFFIMap) {
      Bad(index, "not an object");
    }
    const json::Object& node = *node_opt;
    Optional<Any> type = node.Get("type");
    if (!type.has_value() || !type->try_cast<String>().has_value()) {
      Bad(index, "missing string `type`");
    }
    String key = type->cast<String>();
    TVMFFIByteArray key_bytes{key.data(), key.size()};
    int32_t type_index = -1;
    if (TVMFFITypeKeyToIndex(&key_bytes, &type_index) != 0) {
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      if (err != nullptr) TVMFFIObjectDecRef(err);
      Bad(index, "unknown type `" + std::string(key) + "`");
    }
    switch (type_index) {
      case TypeIndex::kTVMFFINone:
        return Any(nullptr);
      case TypeIndex::kTVMFFIBool:
        return Data<bool>(index, node, "a bool");
      case TypeIndex::kTVMFFIInt:
        return Data<int64_t>(index, node, "an int");
      case TypeIndex::kTVMFFIFloat:
        return Data<double>(index, node, "a float");
      case TypeIndex::kTVMFFIDataType:
        return DTypeFromText(Data<String>(index, node, "a data type string"));
      case TypeIndex::kTVMFFIDevice: {
        std::vector<int64_t> d = Indices(index, node);
        if (d.size() != 2) Bad(index, "Device `data` must be [device_type, device_id]");
        for (int64_t v : d) {
          if (v < INT32_MIN || v > INT32_MAX) {
            Bad(index, "Device `data` holds " + std::to_string(v) + ", outside int32");
          }
        }
        // No device has a negative type or id ([-1, -1] is not a device).
        if (d[0] < 0 || d[1] < 0) {
          Bad(index, "Device `data` [" + std::to_string(d[0]) + ", " + std::to_string(d[1]) +
                         "] has a negative device type or id");
        }
        return DLDevice{static_cast<DLDeviceType>(d[0]), static_cast<int32_t>(d[1])};
      }
      case TypeIndex::kTVMFFIStr:
        return Data<String>(index, node, "a string");
      case TypeIndex::kTVMFFIBytes: {
        String b64 = Data<String>(index, node, "a base64 string");
        return BytesDataDecode(b64);
      }
      case TypeIndex::kTVMFFIShape: {
        std::vector<int64_t> d = Indices(index, node);
        return Shape(d.begin(), d.end());
      }
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList: {
        json::Array ids = IndexArray(index, node);
        std::vector<Any> items;
        items.reserve(ids.size());
        for (const Any& i : ids) items.push_back(Node(IntOf(i), depth));
        if (type_index == TypeIndex::kTVMFFIArray) return Array<Any>(items.begin(), items.end());
        return List<Any>(items.begin(), items.end());
      }
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict: {
        json::Array ids = IndexArray(index, node);
        if (ids.size() % 2 != 0) Bad(index, "map `data` must hold key, value pairs");
        std::vector<std::pair<Any, Any>> items;
        items.reserve(ids.size() / 2);
        for (int64_t i = 0; i < static_cast<int64_t>(ids.size()); i += 2) {
          Any k = Node(IntOf(ids[i]), depth);
          items.emplace_back(std::move(k), Node(IntOf(ids[i + 1]), depth));
        }
        if (type_index == TypeIndex::kTVMFFIMap) return Map<Any, Any>(items.begin(), items.end());
        return Dict<Any, Any>(items.begin(), items.end());
      }
      default:
        break;
    }
    if (type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
      Bad(index, "type `" + std::string(key) + "` cannot be deserialized");
    }
    return DecodeObject(index, type_index, node, depth);
  }

  Any DecodeObject(int64_t index, int32_t type_index, const json::Object& node, int depth) {
    Optional<Any> data = node.Get("data");
    if (!data.has_value()) Bad(index, "missing `data`");
    if (detail::IsObjectInstance<IntEnumObj>(type_index)) {
      return EnumObj::_GetByIntIndex(type_index, Data<int64_t>(index, node, "an int"));
    }
    if (detail::IsObjectInstance<EnumObj>(type_index)) {
      return EnumObj::_GetByStrIndex(type_index, Data<String>(index, node, "a string"));
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
    AnyView from_json = TypeAttr("__data_from_json__", type_index);
    if (from_json != nullptr) {
      Any value = from_json.cast<Function>()(*data);
      // The hook's result stands for a node of this type: nothing else (an
      // ffi.BigInt node that fits int64 is an int: BigInt's canonical form).
      const bool canonical_int =
          type_index == TypeIndex::kTVMFFIBigInt && value.type_index() == TypeIndex::kTVMFFIInt;
      if (!canonical_int && !IsInstanceOf(value.type_index(), type_index)) {
        Bad(index, "`__data_from_json__` of `" + TypeKeyOf(info) + "` returned a `" +
                       std::string(value.GetTypeKey()) + "`");
      }
      return value;
    }
    if (!HasCreator(info)) {
      TVM_FFI_THROW(TypeError) << "FromJSONGraph: type `" << TypeKeyOf(info)
                               << "` cannot be created (no creator, no __ffi_new__ type "
                                  "attribute)";
    }
    auto fields_opt = data->try_cast<json::Object>();
    if (!fields_opt.has_value() || data->type_index() != TypeIndex::kTVMFFIMap) {
      Bad(index, "object `data` must be an object of fields");
    }
    const json::Object& fields = *fields_opt;
    Any obj = Create(index, info);
    char* base = reinterpret_cast<char*>(detail::AnyUnsafe::TVMFFIAnyPtrFromAny(obj)->v_obj);
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field_info) {
      const TVMFFIFieldInfo& f = *field_info;
      String name(f.name);
      void* addr = base + f.offset;
      Any value;
      if (Optional<Any> v = fields.Get(name)) {
        if (!InlineField(f.field_static_type_index)) {
          if (v->type_index() != TypeIndex::kTVMFFIInt) {
            Bad(index, "field `" + std::string(name) + "` must be a node index");
          }
          value = Node(v->cast<int64_t>(), depth);
        } else if (f.field_static_type_index == TypeIndex::kTVMFFIDataType &&
                   v->type_index() != TypeIndex::kTVMFFINone) {
          std::optional<String> text = v->try_cast<String>();
          if (!text.has_value()) {
            Bad(index, "field `" + std::string(name) + "` must be a data type string, not `" +
                           std::string(v->GetTypeKey()) + "`");
          }
          value = DTypeFromText(*text);
        } else {
          value = *v;
        }
        CheckFieldValue(index, info, f, value);
      } else if (f.flags & kTVMFFIFieldFlagBitMaskHasDefault) {
        value = AnyView::CopyFromTVMFFIAny(f.default_value_or_factory);
        if (f.flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) value = value.cast<Function>()();
      } else {
        TVM_FFI_THROW(TypeError) << "FromJSONGraph: required field `" << name
                                 << "` not set in type `" << TypeKeyOf(info) << "`";
      }
      if (f.setter == nullptr) {
        TVM_FFI_THROW(TypeError) << "FromJSONGraph: field `" << name << "` of `" << TypeKeyOf(info)
                                 << "` has no setter";
      }
      if (reflection::CallFieldSetter(&f, addr, detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value)) !=
          0) {
        // The setter's own conversion refused the value (e.g. None for a
        // non-optional field, an Array<int> holding a string).
        Error cause = detail::MoveFromSafeCallRaised();
        Bad(index, "field `" + std::string(name) + "` of `" + TypeKeyOf(info) +
                       "`: " + std::string(cause.kind()) + ": " + std::string(cause.message()));
      }
    });
    // What the field types cannot say: the invariants of the runtime's own
    // types (an AccessPath's parent chain and depth, ...).
    std::string problem = tvmffi::rt::CheckReconstructedObject(obj.cast<ObjectRef>());
    if (!problem.empty()) Bad(index, problem);
    return obj;
  }

  // Whether a value of type `actual` may stand where the static type `target`
  // is declared (a type or any subclass; the small and heap forms of strings
  // and bytes alike).
  static bool IsInstanceOf(int32_t actual, int32_t target) {
    if (actual == target || target == TypeIndex::kTVMFFIAny) return true;
    if (target == TypeIndex::kTVMFFIStr) return actual == TypeIndex::kTVMFFISmallStr;
    if (target == TypeIndex::kTVMFFIBytes) return actual == TypeIndex::kTVMFFISmallBytes;
    if (target < TypeIndex::kTVMFFIStaticObjectBegin) return false;
    if (actual == TypeIndex::kTVMFFISmallStr || actual == TypeIndex::kTVMFFISmallBytes) {
      return target == TypeIndex::kTVMFFIObject;
    }
    if (actual < TypeIndex::kTVMFFIStaticObjectBegin) return false;
    if (target == TypeIndex::kTVMFFIObject) return true;
    const TVMFFITypeInfo* a = TVMFFIGetTypeInfo(actual);
    const TVMFFITypeInfo* t = TVMFFIGetTypeInfo(target);
    return a != nullptr && t != nullptr && t->type_depth < a->type_depth &&
           a->type_ancestors[t->type_depth]->type_index == target;
  }

  // A field's value against the field's reflected static type (not only the
  // type of the node it came from): the right kind of value, an integer that
  // fits the field's width, an object of the declared type or a subclass.
  static void CheckFieldValue(int64_t index, const TVMFFITypeInfo* info, const TVMFFIFieldInfo& f,
                              const Any& value) {
    const int32_t want = f.field_static_type_index;
    const int32_t got = value.type_index();
    auto fail = [&](const std::string& what) {
      Bad(index, "field `" + std::string(f.name.data, f.name.size) + "` of `" + TypeKeyOf(info) +
                     "` " + what);
    };
    auto wrong_type = [&](const char* expect) {
      fail(std::string("must be ") + expect + ", not `" + std::string(value.GetTypeKey()) + "`");
    };
    // None passes for every type: an Optional field of that type takes it,
    // and the setter refuses it for any other.
    if (got == TypeIndex::kTVMFFINone) return;
    switch (want) {
      case TypeIndex::kTVMFFIAny:
        return;
      case TypeIndex::kTVMFFINone:
        wrong_type("None");
        return;
      case TypeIndex::kTVMFFIBool:
        if (got == TypeIndex::kTVMFFIBool) return;
        if (got == TypeIndex::kTVMFFIInt && (value.cast<int64_t>() & ~int64_t{1}) == 0) return;
        wrong_type("a bool");
        return;
      case TypeIndex::kTVMFFIInt: {
        if (got != TypeIndex::kTVMFFIInt && got != TypeIndex::kTVMFFIBool) wrong_type("an int");
        const int64_t v = value.cast<int64_t>();
        if (f.size > 0 && f.size < 8) {
          // Signed or unsigned: the field's width is all that is recorded.
          const int64_t lo = -(int64_t{1} << (8 * f.size - 1));
          const int64_t hi = (int64_t{1} << (8 * f.size)) - 1;
          if (v < lo || v > hi) {
            fail("does not hold " + std::to_string(v) + " (a " + std::to_string(8 * f.size) +
                 "-bit integer)");
          }
        }
        return;
      }
      case TypeIndex::kTVMFFIFloat: {
        if (got != TypeIndex::kTVMFFIFloat && got != TypeIndex::kTVMFFIInt) wrong_type("a float");
        if (f.size == 4 && got == TypeIndex::kTVMFFIFloat) {
          const double v = value.cast<double>();
          if (std::isfinite(v) && std::fabs(v) > static_cast<double>(FLT_MAX)) {
            fail("does not hold " + std::to_string(v) + " (a 32-bit float)");
          }
        }
        return;
      }
      case TypeIndex::kTVMFFIDataType:
        if (got != TypeIndex::kTVMFFIDataType) wrong_type("a data type");
        return;
      default:
        break;
    }
    if (!IsInstanceOf(got, want)) {
      wrong_type(("a `" + detail::TypeIndexToTypeKey(want) + "`").c_str());
    }
  }

  static Any Create(int64_t index, const TVMFFITypeInfo* info) {
    Any obj;
    const TVMFFITypeMetadata* md = ::tvm::ffi::detail::TypeMetadataOf(info);
    if (md != nullptr && md->creator != nullptr) {
      TVMFFIObjectHandle handle = nullptr;
      TVM_FFI_CHECK_SAFE_CALL(md->creator(&handle));
      if (handle == nullptr) Bad(index, "the creator of `" + TypeKeyOf(info) + "` returned NULL");
      TVMFFIAny cell{};
      cell.type_index = TVMFFIObjectGetTypeIndex(handle);
      cell.v_obj = static_cast<TVMFFIObject*>(handle);
      obj = detail::AnyUnsafe::MoveTVMFFIAnyToAny(&cell);
    } else {
      obj = TypeAttr("__ffi_new__", info->type_index).cast<Function>()();
    }
    // The fields are written at the offsets of this type: the new object
    // must be exactly of it.
    if (obj.type_index() != info->type_index) {
      Bad(index, "the creator of `" + TypeKeyOf(info) + "` made a `" +
                     std::string(obj.GetTypeKey()) + "`");
    }
    return obj;
  }

  static constexpr size_t kRecentTypes = 16;

  int64_t root_ = 0;
  size_t num_nodes_ = 0;
  json::Array nodes_;               // the nodes, given as json values
  const JSONTape* tape_ = nullptr;  // or given as graph text: its tape
  std::vector<size_t> node_at_;     // and the tape index of each node
  std::vector<State> state_;
  std::vector<Any> decoded_;
  std::vector<Any> items_;  // DecodeFromTape's item stacks
  std::vector<std::pair<Any, Any>> pairs_;
  std::vector<std::pair<std::string_view, int32_t>> recent_types_;
  std::unordered_map<std::string_view, int32_t> more_types_;
};

}  // namespace

Any ReadGraph(const Any& graph) {
  return Deserializer(graph).Run();
}

Any ReadGraphText(const String& text) {
  tvmffi::rt::JSONTape tape;
  tvmffi::rt::ParseJSONTape(std::string_view(text.data(), text.size()), &tape);
  return Deserializer(&tape).Run();
}

}  // namespace json_graph
}  // namespace ffi
}  // namespace tvm
