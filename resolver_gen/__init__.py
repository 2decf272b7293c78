"""gen-resolver: the command that writes minimal TFLM MicroMutableOpResolver headers from .tflite models.

Owns the command line (cli), the header, lite-source and JSON output (render, templates/) and the arena's header
comment and table (render_arena). What a model uses, what TFLM refuses and the arena it needs come from the tflm_model
library, which size-report reads models through too.
"""

__version__ = "0.1.0"
