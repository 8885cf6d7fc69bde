"""Small files in flash (claim token, last snapshot), written whole and renamed into place."""

import os


class FileStore:
    """Files under ``root`` on the board's flash (or any directory under CPython)."""

    def __init__(self, root="/data"):
        self.root = root
        self.writes = 0
        try:
            os.mkdir(root)
        except OSError:
            pass

    def _path(self, name):
        return self.root + "/" + name

    def read(self, name):
        try:
            with open(self._path(name), "rb") as f:
                return f.read()
        except OSError:
            return None

    def write(self, name, data):
        tmp = self._path(name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        try:
            os.remove(self._path(name))
        except OSError:
            pass
        os.rename(tmp, self._path(name))
        self.writes += 1

    def remove(self, name):
        try:
            os.remove(self._path(name))
        except OSError:
            pass


class MemoryStore:
    """The same interface in RAM: for virtual counters and tests."""

    def __init__(self, files=None):
        self.files = {} if files is None else files
        self.writes = 0

    def read(self, name):
        return self.files.get(name)

    def write(self, name, data):
        self.files[name] = bytes(data)
        self.writes += 1

    def remove(self, name):
        self.files.pop(name, None)
