"""The built-in variants. Importing this package registers each of them.

Every built-in is imported by name: a missing or broken module is an ``ImportError``
when the engine first loads its variants, never a variant silently left out. Adding a
variant is one module in this package and one name in the import below (see
``docs/ADDING-A-VARIANT.md``).
"""

from . import all_wild, classic, dos, duo, flip, pocket_pizza

#: The built-in variant modules, in the order they register.
BUILTIN = (classic, duo, pocket_pizza, flip, dos, all_wild)
