"""Profile: a target profile from an all-ops firmware, for `gen-resolver --fit` to answer without the ELF.

Owns: the build facts an ELF states (build_facts) and the export (profile_export): the operator graph reduced to what
a set of registrations changes, static RAM, embedded model bytes, and each registration's worst stack path from
Invoke(); and the calibrated answer (calibrated_fit): the flash of models on the user's own firmware when it lacks
ops they need, the missing ops taken from the nearest profile and scaled on that firmware. Reads the operator graph,
the stack walk and the arena finder; the format itself is tflm_facts'.
"""
