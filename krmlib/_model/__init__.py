"""One object and its storage, collections of objects, Kptfile conditions, names and
results. Private; the public names are exported from :mod:`krmlib`.
"""
