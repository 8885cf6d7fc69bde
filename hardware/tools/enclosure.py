"""Renders the parametric enclosures (hardware/enclosures/cases.py) to STL files.

`.venv/bin/python hardware/tools/enclosure.py --out build/enclosures` writes one binary
STL per printable part and build (`<build>/<part>.stl`) and prints each part's size;
name builds to render only those. STL files are build output: they are not kept in git.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from hwdata import HARDWARE_DIR, REPO_DIR, chosen_pinouts, load_pinouts, tool_parser

sys.path.insert(0, str(HARDWARE_DIR / "enclosures"))

import cases

DEFAULT_OUT = REPO_DIR / "build" / "enclosures"


@dataclass(frozen=True)
class Rendered:
    build: str
    part: str
    path: Path
    triangles: int
    size_mm: tuple[float, float, float]
    volume_cm3: float


class RenderError(ValueError):
    """A part did not come out as one closed solid."""


def write_stl(solid: cases.Manifold, path: Path, name: str) -> int:
    """Write `solid` as a binary STL; returns the number of triangles."""
    mesh = solid.to_mesh()
    verts = np.asarray(mesh.vert_properties, dtype=np.float64)[:, :3]
    tris = np.asarray(mesh.tri_verts, dtype=np.int64)
    a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
    normals = np.cross(b - a, c - a)
    lengths = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, lengths, out=np.zeros_like(normals), where=lengths > 0)
    records = np.zeros(
        len(tris),
        dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")]),
    )
    records["n"] = normals
    records["v"] = np.stack([a, b, c], axis=1)
    header = f"munchkin-companion {name}".encode("ascii", "replace")[:80].ljust(80, b" ")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.write(header)
        handle.write(struct.pack("<I", len(tris)))
        handle.write(records.tobytes())
    return len(tris)


def render(build: str, out_dir: Path) -> list[Rendered]:
    """Render every part of one build into `out_dir/<build>/`; RenderError on a bad solid."""
    pinout = load_pinouts()[build]
    results = []
    for part in cases.parts_for(pinout):
        if not cases.solid_ok(part.solid):
            raise RenderError(f"{build}/{part.name}: not a single closed solid")
        path = out_dir / build / f"{part.name}.stl"
        triangles = write_stl(part.solid, path, f"{build}/{part.name}")
        x0, y0, z0, x1, y1, z1 = part.solid.bounding_box()
        results.append(
            Rendered(
                build,
                part.name,
                path,
                triangles,
                (x1 - x0, y1 - y0, z1 - z0),
                part.solid.volume() / 1000,
            )
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = tool_parser(__doc__, builds=True)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args(argv)
    pinouts = chosen_pinouts("enclosure", args.builds)
    if pinouts is None:
        return 2
    try:
        for build in pinouts:
            for r in render(build, args.out):
                size = " × ".join(f"{v:.1f}" for v in r.size_mm)
                print(f"{r.path}  {size} mm  {r.volume_cm3:.1f} cm³  {r.triangles} triangles")
    except RenderError as exc:
        print(f"enclosure: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
