"""The code graph: what a firmware's code and data refer to, shared by every analysis that follows references.

Owns: decoding instructions for the addresses they refer to (disassembly: Arm/Thumb, RISC-V, x86-64; xtensa_scan for
Xtensa), code input sections from DWARF when there is no map (code_sections), and the reference graph over symbols
with reachability and pointer-word detection (reference_graph; ARM unwind tables in arm_unwind). The report's no-map placement, the operator cost,
the stack walk and the arena finder read it. Imports only sizetool/inputs.
"""
