"""gen-resolver: minimal TFLM MicroMutableOpResolver headers generated from .tflite models."""

__version__ = "0.1.0"
