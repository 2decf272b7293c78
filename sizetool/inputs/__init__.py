"""Input readers: the ELF (sections, segments, symbols), its DWARF source paths, linker maps (GNU ld, armlink, IAR
ILINK), GCC .su files, and which bytes of a section each symbol covers (symbol_runs).

Nothing here decides what a byte is; these modules turn files into plain records (or one SizeToolError naming the
file) for the later stages.
"""
