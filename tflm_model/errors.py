"""The one exception type of the tflm_model package.

A missing, truncated or corrupt model, or one TFLM cannot plan, is raised as ModelError with a one-line, user-facing
message naming the file and the problem; each command prints it on stderr and exits with status 2.
"""


class ModelError(Exception):
    """A user-facing error: str(error) is the one line printed on stderr."""
