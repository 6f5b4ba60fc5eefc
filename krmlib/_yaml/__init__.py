"""The YAML engines and the text-level tools over them (scan, splice, the whole-input
check), knowing no object. Private.
"""
