"""tvmffi.cpp: compile C++ (and CUDA) sources at run time and load them as a Module.

Upstream's names and signatures: :func:`load_inline`, :func:`build_inline`,
:func:`build` and :func:`load`.
"""

from .extension import build, build_inline, load, load_inline

__all__ = ["build", "build_inline", "load", "load_inline"]
