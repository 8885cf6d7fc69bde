"""Loads a board's pin map (hardware/pinouts/*.json, deployed as board.json) into attributes."""

import json


class Section:
    """One JSON object: keys become attributes (and stay reachable as items)."""

    def __init__(self, data):
        self._data = data
        for key in data:
            setattr(self, key, _wrap(data[key]))

    def __getitem__(self, key):
        return getattr(self, key)

    def __contains__(self, key):
        return key in self._data

    def get(self, key, default=None):
        if key in self._data:
            return getattr(self, key)
        return default

    def keys(self):
        return list(self._data.keys())

    def items(self):
        return [(key, getattr(self, key)) for key in self._data]

    def to_dict(self):
        return self._data


def _wrap(value):
    if isinstance(value, dict):
        return Section(value)
    return value


class Board(Section):
    """A whole pin map, plus what the firmware derives from it."""

    def __init__(self, data):
        Section.__init__(self, data)
        for key in ("strip", "display", "status_led", "battery"):
            if key not in data:
                setattr(self, key, None)
        if "buttons" not in data:
            self.buttons = Section({})
        if self.role not in ("board", "tracker"):
            raise ValueError("board.json: role must be 'board' or 'tracker'")
        if self.role == "board" and self.strip is None:
            raise ValueError("board.json: a level board needs a 'strip'")
        if self.role == "tracker" and self.display is None:
            raise ValueError("board.json: a tracker needs a 'display'")

    @property
    def is_board(self):
        return self.role == "board"

    @property
    def spaces(self):
        """Level spaces on the track (board), or LEDs on the bar (tracker with a bar)."""
        if self.strip is not None:
            return self.strip.spaces
        if self.display.kind == "ledbar":
            return self.display.count
        return 0

    @property
    def positions(self):
        """Physical player positions: LEDs per level space on a board, 1 on a tracker."""
        if self.strip is not None:
            return self.strip.leds_per_space
        return 1

    @property
    def led_count(self):
        """Addressable LEDs the firmware drives, in frame order (bar first, status LED last)."""
        count = 0
        if self.strip is not None:
            count += self.strip.count
        if self.display is not None and self.display.kind == "ledbar":
            count += self.display.count
        if self.status_led is not None:
            count += self.status_led.count
        return count

    @property
    def digits(self):
        if self.display is not None and self.display.kind == "tm1637":
            return self.display.digits
        return 0

    def led_chains(self):
        """(section, first LED in the frame) for each addressable chain, in frame order."""
        chains = []
        first = 0
        for section in (self.strip, self.display, self.status_led):
            if section is None or section.kind == "tm1637":
                continue
            chains.append((section, first))
            first += section.count
        return chains


def load(path):
    """The Board described by the JSON file at ``path``."""
    with open(path) as f:
        return Board(json.load(f))


def from_dict(data):
    """The Board described by an already-parsed pin map."""
    return Board(data)
