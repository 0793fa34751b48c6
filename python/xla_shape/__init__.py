"""XLA shapes and layouts, with XLA's semantics.

>>> import xla_shape
>>> s = xla_shape.parse("f32[2,3]{0,1}")
>>> s
Shape('f32[2,3]{0,1}')
>>> s.dimensions, s.element_type, str(s.layout)
([2, 3], 'f32', '{0,1}')
>>> xla_shape.memory_order(s)
[0, 3, 1, 4, 2, 5]
"""

from ._hlo import DumpLike, hlo_memory, memory_timeline, peak_memory
from ._inputs import ShapeLike
from ._native import (
    HloError,
    InvalidShapeError,
    Layout,
    ParseError,
    Shape,
    ShardingError,
    UnsupportedError,
    XlaShapeError,
)
from ._peak_tables import PeakTable
from ._relayout import relayout
from ._reports import (
    AllocationTotals,
    ComputationTotal,
    DeviceShard,
    Explanation,
    Frame,
    InstructionBuffer,
    LiveBuffer,
    LoweredEntry,
    LoweredShardings,
    MemoryReport,
    PeakAt,
    PeakDiff,
    PeakReport,
    Pictured,
    Piece,
    Record,
    ReshardPlan,
    ShardReport,
    View,
)
from ._shapes import (
    array_size,
    as_shape,
    broadcast,
    byte_size,
    draw,
    explain,
    linear_index,
    memory_order,
    multi_index,
    parse,
    validate,
    view,
)
from ._sharding import HloSharding, as_sharding, reshard, shard
from ._shardy import lowered_shardings, sharding_to_shardy
from ._svg import Svg

__version__ = "0.1.0"

__all__ = [
    "AllocationTotals",
    "ComputationTotal",
    "DeviceShard",
    "DumpLike",
    "Explanation",
    "Frame",
    "HloError",
    "HloSharding",
    "InstructionBuffer",
    "InvalidShapeError",
    "Layout",
    "LiveBuffer",
    "LoweredEntry",
    "LoweredShardings",
    "MemoryReport",
    "ParseError",
    "PeakAt",
    "PeakDiff",
    "PeakReport",
    "PeakTable",
    "Pictured",
    "Piece",
    "Record",
    "ReshardPlan",
    "Shape",
    "ShapeLike",
    "ShardReport",
    "ShardingError",
    "Svg",
    "UnsupportedError",
    "View",
    "XlaShapeError",
    "__version__",
    "array_size",
    "as_shape",
    "as_sharding",
    "broadcast",
    "byte_size",
    "draw",
    "explain",
    "hlo_memory",
    "linear_index",
    "lowered_shardings",
    "memory_order",
    "memory_timeline",
    "multi_index",
    "parse",
    "peak_memory",
    "relayout",
    "reshard",
    "shard",
    "sharding_to_shardy",
    "validate",
    "view",
]


def __dir__() -> "list[str]":
    return sorted(__all__)
