/*
 * The runtime's JSON parser and writer (json.cc) for other runtime files.
 * Runtime code calls these, never the inline json::Parse / json::Stringify of
 * <tvm/ffi/extra/json.h>: those carry upstream's mangled names with hidden
 * visibility, and a hidden copy in the runtime's objects would hide the
 * exported definition of a library that links them with its own (the
 * upstream link stand-in of tests/upstream_cxx.cmake does).
 */
#ifndef TVMFFI_RUNTIME_JSON_TEXT_H_
#define TVMFFI_RUNTIME_JSON_TEXT_H_

#include <tvm/ffi/any.h>

#include <string>
#include <string_view>

namespace tvmffi {
namespace rt {

/*! \brief Parse JSON text (see ffi.json.Parse). \throws Error ValueError on bad text. */
tvm::ffi::Any ParseJSONText(std::string_view text);

/*! \brief Write a value as JSON text (see ffi.json.Stringify); indent >= 0. */
std::string StringifyJSON(const tvm::ffi::Any& value, int indent);

}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_JSON_TEXT_H_
