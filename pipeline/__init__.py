"""trajpipe: business agent logs -> verified multi-turn tool-use training data.

The library never imports Prefect; ``flows/`` wraps these stages in Prefect tasks.
"""
__version__ = "0.1.0"
