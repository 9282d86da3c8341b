# PATIENCE_PURE=1 must take effect before anything imports the rules core, and
# every import of it passes through here first.
from .ops.corebuild import install_pure_finder

install_pure_finder()
