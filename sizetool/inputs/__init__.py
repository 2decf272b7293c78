"""Input readers: the ELF (sections, segments, symbols), its DWARF source paths and the GNU ld map file.

Nothing here decides what a byte is; these modules turn files into plain records (or one SizeToolError naming the
file) for the report and operator stages.
"""
