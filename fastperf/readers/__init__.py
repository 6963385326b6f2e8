"""Readers: measurement tables from Arrow objects, table files and benchmark-tool result files."""
from __future__ import annotations


def read(source, **kwargs):  # placeholder until the readers land
    raise NotImplementedError
