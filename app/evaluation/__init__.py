"""Retrieval evaluation: metrics over ranked recall cards, and the baselines they are compared with.

Used by `scripts/eval_locomo.py` and `scripts/eval_longmemeval.py`; pure Python, no engines.
"""
