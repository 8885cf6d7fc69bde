"""Shared plumbing every layer may use: task sets, listener registries, file helpers, the
error root, and where the app's files are. It imports nothing else of the companion."""
