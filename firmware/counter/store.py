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
            pass  # already there (MicroPython has no exist_ok)

    def _path(self, name):
        return self.root + "/" + name

    def read(self, name):
        # A power cut between removing the old file and renaming the new one leaves
        # only the finished ".tmp" copy; it is the newest whole version, so use it.
        for path in (self._path(name), self._path(name + ".tmp")):
            try:
                with open(path, "rb") as f:
                    return f.read()
            except OSError:
                continue
        return None

    def write(self, name, data):
        tmp = self._path(name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        # Not every flash file system renames over an existing file, so remove it first;
        # read() covers the moment in between.
        try:
            os.remove(self._path(name))
        except OSError:
            pass  # nothing to replace yet
        os.rename(tmp, self._path(name))
        self.writes += 1

    def remove(self, name):
        try:
            os.remove(self._path(name))
        except OSError:
            pass  # already gone


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
