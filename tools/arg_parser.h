/*
 * The argument language of `tvmffi call`: one command-line word becomes one
 * value (int, float, bool, None, string, or a CPU tensor literal such as
 * f32[[1,2],[3,4]]).
 *
 * Kept apart from the command so that a fuzzer can link it on its own. Bad
 * input is refused with a message; nothing here aborts or reads out of bounds.
 */
#ifndef TVMFFI_TOOLS_ARG_PARSER_H_
#define TVMFFI_TOOLS_ARG_PARSER_H_

#include <tvm/ffi/any.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tvmffi {
namespace cli {

/*! \brief Most dimensions a tensor literal may nest. */
constexpr size_t kMaxLiteralDims = 32;

/*!
 * \brief Parse the bracket part of a tensor literal ("[1,2]", "[[1,2],[3,4]]").
 * \param text The literal from its first '['.
 * \param shape Out: the extent of each dimension.
 * \param values Out: the element texts, row-major; exactly prod(shape) of them.
 * \param err Out: why the text was refused.
 * \return false when the text is not a rectangular nesting of lists (ragged
 *         rows, leaves at different depths, stray text, too deep).
 */
bool ParseTensorLiteral(const std::string& text, std::vector<int64_t>* shape,
                        std::vector<std::string>* values, std::string* err);

/*!
 * \brief Turn one command-line word into a value.
 * \param tok The word.
 * \param out Out: the value (tensors are freshly allocated CPU tensors).
 * \param err Out: why the word was refused.
 * \return false on bad input (unknown dtype, bad tensor literal, bad element).
 * \throws tvm::ffi::Error (MemoryError) only when allocation fails.
 */
bool ParseArg(const std::string& tok, tvm::ffi::Any* out, std::string* err);

}  // namespace cli
}  // namespace tvmffi

#endif  // TVMFFI_TOOLS_ARG_PARSER_H_
