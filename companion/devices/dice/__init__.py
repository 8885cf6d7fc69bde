"""Bluetooth smart dice (Pixels, GoDice): their protocols, a source per maker, the hub."""

from companion.devices.dice.hub import ANYONE, DiceHub
from companion.devices.dice.model import (
    DecodeError,
    DiceError,
    DieLostError,
    DieType,
    Motion,
    NoDieError,
    NotAD6Error,
    SettledRoll,
)
from companion.devices.dice.source import DiceSource

__all__ = [
    "ANYONE",
    "DecodeError",
    "DiceError",
    "DiceHub",
    "DiceSource",
    "DieLostError",
    "DieType",
    "Motion",
    "NoDieError",
    "NotAD6Error",
    "SettledRoll",
]
