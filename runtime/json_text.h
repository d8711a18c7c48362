/*
 * The runtime's JSON parser and writer (json.cc) for other runtime files.
 * Runtime code calls these, never the inline json::Parse / json::Stringify of
 * <tvm/ffi/extra/json.h>: those carry upstream's mangled names with hidden
 * visibility, and a hidden copy in the runtime's objects would hide the
 * exported definition of a library that links them with its own (the
 * upstream link stand-in of tests/upstream_cxx/upstream_cxx.cmake does).
 */
#ifndef TVMFFI_RUNTIME_JSON_TEXT_H_
#define TVMFFI_RUNTIME_JSON_TEXT_H_

#include <tvm/ffi/any.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace tvmffi {
namespace rt {

/*! \brief Parse JSON text (see ffi.json.Parse). \throws Error ValueError on bad text. */
tvm::ffi::Any ParseJSONText(std::string_view text);

/*!
 * \brief JSON text as a flat list of entries, one per value in document
 * order: what a reader that looks at most of a document once (the object
 * graph reader) walks without making an ffi value per JSON value.
 *
 * A container's entry comes before its children (an object's are key, value,
 * key, value, ...) and holds the index just past its last descendant, so a
 * reader skips a whole value in one step. Strings point into the parsed text
 * (which must outlive the tape) or, when they had escapes, into `unescaped`.
 */
struct JSONTape {
  enum Kind : uint32_t { kNull, kTrue, kFalse, kInt, kFloat, kStr, kLongStr, kArray, kObject };
  // Counts and string lengths up to this fit an entry; a longer string is a
  // kLongStr (its view kept in long_strings), a larger count is recounted.
  static constexpr uint32_t kMaxCount = 0xffffffffu;
  struct Entry {
    uint32_t kind = kNull;
    uint32_t n = 0;  // kStr: length; kArray: items; kObject: pairs (saturating)
    union {
      int64_t i;
      double d;
      const char* s;     // kStr: the bytes; kLongStr: a std::string_view in long_strings
      uint64_t end = 0;  // kArray, kObject: the index past the last descendant
    };
  };
  std::vector<Entry> entries;
  std::deque<std::string> unescaped;
  std::deque<std::string_view> long_strings;

  /*! \brief The index of the value after the one at `at` (its next sibling). */
  size_t Next(size_t at) const {
    const Entry& e = entries[at];
    return e.kind >= kArray ? static_cast<size_t>(e.end) : at + 1;
  }
  /*! \brief The text of the string at `at` (kStr or kLongStr). */
  std::string_view Text(size_t at) const {
    const Entry& e = entries[at];
    if (e.kind == kStr) return std::string_view(e.s, e.n);
    return *reinterpret_cast<const std::string_view*>(e.s);
  }
  /*! \brief Items of an array, pairs of an object. */
  size_t Count(size_t at) const;
  /*! \brief The value at `at` as ffi values: what ParseJSONText makes of it. */
  tvm::ffi::Any ToAny(size_t at) const;
};

/*!
 * \brief Parse JSON text into `tape` (empty before): the same text is accepted,
 * and bad text raises the same error, as ParseJSONText.
 */
void ParseJSONTape(std::string_view text, JSONTape* tape);

/*! \brief Write a value as JSON text (see ffi.json.Stringify); indent >= 0. */
std::string StringifyJSON(const tvm::ffi::Any& value, int indent);

/*!
 * \brief Append a value as compact JSON text (indent 0) to *out, as if it
 * were written at nesting `depth` of a larger value (the depth limit counts
 * from there). Throws as StringifyJSON; *out then holds a partial value.
 */
void AppendJSONText(std::string* out, const tvm::ffi::Any& value, int depth);

}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_JSON_TEXT_H_
