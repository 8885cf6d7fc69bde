"""Android entry point: python-for-android starts `main.py` in the app folder (buildozer.spec)."""

from companion.cli import main

raise SystemExit(main(["app"]))
