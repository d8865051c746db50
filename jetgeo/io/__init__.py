"""System specification files, safe expression parsing and reports (layer ``io``).

>>> spec = load_spec('''
... [coordinates]
... q = ["x"]
... [parameters]
... k = "positive"
... [lagrangian]
... L = "xdot**2/2 - k*x**2/2"
... ''')
>>> spec.accelerations()
{xddot: -k*x}
"""

from ..errors import InitialDataError
from .parse import CONSTANTS, FUNCTIONS, Limits, parse_expression
from .spec import Spec, dump, expr_text, load_spec, loads_spec, to_toml
from .specs import catalogue, spec_path

__all__ = [
    "parse_expression",
    "FUNCTIONS",
    "CONSTANTS",
    "Limits",
    "Spec",
    "load_spec",
    "loads_spec",
    "to_toml",
    "dump",
    "expr_text",
    "InitialDataError",
    "catalogue",
    "spec_path",
]
