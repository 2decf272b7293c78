"""Facts about TensorFlow Lite for Microcontrollers that both tools need, as data with small lookups over it.

- registry.py: the TFLite builtin ops and TFLM's named custom ops, and the MicroMutableOpResolver method of each;
- type_rules.py: which tensor types each kernel accepts, and TFLM's type-reduced registrations;
- registrations.py: how a model op is registered (the Register_<OP>() function, its typed variants, the Add<Op>()
  method and the builtin-data parser that go with it).

gen-resolver (resolver_gen) and size-report (sizetool) import these; nothing here imports either tool. Each module
names the TFLM revision its facts were read from; TFLM_REVISION is the one they were last checked against as a whole
(tests/tflm_facts compare them with a TFLM checkout beside the repo when there is one).
"""

TFLM_REVISION = "tflite-micro 90b983c (August 2026)"
