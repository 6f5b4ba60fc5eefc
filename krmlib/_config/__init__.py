"""The config layer: a function's config from its functionConfig, in one place.

- :mod:`.records`: declaring records and configs: :class:`Record`, :class:`FunctionConfig`,
  :func:`Field`, the validators' decorators, and each class read once, on first use (its fields
  and their shapes).
- :mod:`.parse`: everything a parse runs: :func:`parse_config` (the typed and ConfigMap forms),
  the one walker that checks a value against its shape, and the one reading of failures as the
  messages users see (field paths, "did you mean"). It never imports :mod:`.records` at run time.
- :mod:`.as_model`: the pydantic bridge of :meth:`KubeObject.as_model` only; a config parse
  never enters it.

A parse enters the layer once (:func:`parse_config`) and stays in :mod:`.parse` until it returns
the config or raises one ConfigError (a class's first use also reads it in :mod:`.records`).
The public names are exported from :mod:`krmlib`.
"""
