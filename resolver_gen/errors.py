"""The one exception type of the resolver_gen package.

Bad input (a missing, truncated or corrupt model, a bad option value) is raised as ResolverGenError with a one-line,
user-facing message naming the file and the problem; the CLI prints it on stderr and exits with status 2.
"""


class ResolverGenError(Exception):
    """A user-facing error: str(error) is the one line printed on stderr."""
