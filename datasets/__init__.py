"""Repository tooling for training data (synthetic renders of finished mahjong hands).

Not an installable package: run it from the repository root, e.g. ``python -m datasets.synth``.
See ``datasets/README.md``.
"""
