"""The package version (core: every layer may import it)."""

__version__ = "0.1.0"
