/*
 * The argument language of `tvmffi call` (see arg_parser.h).
 */
#include "arg_parser.h"

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>

namespace tvmffi {
namespace cli {
namespace {

namespace ffi = tvm::ffi;

struct CPUAlloc {
  void AllocData(DLTensor* t) {
    size_t bytes = ffi::GetDataSize(*t);
    t->data = std::aligned_alloc(64, bytes == 0 ? 64 : (bytes + 63) / 64 * 64);
    if (t->data == nullptr) TVM_FFI_THROW(MemoryError) << "out of memory";
  }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

bool ParseDType(const std::string& s, DLDataType* out) {
  static const std::map<std::string, DLDataType> kTypes = {
      {"f16", {kDLFloat, 16, 1}}, {"f32", {kDLFloat, 32, 1}}, {"f64", {kDLFloat, 64, 1}},
      {"i8", {kDLInt, 8, 1}},     {"i16", {kDLInt, 16, 1}},   {"i32", {kDLInt, 32, 1}},
      {"i64", {kDLInt, 64, 1}},   {"u8", {kDLUInt, 8, 1}},    {"u16", {kDLUInt, 16, 1}},
      {"u32", {kDLUInt, 32, 1}},  {"u64", {kDLUInt, 64, 1}},  {"bool", {kDLBool, 8, 1}}};
  auto it = kTypes.find(s);
  if (it == kTypes.end()) return false;
  *out = it->second;
  return true;
}

// Parses nested lists into a shape and the flat element texts. A list is a
// leaf when it holds elements or nothing; every leaf must sit at the same
// depth and every list at one depth must have the same length, so that the
// element count is exactly the product of the shape.
class ListParser {
 public:
  ListParser(const std::string& s, std::vector<int64_t>* shape, std::vector<std::string>* values)
      : s_(s), shape_(shape), values_(values) {}

  bool Parse(std::string* err) {
    shape_->clear();
    values_->clear();
    if (!ParseList(0, err)) return false;
    Skip();
    if (pos_ != s_.size()) return Error(err, "unexpected text after the closing ']'");
    // Follows from the checks above; kept as the guard the tensor writes rely on.
    size_t count = 1;
    for (int64_t extent : *shape_) count *= static_cast<size_t>(extent);
    if (shape_->size() != leaf_depth_ + 1 || count != values_->size()) {
      return Error(err, "ragged nesting: the lists do not form a rectangular shape");
    }
    return true;
  }

 private:
  static bool Error(std::string* err, const char* what) {
    *err = what;
    return false;
  }
  bool At(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  void Skip() {
    while (At(' ')) ++pos_;
  }
  bool ParseList(size_t depth, std::string* err) {
    if (depth >= kMaxLiteralDims) return Error(err, "too many dimensions (at most 32)");
    Skip();
    if (!At('[')) return Error(err, "expected '['");
    ++pos_;
    Skip();
    bool nested = At('[');
    int64_t count = 0;
    if (At(']')) {
      ++pos_;
    } else {
      while (true) {
        Skip();
        if (nested) {
          if (!ParseList(depth + 1, err)) return false;
        } else {
          size_t b = pos_;
          while (pos_ < s_.size() && std::strchr(",] [", s_[pos_]) == nullptr) ++pos_;
          if (At('[')) return Error(err, "ragged nesting: a list among elements");
          if (pos_ == b) return Error(err, "empty element");
          values_->push_back(s_.substr(b, pos_ - b));
        }
        ++count;
        Skip();
        if (At(',')) {
          ++pos_;
          continue;
        }
        if (At(']')) {
          ++pos_;
          break;
        }
        return Error(err, "expected ',' or ']'");
      }
    }
    if (!nested) {
      // A leaf: all leaves at one depth.
      if (has_leaf_ && leaf_depth_ != depth) {
        return Error(err, "ragged nesting: lists nested to different depths");
      }
      has_leaf_ = true;
      leaf_depth_ = depth;
    } else if (!has_leaf_ || leaf_depth_ <= depth) {
      return Error(err, "ragged nesting: lists nested to different depths");
    }
    if (shape_->size() <= depth) shape_->resize(depth + 1, -1);
    if ((*shape_)[depth] == -1) {
      (*shape_)[depth] = count;
    } else if ((*shape_)[depth] != count) {
      return Error(err, "ragged nesting: rows of different lengths");
    }
    return true;
  }

  const std::string& s_;
  std::vector<int64_t>* shape_;
  std::vector<std::string>* values_;
  size_t pos_ = 0;
  bool has_leaf_ = false;
  size_t leaf_depth_ = 0;
};

// The name ParseDType knows a tensor dtype by, for messages.
std::string DTypeName(DLDataType t) {
  if (t.code == kDLBool) return "bool";
  const char* prefix = t.code == kDLFloat ? "f" : t.code == kDLUInt ? "u" : "i";
  return prefix + std::to_string(t.bits);
}

// An integer literal (optional sign, then digits after an optional 0x / 0
// base prefix as strtoll reads them) that does not fit `bits` bits is refused,
// never wrapped. Returns false with *err set when the text is not an integer
// in range.
bool ParseIntElement(const std::string& text, DLDataType t, uint64_t* out, std::string* err) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  if (t.code == kDLUInt) {
    // strtoull would read "-1" as the largest value: a sign is refused.
    const char* p = s;
    while (*p == ' ' || *p == '\t') ++p;
    if (*p == '-') {
      *err = "`" + text + "` is out of range for " + DTypeName(t) + " (it is negative)";
      return false;
    }
    unsigned long long v = std::strtoull(s, &end, 0);
    if (end == s || *end != '\0') {
      *err = "`" + text + "` is not an integer";
      return false;
    }
    const unsigned long long max = t.bits >= 64 ? ~0ull : (1ull << t.bits) - 1;
    if (errno == ERANGE || v > max) {
      *err = "`" + text + "` is out of range for " + DTypeName(t) + " (0 to " +
             std::to_string(max) + ")";
      return false;
    }
    *out = v;
    return true;
  }
  long long v = std::strtoll(s, &end, 0);
  if (end == s || *end != '\0') {
    *err = "`" + text + "` is not an integer";
    return false;
  }
  const int bits = t.code == kDLBool ? 1 : t.bits;
  const long long lo = t.code == kDLBool ? 0 : bits >= 64 ? INT64_MIN : -(1ll << (bits - 1));
  const long long hi = t.code == kDLBool ? 1 : bits >= 64 ? INT64_MAX : (1ll << (bits - 1)) - 1;
  if (errno == ERANGE || v < lo || v > hi) {
    *err = "`" + text + "` is out of range for " + DTypeName(t) + " (" + std::to_string(lo) +
           " to " + std::to_string(hi) + ")";
    return false;
  }
  *out = static_cast<uint64_t>(v);
  return true;
}

bool StoreElement(const std::string& text, DLDataType t, void* base, int64_t i, std::string* err) {
  if (t.code == kDLFloat) {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') {
      *err = "`" + text + "` is not a number";
      return false;
    }
    if (t.bits == 32) {
      // A finite value past float's range would become infinity (or worse).
      if (std::isfinite(v) && std::fabs(v) > static_cast<double>(FLT_MAX)) {
        *err = "`" + text + "` is out of range for f32";
        return false;
      }
      static_cast<float*>(base)[i] = static_cast<float>(v);
    } else if (t.bits == 64) {
      static_cast<double*>(base)[i] = v;
    } else {
      *err = "f16 tensors cannot be written inline";
      return false;
    }
    return true;
  }
  uint64_t v;
  if (t.code == kDLBool && (text == "true" || text == "false")) {
    v = text == "true";
  } else if (!ParseIntElement(text, t, &v, err)) {
    return false;
  }
  switch (t.bits) {
    case 8:
      static_cast<uint8_t*>(base)[i] = static_cast<uint8_t>(v);
      break;
    case 16:
      static_cast<uint16_t*>(base)[i] = static_cast<uint16_t>(v);
      break;
    case 32:
      static_cast<uint32_t*>(base)[i] = static_cast<uint32_t>(v);
      break;
    default:
      static_cast<uint64_t*>(base)[i] = v;
      break;
  }
  return true;
}

// An integer word: optional sign, then decimal digits. Returns false when the
// word is not one (*out_of_range stays false), or when it is one that does
// not fit int64 (*out_of_range set: refused, not read as a float).
bool IsInt(const std::string& s, int64_t* out, bool* out_of_range) {
  *out_of_range = false;
  if (s.empty()) return false;
  size_t digits = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (digits == s.size()) return false;
  for (size_t k = digits; k < s.size(); ++k) {
    if (s[k] < '0' || s[k] > '9') return false;
  }
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0') return false;
  if (errno == ERANGE) {
    *out_of_range = true;
    return false;
  }
  *out = v;
  return true;
}

bool IsFloat(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

}  // namespace

bool ParseTensorLiteral(const std::string& text, std::vector<int64_t>* shape,
                        std::vector<std::string>* values, std::string* err) {
  return ListParser(text, shape, values).Parse(err);
}

bool ParseArg(const std::string& tok, ffi::Any* out, std::string* err) {
  int64_t i;
  double f;
  bool out_of_range = false;
  if (tok.compare(0, 4, "str:") == 0) {
    *out = ffi::String(tok.substr(4));
  } else if (tok == "none" || tok == "None") {
    *out = nullptr;
  } else if (tok == "true" || tok == "false") {
    *out = tok == "true";
  } else if (IsInt(tok, &i, &out_of_range)) {
    *out = i;
  } else if (out_of_range) {
    *err = "integer `" + tok + "` is out of range for int64 (write it as a float, e.g. `" + tok +
           ".0`, to pass a float)";
    return false;
  } else if (IsFloat(tok, &f)) {
    *out = f;
  } else if (size_t br = tok.find('['); br != std::string::npos && br > 0) {
    DLDataType dtype;
    if (!ParseDType(tok.substr(0, br), &dtype)) {
      *err = "unknown tensor dtype `" + tok.substr(0, br) +
             "` (use f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 or bool)";
      return false;
    }
    std::vector<int64_t> shape;
    std::vector<std::string> values;
    std::string perr;
    if (!ParseTensorLiteral(tok.substr(br), &shape, &values, &perr)) {
      *err = "bad tensor `" + tok + "`: " + perr;
      return false;
    }
    ffi::Tensor t =
        ffi::Tensor::FromNDAlloc(CPUAlloc(), ffi::ShapeView(shape), dtype, DLDevice{kDLCPU, 0});
    for (size_t k = 0; k < values.size(); ++k) {
      if (!StoreElement(values[k], dtype, t.data_ptr(), static_cast<int64_t>(k), err)) return false;
    }
    *out = t;
  } else {
    *out = ffi::String(tok);
  }
  return true;
}

}  // namespace cli
}  // namespace tvmffi
