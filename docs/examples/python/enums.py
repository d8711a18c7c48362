from typing import ClassVar

from tvmffi import serialization
from tvmffi.dataclasses import Enum, IntEnum, StrEnum, auto, entry


class Activation(Enum, type_key="example.Activation"):
    arity: int = 0  # a field of every entry
    relu: ClassVar["Activation"] = entry(arity=1)
    add = entry(arity=2)
    noop = auto()  # indices from its position and its name


class Level(IntEnum, type_key="example.Level"):
    LOW = 1  # value: the integer index (an int64)
    HIGH = 10


class Op(StrEnum, type_key="example.Op"):
    ADD = "+"  # value and name: the string index
    PLUS = "+"  # a second alias of the same entry


print([e._str_index for e in Activation], Activation.add.arity)  # ['relu', 'add', 'noop'] 2
print(len(Level), Level.HIGH in Level, 10 in Level)  # 2 True True
print(Level(10) == Level.HIGH, Level("LOW").same_as(Level.get(1)))  # True True
print(Op["PLUS"].same_as(Op["+"]), Op.ADD == "+")  # True True

cost = Level.def_attr("cost", default=0)
cost[Level.HIGH] = 5
print(cost[Level.LOW], cost[Level.HIGH])  # 0 5

# The runtime finds the entries too: JSON gives back the same singleton.
text = serialization.to_json_graph_str(Activation.add)
print(serialization.from_json_graph_str(text).same_as(Activation.add))  # True
