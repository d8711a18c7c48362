// The layout checks of test_layout.c, compiled as C++: the header declares
// some types differently for C++ (typed enums, tagged structs).
#define TVMFFI_LAYOUT_NO_MAIN
#include "test_layout.c"
