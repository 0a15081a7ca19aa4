"""``python -m valuechain``."""

from valuechain.cli import main

main()
