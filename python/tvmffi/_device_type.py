"""DLDeviceType: DLPack's device type codes as an IntEnum (``tvmffi.DLDeviceType.kDLCUDA``).

The values are those of ``DLDeviceType`` in dlpack.h; a ``Device``'s
``dlpack_device_type()`` compares equal to them.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["DLDeviceType"]


class DLDeviceType(IntEnum):
    """DLPack device type codes (dlpack.h)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18
