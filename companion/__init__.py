"""Munchkin Companion: an unofficial table companion for the Munchkin card game."""

__version__ = "0.1.0"
