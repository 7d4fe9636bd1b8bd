"""rfverify: statistical conformance testing for random-feature implementations."""
__version__ = "0.1.0"
