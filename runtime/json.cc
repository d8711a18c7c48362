/*
 * JSON text to and from ffi values: the globals behind <tvm/ffi/extra/json.h>
 * (names and signatures as upstream's):
 *
 *   ffi.json.Parse(text: str) -> Any                  ValueError on bad text
 *   ffi.json.Stringify(value: Any, indent: Optional[int]) -> str
 *
 * Error messages name the place the way Python's json module does ("Expecting
 * value: line 1 column 1 (char 0)"; columns and chars count bytes). Nesting is
 * bounded (kMaxDepth) in both directions: the parser and writer recurse, and so
 * does the release of a nested value.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "builtin_def.h"
#include "json_text.h"

namespace tvm {
namespace ffi {
namespace {

constexpr int kMaxDepth = 1000;

// The parser reads the text and hands each value to a sink, which builds what
// the caller wants: ffi values (AnySink, for ffi.json.Parse) or a flat tape
// (TapeSink, for the graph reader). Both see the same text in the same order,
// so bad text gets the same error whichever sink is used.
template <typename Sink>
class Parser {
 public:
  using Value = typename Sink::Value;

  Parser(std::string_view text, Sink* sink)
      : begin_(text.data()), cur_(text.data()), end_(text.data() + text.size()), sink_(sink) {}

  Value Run() {
    Value value = ParseValue(0);
    SkipSpaces();
    if (cur_ != end_) Fail(cur_, "Extra data");
    return value;
  }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsNumberChar(char c) {
    return IsDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  }

  void SkipSpaces() {
    while (cur_ != end_ && IsSpace(*cur_)) ++cur_;
  }

  // Raw newlines occur only between tokens (inside a string they are an
  // error), so counting them up to `pos` gives the line.
  [[noreturn]] void Fail(const char* pos, const char* what) const {
    int64_t line = 1;
    const char* line_begin = begin_;
    for (const char* p = begin_; p < pos; ++p) {
      if (*p == '\n') {
        ++line;
        line_begin = p + 1;
      }
    }
    TVM_FFI_THROW(ValueError) << what << ": line " << line << " column "
                              << static_cast<int64_t>(pos - line_begin) + 1 << " (char "
                              << static_cast<int64_t>(pos - begin_) << ")";
    TVM_FFI_UNREACHABLE();
  }

  bool Match(std::string_view word) {
    if (static_cast<size_t>(end_ - cur_) < word.size() ||
        std::string_view(cur_, word.size()) != word) {
      return false;
    }
    cur_ += word.size();
    return true;
  }

  Value ParseValue(int depth) {
    SkipSpaces();
    const char* start = cur_;
    if (cur_ == end_) Fail(cur_, "Expecting value");
    switch (*cur_) {
      case '{':
        return ParseObject(depth + 1);
      case '[':
        return ParseArray(depth + 1);
      case '"':
        return ParseStringValue();
      case 't':
        if (Match("true")) return sink_->Bool(true);
        break;
      case 'f':
        if (Match("false")) return sink_->Bool(false);
        break;
      case 'n':
        if (Match("null")) return sink_->Null();
        break;
      case 'N':
        if (Match("NaN")) return sink_->Float(std::numeric_limits<double>::quiet_NaN());
        break;
      case 'I':
        if (Match("Infinity")) return sink_->Float(std::numeric_limits<double>::infinity());
        break;
      case '-':
        if (Match("-Infinity")) return sink_->Float(-std::numeric_limits<double>::infinity());
        return ParseNumber();
      default:
        return ParseNumber();
    }
    Fail(start, "Expecting value");
  }

  // The run of number characters is taken whole and must be one JSON number
  // (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?); otherwise "Expecting
  // value" at its start, as "123.456.789" or "123e" get.
  Value ParseNumber() {
    const char* start = cur_;
    while (cur_ != end_ && IsNumberChar(*cur_)) ++cur_;
    const char* p = start;
    bool integral = true;
    auto digits = [&p, this]() {
      const char* from = p;
      while (p != cur_ && IsDigit(*p)) ++p;
      return p != from;
    };
    if (p != cur_ && *p == '-') ++p;
    bool ok = p != cur_ && (*p == '0' ? (++p, true) : digits());
    if (ok && p != cur_ && *p == '.') {
      ++p;
      integral = false;
      ok = digits();
    }
    if (ok && p != cur_ && (*p == 'e' || *p == 'E')) {
      ++p;
      integral = false;
      if (p != cur_ && (*p == '+' || *p == '-')) ++p;
      ok = digits();
    }
    if (!ok || p != cur_) Fail(start, "Expecting value");
    if (integral) {
      int64_t v = 0;
      if (std::from_chars(start, cur_, v).ec == std::errc()) return sink_->Int(v);
      // Out of int64's range: read it as a float, as upstream does.
    }
    double d = 0;
    if (std::from_chars(start, cur_, d).ec != std::errc()) Fail(start, "Number out of range");
    return sink_->Float(d);
  }

  // Four hex digits after `*cur_`, or -1.
  int32_t Hex4() {
    if (end_ - cur_ < 4) return -1;
    int32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = cur_[i];
      int d = IsDigit(c)               ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    cur_ += 4;
    return v;
  }

  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }

  // A string literal: one without escapes (the common case) goes to the sink
  // straight from the text, with no intermediate std::string.
  Value ParseStringValue() {
    const char* p = cur_ + 1;
    while (p != end_ && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
    if (p != end_ && *p == '"') {
      std::string_view text(cur_ + 1, static_cast<size_t>(p - cur_ - 1));
      cur_ = p + 1;
      return sink_->Str(text);
    }
    return sink_->Str(ParseString());
  }

  // A string literal starting at the opening quote. The places errors name
  // follow upstream (and its tests): the byte after a backslash, the 'u' of a
  // bad first \u escape, the byte after the second "\u" of a pair.
  std::string ParseString() {
    const char* start = cur_++;
    std::string out;
    while (true) {
      const char* run = cur_;
      while (cur_ != end_ && *cur_ != '"' && *cur_ != '\\' &&
             static_cast<unsigned char>(*cur_) >= 0x20) {
        ++cur_;
      }
      out.append(run, cur_);
      if (cur_ == end_) Fail(start, "Unterminated string starting at");
      if (*cur_ == '"') {
        ++cur_;
        return out;
      }
      if (*cur_ != '\\') Fail(cur_, "Invalid control character at");
      if (++cur_ == end_) Fail(start, "Unterminated string starting at");
      const char esc = *cur_;
      switch (esc) {
        case '"':
        case '\\':
        case '/':
          out.push_back(esc);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          const char* u_pos = cur_++;
          int32_t first = Hex4();
          if (first < 0) Fail(u_pos, "Invalid \\uXXXX escape");
          uint32_t cp = static_cast<uint32_t>(first);
          if (first >= 0xd800 && first <= 0xdfff) {
            if (first >= 0xdc00 || !Match("\\u")) {
              Fail(u_pos, "Invalid surrogate pair of \\uXXXX escapes");
            }
            const char* second_pos = cur_;
            int32_t second = Hex4();
            if (second < 0) Fail(second_pos, "Invalid \\uXXXX escape");
            if (second < 0xdc00 || second > 0xdfff) {
              Fail(second_pos, "Invalid surrogate pair of \\uXXXX escapes");
            }
            cp = 0x10000 + ((static_cast<uint32_t>(first) - 0xd800) << 10) +
                 (static_cast<uint32_t>(second) - 0xdc00);
          }
          AppendUtf8(&out, cp);
          continue;  // cur_ is past the escape already
        }
        default:
          Fail(cur_, "Invalid \\escape");
      }
      ++cur_;
    }
  }

  void CheckDepth(int depth) const {
    if (depth > kMaxDepth) Fail(cur_, "Nesting deeper than 1000 levels");
  }

  Value ParseArray(int depth) {
    CheckDepth(depth);
    ++cur_;
    SkipSpaces();
    auto mark = sink_->BeginArray();
    if (cur_ != end_ && *cur_ == ']') {
      ++cur_;
      return sink_->EndArray(mark);
    }
    while (true) {
      sink_->Item(&mark, ParseValue(depth));
      SkipSpaces();
      if (cur_ != end_ && *cur_ == ',') {
        ++cur_;
      } else if (cur_ != end_ && *cur_ == ']') {
        ++cur_;
        return sink_->EndArray(mark);
      } else {
        Fail(cur_, "Expecting ',' delimiter");
      }
    }
  }

  Value ParseObject(int depth) {
    CheckDepth(depth);
    ++cur_;
    SkipSpaces();
    auto mark = sink_->BeginObject();
    if (cur_ != end_ && *cur_ == '}') {
      ++cur_;
      return sink_->EndObject(mark);
    }
    while (true) {
      if (cur_ == end_ || *cur_ != '"') {
        Fail(cur_, "Expecting property name enclosed in double quotes");
      }
      Value key = ParseStringValue();
      SkipSpaces();
      if (cur_ == end_ || *cur_ != ':') Fail(cur_, "Expecting ':' delimiter");
      ++cur_;
      Value value = ParseValue(depth);
      sink_->Pair(&mark, std::move(key), std::move(value));
      SkipSpaces();
      if (cur_ != end_ && *cur_ == ',') {
        ++cur_;
        SkipSpaces();
      } else if (cur_ != end_ && *cur_ == '}') {
        ++cur_;
        return sink_->EndObject(mark);
      } else {
        Fail(cur_, "Expecting ',' delimiter");
      }
    }
  }

  const char* begin_;
  const char* cur_;
  const char* end_;
  Sink* sink_;
};

// Builds ffi values. Arrays and objects collect their items on one stack
// shared by every nesting level (items_ / pairs_): a container's items are the
// top of the stack from where it started, popped when it is built. No
// allocation per container once the stacks have grown.
class AnySink {
 public:
  using Value = Any;

  Any Null() { return Any(nullptr); }
  Any Bool(bool v) { return Any(v); }
  Any Int(int64_t v) { return Any(v); }
  Any Float(double v) { return Any(v); }
  Any Str(std::string_view text) { return String(text.data(), text.size()); }
  Any Str(std::string&& text) { return String(std::move(text)); }

  size_t BeginArray() { return items_.size(); }
  void Item(size_t*, Any&& value) { items_.push_back(std::move(value)); }
  Any EndArray(size_t base) {
    if (items_.size() == base) return Array<Any>();
    auto first = items_.begin() + static_cast<std::ptrdiff_t>(base);
    Any out = Array<Any>(std::make_move_iterator(first), std::make_move_iterator(items_.end()));
    items_.resize(base);
    return out;
  }

  size_t BeginObject() { return pairs_.size(); }
  void Pair(size_t*, Any&& key, Any&& value) {
    pairs_.emplace_back(std::move(key), std::move(value));
  }
  Any EndObject(size_t base) {
    if (pairs_.size() == base) return Map<Any, Any>();
    Any out = Map<Any, Any>(pairs_.begin() + static_cast<std::ptrdiff_t>(base), pairs_.end());
    pairs_.resize(base);
    return out;
  }

 private:
  std::vector<Any> items_;
  std::vector<std::pair<Any, Any>> pairs_;
};

using tvmffi::rt::JSONTape;

// Writes the tape (json_text.h): a container's entry goes first and gets its
// count and end when the container closes.
class TapeSink {
 public:
  struct Value {};

  explicit TapeSink(JSONTape* tape) : tape_(tape) {}

  Value Null() { return Push(JSONTape::kNull, 0); }
  Value Bool(bool v) { return Push(v ? JSONTape::kTrue : JSONTape::kFalse, 0); }
  Value Int(int64_t v) {
    JSONTape::Entry e;
    e.i = v;
    return Append(JSONTape::kInt, e);
  }
  Value Float(double v) {
    JSONTape::Entry e;
    e.d = v;
    return Append(JSONTape::kFloat, e);
  }
  Value Str(std::string_view text) {
    JSONTape::Entry e;
    if (text.size() <= JSONTape::kMaxCount) {
      e.kind = JSONTape::kStr;
      e.n = static_cast<uint32_t>(text.size());
      e.s = text.data();
    } else {
      tape_->long_strings.push_back(text);
      e.kind = JSONTape::kLongStr;
      e.s = reinterpret_cast<const char*>(&tape_->long_strings.back());
    }
    tape_->entries.push_back(e);
    return {};
  }
  Value Str(std::string&& text) {
    tape_->unescaped.push_back(std::move(text));
    const std::string& kept = tape_->unescaped.back();
    return Str(std::string_view(kept.data(), kept.size()));
  }

  size_t BeginArray() { return Open(JSONTape::kArray); }
  void Item(size_t* at, Value) { Count(*at); }
  Value EndArray(size_t at) { return Close(at); }
  size_t BeginObject() { return Open(JSONTape::kObject); }
  void Pair(size_t* at, Value, Value) { Count(*at); }
  Value EndObject(size_t at) { return Close(at); }

 private:
  Value Append(uint32_t kind, JSONTape::Entry e) {
    e.kind = kind;
    tape_->entries.push_back(e);
    return {};
  }
  Value Push(uint32_t kind, uint64_t end) {
    JSONTape::Entry e;
    e.end = end;
    return Append(kind, e);
  }
  size_t Open(uint32_t kind) {
    size_t at = tape_->entries.size();
    Push(kind, 0);
    return at;
  }
  // A count past kMaxCount stays there; readers then count the children.
  void Count(size_t at) {
    uint32_t& n = tape_->entries[at].n;
    if (n < JSONTape::kMaxCount) ++n;
  }
  Value Close(size_t at) {
    tape_->entries[at].end = tape_->entries.size();
    return {};
  }

  JSONTape* tape_;
};

class Writer {
 public:
  explicit Writer(int indent) : indent_(indent) {}

  std::string Run(const Any& value) {
    Write(value, 0);
    return std::move(out_);
  }
  void Append(std::string* out, const Any& value, int depth) {
    out_.swap(*out);
    try {
      Write(value, depth);
    } catch (...) {
      out_.swap(*out);
      throw;
    }
    out_.swap(*out);
  }

 private:
  void Write(const Any& value, int depth) {
    const TVMFFIAny* cell = detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
    std::string_view text;
    int32_t klass;
    switch (cell->type_index) {
      case TypeIndex::kTVMFFINone:
        out_ += "null";
        return;
      case TypeIndex::kTVMFFIBool:
        out_ += cell->v_int64 != 0 ? "true" : "false";
        return;
      case TypeIndex::kTVMFFIInt:
        WriteInt(cell->v_int64);
        return;
      case TypeIndex::kTVMFFIFloat:
        WriteFloat(cell->v_float64);
        return;
      case TypeIndex::kTVMFFIArray:
      case TypeIndex::kTVMFFIList:
        WriteSeq(cell, depth + 1);
        return;
      case TypeIndex::kTVMFFIMap:
      case TypeIndex::kTVMFFIDict:
        WriteMap(cell, depth + 1);
        return;
      default:
        if (detail::StringLikeView(cell, &text, &klass) && klass == TypeIndex::kTVMFFIStr) {
          detail::AppendJSONString(&out_, text);
          return;
        }
        TVM_FFI_THROW(ValueError) << "json::Stringify: unsupported type: `" << value.GetTypeKey()
                                  << "` (JSON holds None, bool, int, float, str, Array, List, "
                                     "Map and Dict)";
    }
  }

  void WriteInt(int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof(buf), v);
    out_.append(buf, r.ptr);
  }

  // Integral values below 2^53 print with ".0"; others with the fewest
  // significant digits (15..17) that read back to the same double, so that a
  // float always reads back as a float.
  void WriteFloat(double v) {
    if (std::isnan(v)) {
      out_ += "NaN";
      return;
    }
    if (std::isinf(v)) {
      out_ += v < 0 ? "-Infinity" : "Infinity";
      return;
    }
    char buf[40];
    char* end;
    if (std::fabs(v) < 9007199254740992.0 && std::trunc(v) == v) {
      end = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, 0).ptr;
      *end++ = '.';
      *end++ = '0';
    } else {
      for (int precision = 15;; ++precision) {
        end = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::general, precision).ptr;
        double back = 0;
        std::from_chars(buf, end, back);
        if (back == v || precision == 17) break;
      }
      if (std::string_view(buf, end - buf).find_first_of(".e") == std::string_view::npos) {
        *end++ = '.';
        *end++ = '0';
      }
    }
    out_.append(buf, end);
  }

  void Enter(const TVMFFIAny* cell, int depth) {
    if (depth > kMaxDepth) {
      TVM_FFI_THROW(ValueError) << "json::Stringify: nesting deeper than " << kMaxDepth
                                << " levels";
    }
    // Only mutable containers can reach themselves.
    if (cell->type_index == TypeIndex::kTVMFFIList || cell->type_index == TypeIndex::kTVMFFIDict) {
      for (const TVMFFIObject* open : open_) {
        if (open == cell->v_obj) {
          TVM_FFI_THROW(ValueError)
              << "json::Stringify: cycle detected: a "
              << (cell->type_index == TypeIndex::kTVMFFIList ? "List" : "Dict")
              << " contains itself";
        }
      }
    }
    open_.push_back(cell->v_obj);
    if (indent_ > 0) level_ += indent_;
  }

  void Leave(bool empty) {
    open_.pop_back();
    if (indent_ > 0) {
      level_ -= indent_;
      if (!empty) NewLine();
    }
  }

  void NewLine() {
    if (indent_ > 0) {
      out_.push_back('\n');
      out_.append(static_cast<size_t>(level_), ' ');
    }
  }

  void WriteSeq(const TVMFFIAny* cell, int depth) {
    Enter(cell, depth);
    const TVMFFISeqCell* seq = TVMFFISeqGetCellPtr(cell->v_obj);
    const Any* items = static_cast<const Any*>(seq->data);
    out_.push_back('[');
    for (int64_t i = 0; i < seq->size; ++i) {
      if (i != 0) out_.push_back(',');
      NewLine();
      Write(items[i], depth);
    }
    Leave(seq->size == 0);
    out_.push_back(']');
  }

  void WriteMap(const TVMFFIAny* cell, int depth) {
    Enter(cell, depth);
    const MapBaseObj* map = reinterpret_cast<const MapBaseObj*>(cell->v_obj);
    out_.push_back('{');
    bool first = true;
    for (auto it = map->begin(); it != map->end(); ++it) {
      if (!first) out_.push_back(',');
      first = false;
      NewLine();
      std::string_view key;
      int32_t klass;
      if (!detail::StringLikeView(it.key_cell(), &key, &klass) || klass != TypeIndex::kTVMFFIStr) {
        TVM_FFI_THROW(ValueError) << "json::Stringify: object keys must be strings, got `"
                                  << it.key().GetTypeKey() << "`";
      }
      detail::AppendJSONString(&out_, key);
      out_ += indent_ > 0 ? ": " : ":";
      Write(it.value(), depth);
    }
    Leave(first);
    out_.push_back('}');
  }

  int indent_;
  int level_ = 0;
  std::string out_;
  std::vector<const TVMFFIObject*> open_;
};

[[maybe_unused]] const bool kJsonGlobalsRegistered = [] {
  tvmffi::rt::BuiltinDef()
      .def("ffi.json.Parse",
           [](String text) -> Any {
             return tvmffi::rt::ParseJSONText(std::string_view(text.data(), text.size()));
           })
      .def("ffi.json.Stringify", [](Any value, Optional<int> indent) -> String {
        int spaces = indent.value_or(0);
        if (spaces < 0) {
          TVM_FFI_THROW(ValueError) << "json::Stringify: `indent` must be >= 0, got " << spaces;
        }
        return String(tvmffi::rt::StringifyJSON(value, spaces));
      });
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm

namespace tvmffi {
namespace rt {
tvm::ffi::Any ParseJSONText(std::string_view text) {
  tvm::ffi::AnySink sink;
  return tvm::ffi::Parser<tvm::ffi::AnySink>(text, &sink).Run();
}

void ParseJSONTape(std::string_view text, JSONTape* tape) {
  // About one entry per 8 bytes of text in typical documents; the vector grows
  // past that when needed.
  tape->entries.reserve(text.size() / 8 + 4);
  tvm::ffi::TapeSink sink(tape);
  tvm::ffi::Parser<tvm::ffi::TapeSink>(text, &sink).Run();
}

tvm::ffi::Any JSONTape::ToAny(size_t at) const {
  using tvm::ffi::Any;
  const Entry& e = entries[at];
  switch (e.kind) {
    case kNull:
      return Any(nullptr);
    case kTrue:
      return Any(true);
    case kFalse:
      return Any(false);
    case kInt:
      return Any(e.i);
    case kFloat:
      return Any(e.d);
    case kStr:
    case kLongStr:
      return tvm::ffi::String(Text(at));
    case kArray: {
      if (e.end == at + 1) return tvm::ffi::Array<Any>();
      std::vector<Any> items;
      items.reserve(Count(at));
      for (size_t i = at + 1; i < e.end; i = Next(i)) items.push_back(ToAny(i));
      return tvm::ffi::Array<Any>(std::make_move_iterator(items.begin()),
                                  std::make_move_iterator(items.end()));
    }
    default: {  // kObject: the map ParseJSONText makes (a repeated key keeps its last value)
      if (e.end == at + 1) return tvm::ffi::Map<Any, Any>();
      std::vector<std::pair<Any, Any>> pairs;
      pairs.reserve(Count(at));
      for (size_t i = at + 1; i < e.end;) {
        Any key = ToAny(i);
        i = Next(i);
        pairs.emplace_back(std::move(key), ToAny(i));
        i = Next(i);
      }
      return tvm::ffi::Map<Any, Any>(pairs.begin(), pairs.end());
    }
  }
}

size_t JSONTape::Count(size_t at) const {
  const Entry& e = entries[at];
  if (e.n < kMaxCount) return e.n;
  size_t n = 0;
  for (size_t i = at + 1; i < e.end; i = Next(i)) ++n;
  return e.kind == kObject ? n / 2 : n;
}
std::string StringifyJSON(const tvm::ffi::Any& value, int indent) {
  return tvm::ffi::Writer(indent).Run(value);
}
void AppendJSONText(std::string* out, const tvm::ffi::Any& value, int depth) {
  tvm::ffi::Writer(0).Append(out, value, depth);
}
}  // namespace rt
}  // namespace tvmffi
