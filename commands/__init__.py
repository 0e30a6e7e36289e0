"""The command line's subcommands, one module each (its arguments and its ``cmd_*`` function),
registered in :data:`cli.COMMANDS`; :mod:`commands.common` holds what they share. This package is
the top layer: it imports :mod:`web`, :mod:`vision` and :mod:`scoring`, and nothing there imports it
(see ``tests/test_layers.py``)."""
