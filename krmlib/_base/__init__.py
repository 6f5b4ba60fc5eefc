"""The bottom floor: errors, paths, package-relative file paths and hashes that every
floor above uses, and the bounded memos of the YAML floor. Private: nothing here is imported
from outside krmlib.
"""
