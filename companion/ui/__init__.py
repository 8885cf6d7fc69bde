"""The Kivy companion app: the wiring App, its theme, strings, widgets and screens."""
