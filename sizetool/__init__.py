"""size-report: flash and RAM attribution for firmware ELF files, with per-operator cost for TFLM builds."""

__version__ = "0.1.0"
