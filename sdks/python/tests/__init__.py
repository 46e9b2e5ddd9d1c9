"""Tests of the Hearth Python SDK. They import the package from ../src, so no install is needed.

Run from sdks/python: /usr/bin/python3 -m unittest discover -s tests -v
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for path in (os.path.join(os.path.dirname(HERE), "src"), HERE):
    if path not in sys.path:
        sys.path.insert(0, path)
