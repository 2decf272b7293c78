"""The one exception type of the sizetool package.

Every problem a user can cause (a missing or corrupt ELF, a bad map file, a budget file with a typo) is raised as
SizeToolError carrying a one-line, user-facing message that names the file and the problem; the CLI prints it on
stderr and exits with status 2.
"""


class SizeToolError(Exception):
    """A user-facing error: str(error) is the one line printed on stderr."""
