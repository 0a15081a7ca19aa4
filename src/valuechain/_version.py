"""The package version, in one place (read by hatch and by the store's metadata)."""

__version__ = "0.1.0"
