"""Advice: when it does not fit, the changes that would make it fit, ranked, each with the bytes it saves.

Owns: the change record (`changes.py`: what to change, the bytes it saves or None where nothing here can size it,
flash or RAM, how sure the figure is, the one command or edit that makes it, what it costs the user) and the
combination of changes that reaches a budget, counting what changes share once; the changes for a firmware ELF
(`firmware_advice.py`: registrations no model uses and type-reduced ones from the firmware's own operator graph, the
other kernel set from the shipped profiles of the same distribution and CPU, the models' names, metadata and unused
buffers, the linked arena against the planner's, build flags where a profile of the same distribution with other
flags exists) and for a target profile before any firmware exists (`profile_advice.py`, gen-resolver --fit).
"""
