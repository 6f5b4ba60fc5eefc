"""The process's edges: the ResourceList read from stdin and written to stdout (the
reader, the gate, the runner and its command line), files and package trees on disk,
programs, and the ``krmlib`` command. Private; the public names are exported from
:mod:`krmlib` and :mod:`krmlib.packages`.
"""
