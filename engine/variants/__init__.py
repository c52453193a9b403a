"""The built-in variants: ``BUILTIN`` is the one list of them.

``engine.registry`` builds one instance of each class listed here, indexed by its ``id``,
when the engine first looks a variant up; a missing or broken module is an
``ImportError`` then, never a variant silently left out. A variant module does not
import the registry. Adding a variant is one module in this package and its class in
``BUILTIN`` (see ``docs/ADDING-A-VARIANT.md``).
"""

from .all_wild import AllWild
from .classic import Classic
from .dos import Dos
from .duo import Duo
from .flip import Flip
from .pocket_pizza import PocketPizza

#: Every built-in variant class (the API lists the variants sorted by id, not in this order).
BUILTIN = (Classic, Duo, PocketPizza, Flip, Dos, AllWild)
