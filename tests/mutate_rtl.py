#!/usr/bin/env python3
"""Write a mutated copy of an RTL file: replace one exact snippet.

    mutate_rtl.py SRC DST 'original text' 'mutated text'

Fails if the snippet is not found exactly once, so the mutant test can never
silently test an unmutated design.
"""
import sys

src, dst, old, new = sys.argv[1:5]
text = open(src).read()
n = text.count(old)
if n != 1:
    sys.exit(f"mutate_rtl.py: '{old}' occurs {n} times in {src}; expected exactly once")
open(dst, "w").write(text.replace(old, new))
print(f"mutant {dst}: '{old}' -> '{new}'")
