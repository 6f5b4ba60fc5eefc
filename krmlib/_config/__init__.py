"""The config layer: a function's config from its functionConfig, in one place.

- :mod:`.records`: :class:`Record`, the frozen, declarative, validated base (no pydantic).
- :mod:`.config`: :class:`FunctionConfig` (the typed and ConfigMap forms), :func:`parse_config`
  and the one reading of failures as the messages users see (field paths, "did you mean").
- :mod:`.as_model`: the pydantic bridge of :meth:`KubeObject.as_model` only; a config parse never
  enters it.

A parse enters the layer once (:func:`parse_config`) and leaves it with the config or one
ConfigError. The public names are exported from :mod:`krmlib`.
"""
