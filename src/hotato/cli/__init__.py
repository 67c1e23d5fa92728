"""The command line. main.py wires groups; each group lives in its own module, loaded on use."""
