/*
 * The argument language of `tvmffi call` (see arg_parser.h).
 */
#include "arg_parser.h"

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>

#include <cerrno>
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

bool StoreElement(const std::string& text, DLDataType t, void* base, int64_t i, std::string* err) {
  char* end = nullptr;
  errno = 0;
  if (t.code == kDLFloat) {
    double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') {
      *err = "`" + text + "` is not a number";
      return false;
    }
    if (t.bits == 32) {
      static_cast<float*>(base)[i] = static_cast<float>(v);
    } else if (t.bits == 64) {
      static_cast<double*>(base)[i] = v;
    } else {
      *err = "f16 tensors cannot be written inline";
      return false;
    }
    return true;
  }
  long long v;
  if (t.code == kDLBool && (text == "true" || text == "false")) {
    v = text == "true";
  } else {
    v = std::strtoll(text.c_str(), &end, 0);
    if (end == text.c_str() || *end != '\0' || errno == ERANGE) {
      *err = "`" + text + "` is not an integer";
      return false;
    }
  }
  switch (t.bits) {
    case 8:
      static_cast<int8_t*>(base)[i] = static_cast<int8_t>(v);
      break;
    case 16:
      static_cast<int16_t*>(base)[i] = static_cast<int16_t>(v);
      break;
    case 32:
      static_cast<int32_t*>(base)[i] = static_cast<int32_t>(v);
      break;
    default:
      static_cast<int64_t*>(base)[i] = static_cast<int64_t>(v);
      break;
  }
  return true;
}

bool IsInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return false;
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
  if (tok.compare(0, 4, "str:") == 0) {
    *out = ffi::String(tok.substr(4));
  } else if (tok == "none" || tok == "None") {
    *out = nullptr;
  } else if (tok == "true" || tok == "false") {
    *out = tok == "true";
  } else if (IsInt(tok, &i)) {
    *out = i;
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
    ffi::Tensor t = ffi::Tensor::FromNDAlloc(CPUAlloc(), ffi::ShapeView(shape), dtype,
                                             DLDevice{kDLCPU, 0});
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
