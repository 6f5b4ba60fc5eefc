"""The bottom floor: errors, paths, package-relative file paths and hashes that every
floor above uses. Private: nothing here is imported from outside krmlib.
"""
