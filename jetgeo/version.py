"""The version of jetgeo, in a module of the lowest layer: a module of any layer may read it without
importing the package root (which imports the layers above and would point the import upwards)."""

__version__ = "0.1.0"
