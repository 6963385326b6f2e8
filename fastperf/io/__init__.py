"""Data/IO layer, files side: benchmark-tool files and Arrow sources in, one Arrow table out."""
from fastperf.io.read import detect_format, load_table, read

__all__ = ["read", "load_table", "detect_format"]
