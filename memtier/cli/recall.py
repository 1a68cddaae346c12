"""Commands registered by this module: see its functions."""

from __future__ import annotations
