"""python-for-android recipe for pydantic 2 (the stock recipe builds pydantic 1).

pydantic 2 is pure Python on top of pydantic-core, whose stock recipe compiles the
Rust part; this recipe only builds the pure-Python wheel from the release archive.
The version must match the pydantic-core version pinned in buildozer.spec.
"""

from typing import ClassVar

from pythonforandroid.recipe import PyProjectRecipe


class PydanticRecipe(PyProjectRecipe):
    version = "2.12.5"
    url = "https://github.com/pydantic/pydantic/archive/refs/tags/v{version}.tar.gz"
    depends: ClassVar[list[str]] = ["pydantic-core"]
    python_depends: ClassVar[list[str]] = [
        "typing-extensions",
        "annotated-types",
        "typing-inspection",
    ]
    site_packages_name = "pydantic"


recipe = PydanticRecipe()
