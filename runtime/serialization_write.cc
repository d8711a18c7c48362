/*
 * The writer of object graphs (ffi.ToJSONGraph, ffi.ToJSONGraphString; the
 * format is described in serialization.cc): the Serializer walks a value,
 * children first, giving equal values one node (NodeIndex: objects by
 * identity, strings by content), and hands each finished node to a sink:
 * TreeNodes builds json values, TextNodes writes JSON text at once.
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

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <deque>
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

// Where a Serializer's nodes go. A node is complete only after every node it
// refers to, so its index is the number of nodes completed before it: nodes
// can be written out as they complete, in index order.
//
// TreeNodes makes each node a json value (ffi.ToJSONGraph). TextNodes writes
// each as JSON text at once (ffi.ToJSONGraphString), byte for byte what
// writing TreeNodes' graph would give, without building it (a graph of 10^6
// records made millions of small maps and strings only to write and free).
class TreeNodes {
 public:
  class Node {
   public:
    Node(TreeNodes*, int, std::string_view type) { node_.Set("type", String(type)); }
    void DataString(std::string_view text) { node_.Set("data", String(text)); }
    void DataJSON(const Any& value) { node_.Set("data", value); }
    void DataInts(const int64_t* begin, const int64_t* end) {
      node_.Set("data", json::Array(begin, end));
    }
    void BeginFields() {}
    void Field(std::string_view name, const Any& value) { fields_.Set(String(name), value); }
    void FieldString(std::string_view name, std::string_view text) {
      fields_.Set(String(name), String(text));
    }
    void EndFields() { node_.Set("data", fields_); }

   private:
    friend class TreeNodes;
    json::Object node_;
    json::Object fields_;
  };

  int64_t Add(Node* node) {
    nodes_.push_back(std::move(node->node_));
    return static_cast<int64_t>(nodes_.size()) - 1;
  }
  json::Value Finish(int64_t root, const Any& metadata) {
    json::Object result;
    result.Set("root_index", root);
    result.Set("nodes", json::Array(nodes_.begin(), nodes_.end()));
    if (metadata != nullptr) result.Set("metadata", metadata);
    return result;
  }

 private:
  std::vector<Any> nodes_;
};

class TextNodes {
 public:
  // How deep a node's data sits in the graph ({"nodes": [{"data": ...}]}),
  // as the JSON writer counts nesting (its depth limit).
  static constexpr int kDataDepth = 3;

  class Node {
   public:
    // A node being built uses the buffer of its depth: a node's buffer is
    // free again before the next node of the same depth starts.
    Node(TextNodes* out, int depth, std::string_view type) : text_(out->Buffer(depth)) {
      text_.assign("{\"type\":");
      detail::AppendJSONString(&text_, type);
    }
    void DataString(std::string_view text) {
      text_ += ",\"data\":";
      detail::AppendJSONString(&text_, text);
    }
    void DataJSON(const Any& value) {
      text_ += ",\"data\":";
      tvmffi::rt::AppendJSONText(&text_, value, kDataDepth);
    }
    void DataInts(const int64_t* begin, const int64_t* end) {
      text_ += ",\"data\":[";
      for (const int64_t* p = begin; p != end; ++p) {
        if (p != begin) text_.push_back(',');
        AppendInt(&text_, *p);
      }
      text_.push_back(']');
    }
    void BeginFields() {
      text_ += ",\"data\":{";
      first_field_ = true;
    }
    void Field(std::string_view name, const Any& value) {
      FieldName(name);
      tvmffi::rt::AppendJSONText(&text_, value, kDataDepth + 1);
    }
    void FieldString(std::string_view name, std::string_view text) {
      FieldName(name);
      detail::AppendJSONString(&text_, text);
    }
    void EndFields() { text_.push_back('}'); }

   private:
    friend class TextNodes;
    void FieldName(std::string_view name) {
      if (!first_field_) text_.push_back(',');
      first_field_ = false;
      detail::AppendJSONString(&text_, name);
      text_.push_back(':');
    }
    std::string& text_;
    bool first_field_ = true;
  };

  TextNodes() { nodes_.assign(kPrefixRoom, ' '); }

  int64_t Add(Node* node) {
    if (count_ != 0) nodes_.push_back(',');
    nodes_ += node->text_;
    nodes_.push_back('}');
    return count_++;
  }
  // The graph's text: the prefix goes into the room left before the nodes,
  // so the nodes' text (most of a big graph) is copied once, into the String.
  String Finish(int64_t root, const Any& metadata) {
    std::string prefix = "{\"root_index\":";
    AppendInt(&prefix, root);
    prefix += ",\"nodes\":[";
    const size_t start = kPrefixRoom - prefix.size();
    nodes_.replace(start, prefix.size(), prefix);
    nodes_.push_back(']');
    if (metadata != nullptr) {
      nodes_ += ",\"metadata\":";
      tvmffi::rt::AppendJSONText(&nodes_, metadata, 1);
    }
    nodes_.push_back('}');
    return String(nodes_.data() + start, nodes_.size() - start);
  }

 private:
  // Room for {"root_index":<int64>,"nodes":[ (at most 44 bytes).
  static constexpr size_t kPrefixRoom = 48;

  static void AppendInt(std::string* out, int64_t v) {
    char buf[24];
    out->append(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
  }
  std::string& Buffer(int depth) {
    const size_t d = static_cast<size_t>(depth);
    if (buffers_.size() <= d) buffers_.resize(d + 1);
    return buffers_[d];
  }

  std::string nodes_;  // kPrefixRoom bytes of room, then the nodes' text, comma-separated
  int64_t count_ = 0;
  std::deque<std::string> buffers_;  // a deque: growing keeps the others in place
};

// Node indices by value: objects by identity, strings by content (AnyHash,
// AnyEqual), in one open-addressed table. A std::unordered_map missed cache
// two or three times a lookup once a graph had millions of nodes (its
// bucket, its node, then the key); here a lookup reads one slot, which holds
// the hash, and compares keys only when the hashes agree.
class NodeIndex {
 public:
  /*! \return The index stored for `value` (hash `h`), or nullptr. */
  int64_t* Find(const Any& value, uint64_t h) {
    if (slots_.empty()) return nullptr;
    for (size_t i = Home(h);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.index == kEmpty) return nullptr;
      if (s.hash == h && AnyEqual()(s.key, value)) return &s.index;
    }
  }
  /*! \brief Add `value` (absent; hash `h`) with `index`; keeps a reference to it. */
  void Insert(const Any& value, uint64_t h, int64_t index) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    Place(Slot{value, h, index});
    ++size_;
  }

 private:
  static constexpr int64_t kEmpty = INT64_MIN;
  struct Slot {
    Any key;
    uint64_t hash = 0;
    int64_t index = kEmpty;
  };
  // AnyHash is the pointer for objects and the value for ints: its low bits
  // repeat (aligned pointers), so the slot comes from the high bits of a
  // Fibonacci product.
  size_t Home(uint64_t h) const {
    return static_cast<size_t>((h * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void Place(Slot&& slot) {
    size_t i = Home(slot.hash);
    while (slots_[i].index != kEmpty) i = (i + 1) & mask_;
    slots_[i] = std::move(slot);
  }
  void Grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : 2 * slots_.size());
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    shift_ = 64;
    for (size_t n = slots_.size(); n > 1; n >>= 1) --shift_;
    for (Slot& s : old) {
      if (s.index != kEmpty) Place(std::move(s));
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;
};

template <typename Nodes>
class Serializer {
 public:
  auto Run(const Any& value, const Any& metadata) {
    int64_t root = NodeOf(value, 0);
    return nodes_.Finish(root, metadata);
  }

 private:
  using Node = typename Nodes::Node;

  int64_t NodeOf(const Any& value, int depth) {
    const uint64_t hash = AnyHash()(value);
    if (const int64_t* known = index_.Find(value, hash)) {
      if (*known < 0) {
        TVM_FFI_THROW(ValueError) << "ToJSONGraph: cycle detected: a `" << value.GetTypeKey()
                                  << "` contains itself";
      }
      return *known;
    }
    if (depth > kMaxDepth) {
      TVM_FFI_THROW(ValueError) << "ToJSONGraph: nesting deeper than " << kMaxDepth << " levels";
    }
    tvmffi::rt::EnterLevel("ToJSONGraph");
    // Only an object can reach itself: it is entered as in progress (-1).
    const bool is_object = value.type_index() >= TypeIndex::kTVMFFIStaticObjectBegin;
    if (is_object) index_.Insert(value, hash, -1);
    const int64_t index = MakeNode(value, depth + 1);
    if (is_object) {
      *index_.Find(value, hash) = index;
    } else {
      index_.Insert(value, hash, index);
    }
    return index;
  }

  // The type key of a value that is not a string (as Any::GetTypeKey).
  std::string_view TypeKey(const Any& value) {
    if (const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(value.type_index())) {
      return std::string_view(info->type_key.data, info->type_key.size);
    }
    scratch_key_ = value.GetTypeKey();
    return scratch_key_;
  }

  // Writes the node of `value` (its children first) and returns its index.
  int64_t MakeNode(const Any& value, int depth) {
    const TVMFFIAny* cell = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
    std::string_view bytes;
    int32_t klass;
    if (detail::StringLikeView(cell, &bytes, &klass)) {
      const bool str = klass == TypeIndex::kTVMFFIStr;
      Node node(&nodes_, depth, str ? "ffi.String" : "ffi.Bytes");
      if (str) {
        node.DataString(bytes);
      } else {
        node.DataString(BytesDataEncode(bytes));
      }
      return nodes_.Add(&node);
    }
    switch (cell->type_index) {
      case TypeIndex::kTVMFFINone: {
        Node node(&nodes_, depth, "None");
        return nodes_.Add(&node);
      }
      case TypeIndex::kTVMFFIBool:
      case TypeIndex::kTVMFFIInt:
      case TypeIndex::kTVMFFIFloat: {
        Node node(&nodes_, depth, TypeKey(value));
        node.DataJSON(value);
        return nodes_.Add(&node);
      }
      case TypeIndex::kTVMFFIDataType: {
        const String text = DTypeText(cell->v_dtype);
        Node node(&nodes_, depth, "DataType");
        node.DataString(std::string_view(text.data(), text.size()));
        return nodes_.Add(&node);
      }
      case TypeIndex::kTVMFFIDevice: {
        const int64_t data[2] = {static_cast<int64_t>(cell->v_device.device_type),
                                 static_cast<int64_t>(cell->v_device.device_id)};
        Node node(&nodes_, depth, "Device");
        node.DataInts(data, data + 2);
        return nodes_.Add(&node);
      }
      case TypeIndex::kTVMFFIShape: {
        const TVMFFIShapeCell* s = TVMFFIShapeGetCellPtr(cell->v_obj);
        Node node(&nodes_, depth, "ffi.Shape");
        node.DataInts(s->data, s->data + s->size);
        return nodes_.Add(&node);
      }
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList: {
        // A snapshot: a __data_to_json__ hook may change the list (walk_guard.h).
        const tvmffi::rt::StableItems items(reinterpret_cast<const SeqBaseObj*>(cell->v_obj));
        std::vector<int64_t> data;
        data.reserve(items.size());
        for (const Any& item : items) data.push_back(NodeOf(item, depth));
        Node node(&nodes_, depth, TypeKey(value));
        node.DataInts(data.data(), data.data() + data.size());
        return nodes_.Add(&node);
      }
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict: {
        const MapBaseObj* map = reinterpret_cast<const MapBaseObj*>(cell->v_obj);
        std::vector<int64_t> data;
        data.reserve(2 * map->size());
        for (const auto& [key, val] : tvmffi::rt::StableEntries(map)) {
          data.push_back(NodeOf(key, depth));
          data.push_back(NodeOf(val, depth));
        }
        Node node(&nodes_, depth, TypeKey(value));
        node.DataInts(data.data(), data.data() + data.size());
        return nodes_.Add(&node);
      }
      default:
        break;
    }
    if (cell->type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
      TVM_FFI_THROW(TypeError) << "ToJSONGraph: cannot serialize type `" << value.GetTypeKey()
                               << "`";
    }
    Node node(&nodes_, depth, TypeKey(value));
    ObjectData(value, depth, &node);
    return nodes_.Add(&node);
  }

  void ObjectData(const Any& value, int depth, Node* node) {
    if (const EnumObj* e = value.as<EnumObj>()) {
      if (detail::IsObjectInstance<IntEnumObj>(value.type_index())) {
        node->DataJSON(e->_int_index);
      } else {
        node->DataJSON(e->_str_index);
      }
      return;
    }
    AnyView to_json = TypeAttr("__data_to_json__", value.type_index());
    if (to_json != nullptr) {
      node->DataJSON(to_json.cast<Function>()(value));
      return;
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(value.type_index());
    if (info == nullptr || !HasCreator(info)) {
      TVM_FFI_THROW(TypeError) << "ToJSONGraph: type `" << value.GetTypeKey()
                               << "` cannot be serialized (no creator, no __ffi_new__ type "
                                  "attribute)";
    }
    char* base = reinterpret_cast<char*>(detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value)->v_obj);
    auto each_field = [&](auto&& put, auto&& put_string) {
      reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field_info) {
        const TVMFFIFieldInfo& f = *field_info;
        std::string_view name(f.name.data, f.name.size);
        if (f.getter == nullptr) {
          TVM_FFI_THROW(TypeError)
              << "ToJSONGraph: field `" << name << "` of `" << TypeKeyOf(info) << "` has no getter";
        }
        Any field;
        TVM_FFI_CHECK_SAFE_CALL(
            f.getter(base + f.offset, detail::AnyUnsafe::MutableTVMFFIAnyPtrFromAny(&field)));
        if (!InlineField(f.field_static_type_index)) {
          put(name, Any(NodeOf(field, depth)));
        } else if (f.field_static_type_index == TypeIndex::kTVMFFIDataType) {
          const String text = DTypeText(field.cast<DLDataType>());
          put_string(name, std::string_view(text.data(), text.size()));
        } else {
          put(name, field);
        }
      });
    };
    if (UniqueFieldNames(info)) {
      node->BeginFields();
      each_field(
          [node](std::string_view name, const Any& v) { node->Field(name, v); },
          [node](std::string_view name, std::string_view text) { node->FieldString(name, text); });
      node->EndFields();
      return;
    }
    // A field name given twice (a subclass's field named as its parent's):
    // the data object is a json::Object, where the later value wins.
    json::Object data;
    each_field([&data](std::string_view name, const Any& v) { data.Set(String(name), v); },
               [&data](std::string_view name, std::string_view text) {
                 data.Set(String(name), String(text));
               });
    node->DataJSON(data);
  }

  // Whether no two reflected fields of the type share a name (looked up once per type).
  bool UniqueFieldNames(const TVMFFITypeInfo* info) {
    auto it = unique_names_.find(info->type_index);
    if (it != unique_names_.end()) return it->second;
    std::vector<std::string_view> names;
    reflection::ForEachFieldInfo(info, [&names](const TVMFFIFieldInfo* f) {
      names.emplace_back(f->name.data, f->name.size);
    });
    std::sort(names.begin(), names.end());
    const bool unique = std::adjacent_find(names.begin(), names.end()) == names.end();
    unique_names_.emplace(info->type_index, unique);
    return unique;
  }

  Nodes nodes_;
  NodeIndex index_;  // -1 while in progress
  std::unordered_map<int32_t, bool> unique_names_;
  std::string scratch_key_;
};

}  // namespace

json::Value WriteGraph(const Any& value, const Any& metadata) {
  return Serializer<TreeNodes>().Run(value, metadata);
}

String WriteGraphText(const Any& value, const Any& metadata) {
  return Serializer<TextNodes>().Run(value, metadata);
}

}  // namespace json_graph
}  // namespace ffi
}  // namespace tvm
