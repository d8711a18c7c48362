"""tvmffi.cpp: compile C++ (and CUDA) sources at run time and load them as a Module.

Upstream's names and signatures: :func:`load_inline`, :func:`build_inline`,
:func:`build` and :func:`load`; :func:`to_cpp_dtype` names a dtype's C++ type;
``tvmffi.cpp.nvrtc.nvrtc_compile`` compiles CUDA source to a CUBIN with NVRTC.
"""

from . import nvrtc
from .dtype import to_cpp_dtype
from .extension import build, build_inline, load, load_inline

__all__ = ["build", "build_inline", "load", "load_inline", "nvrtc", "to_cpp_dtype"]
