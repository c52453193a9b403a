"""The built-in variants. Importing this package registers each of them."""

from importlib import import_module

BUILTIN = ("classic", "duo", "pocket_pizza", "flip", "dos", "all_wild")

for _name in BUILTIN:
    try:
        import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as exc:  # a variant still being written
        if exc.name != f"{__name__}.{_name}":
            raise
