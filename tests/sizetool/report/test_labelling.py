"""Labelling every byte once: aliases once, overlaps clipped, gaps as explicit catch-alls, map objects for gaps,
reservations named after their section, fill between sections."""

from sizetool.inputs.elf_reader import SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE, ElfImage, Section, Segment, Symbol
from sizetool.inputs.map_file import FILL, InputSection
from sizetool.report.labelling import NO_SYMBOL, RESERVED, label_bytes, section_entries
from sizetool.report.placement import place

# A flash image: .text in place at 0x1000, .data stored at 0x1100 and copied to 0x2000, .bss after it, a heap that
# only the linker script names.
TEXT = Section(1, ".text", "SHT_PROGBITS", SHF_ALLOC | SHF_EXECINSTR, 0x1000, 0x1000, 0x100, 0x100)
DATA = Section(2, ".data", "SHT_PROGBITS", SHF_ALLOC | SHF_WRITE, 0x2000, 0x1100, 0x10, 0x200)
BSS = Section(3, ".bss", "SHT_NOBITS", SHF_ALLOC | SHF_WRITE, 0x2010, 0x2010, 0x20, 0x210)
HEAP = Section(4, ".heap", "SHT_NOBITS", SHF_ALLOC | SHF_WRITE, 0x2040, 0x2040, 0x40, 0x210)
DEBUG = Section(5, ".debug_info", "SHT_PROGBITS", 0, 0, 0, 0x500, 0x300)
SEGMENTS = [
    Segment("PT_LOAD", 0x1000, 0x1000, 0x100, 0x100, 5),
    Segment("PT_LOAD", 0x2000, 0x1100, 0x10, 0x30, 6),
    Segment("PT_LOAD", 0x2040, 0x2040, 0, 0x40, 6),
]


def image(symbols):
    return ElfImage("synthetic.elf", "arm", 32, True, 0x1000, 0, [TEXT, DATA, BSS, HEAP, DEBUG], SEGMENTS, symbols)


def label(elf, *args, **options):
    return label_bytes(elf, place(elf), *args, **options)


def func(name, address, size, binding="global"):
    return Symbol(name, address, size, "func", binding, TEXT.index)


def by_path(_symbol):
    return ("src", "a.c")


def test_entries_add_up_to_each_memory_and_gaps_are_named_per_section():
    symbols = [func("f", 0x1000, 0x40), func("g", 0x1080, 0x20), Symbol("counter", 0x2010, 4, "object", "global", BSS.index)]
    entries = label(image(symbols), by_path)
    rom = [e for e in entries if e.memory == "rom"]
    ram = [e for e in entries if e.memory == "ram"]
    assert sum(e.size for e in rom) == TEXT.size + DATA.size
    assert sum(e.size for e in ram) == DATA.size + BSS.size + HEAP.size
    gaps = {(e.section, e.symbol): e.size for e in entries if e.path == (NO_SYMBOL,) and e.memory == "rom"}
    assert gaps == {(".text", "(no symbol) .text"): 0x100 - 0x40 - 0x20, (".data", "(no symbol) .data"): 0x10}


def test_bytes_of_a_section_without_contents_that_nothing_names_are_a_reservation_named_after_it():
    entries = label(image([Symbol("counter", 0x2010, 4, "object", "global", BSS.index)]), by_path)
    reserved = {(e.symbol, e.size) for e in entries if e.path == (RESERVED,)}
    assert reserved == {(".heap", 0x40), (".bss", 0x20 - 4)}


def test_without_a_map_a_small_gap_up_to_an_aligned_object_is_fill_and_anything_else_a_reservation():
    def obj(name, address, size):
        return Symbol(name, address, size, "object", "global", BSS.index)

    # .bss 0x2010-0x2030: a byte, 3 bytes up to a 4-aligned word (alignment), 12 bytes up to 0x2024 (not 16-aligned:
    # no object needs that gap), a word, and 8 bytes to the section's end at 0x2030 (16-aligned: the script's ALIGN)
    symbols = [obj("flag", 0x2010, 1), obj("word", 0x2014, 4), obj("other", 0x2024, 4)]
    ram = {(e.path, e.symbol): (e.size, e.pieces) for e in label(image(symbols), by_path)
           if e.memory == "ram" and e.section == ".bss"}
    assert ram[((NO_SYMBOL,), "(fill) .bss")] == (3 + 8, ((0x2011, 3), (0x2028, 8)))
    assert ram[((RESERVED,), ".bss")] == (12, ())


def test_a_map_fill_that_is_a_sections_only_content_is_the_reservation_and_elsewhere_alignment():
    pieces = [InputSection(FILL, 0x2040, 0x40, "", ".heap"), InputSection(FILL, 0x2010, 0x8, "", ".bss"),
              InputSection(".bss.counter", 0x2018, 0x18, "obj/app/main.o", ".bss")]
    entries = label(image([]), by_path, input_sections=pieces, object_path_of=lambda obj: ("app", "main.cc"))
    ram = {(e.path, e.symbol): e.size for e in entries if e.memory == "ram" and e.section in (".bss", ".heap")}
    assert ram == {((RESERVED,), ".heap"): 0x40, ((NO_SYMBOL,), "(fill) .bss"): 0x8,
                   (("app", "main.cc"), ".bss.counter"): 0x18}


def test_aliases_count_once_and_are_listed():
    symbols = [func("Default_Handler", 0x1000, 8, "global"), func("SysTick_Handler", 0x1000, 8, "weak"),
               func("HardFault_Handler", 0x1000, 8, "weak")]
    entries = [e for e in label(image(symbols), by_path) if e.memory == "rom" and e.path != (NO_SYMBOL,)]
    assert [(e.symbol, e.size, e.aliases) for e in entries] == [
        ("Default_Handler", 8, ("HardFault_Handler", "SysTick_Handler"))
    ]


def test_overlapping_symbols_count_only_the_bytes_past_the_overlap():
    symbols = [func("outer", 0x1000, 0x20), func("inner", 0x1010, 0x20)]
    entries = {e.symbol: e.size for e in label(image(symbols), by_path) if e.memory == "rom"}
    assert entries["outer"] == 0x20 and entries["inner"] == 0x10
    assert sum(entries.values()) == TEXT.size + DATA.size


def test_symbols_are_clipped_to_their_section():
    entries = {e.symbol: e.size for e in label(image([func("tail", 0x10F0, 0x40)]), by_path) if e.memory == "rom"}
    assert entries["tail"] == 0x10


def test_with_the_map_a_symbol_ends_where_its_input_section_ends():
    # newlib-nano's strcmp starts 8 bytes into its .text but is sized from the section's start: its st_size runs over
    # the fill into strlen's section, whose bytes are strlen's
    pieces = [InputSection(".text", 0x1000, 0x2C, "libc.a(strcmp.o)"), InputSection(FILL, 0x102C, 0x4, ""),
              InputSection(".text", 0x1030, 0x10, "libc.a(strlen.o)")]
    symbols = [func("strcmp", 0x1008, 0x2C), func("strlen", 0x1030, 0x10)]
    without = {e.symbol: e.size for e in label(image(symbols), by_path) if e.memory == "rom"}
    assert without["strcmp"] == 0x2C and without["strlen"] == 0x0C
    rom = [e for e in label(image(symbols), by_path, input_sections=pieces, object_path_of=lambda obj: ("lib", obj))
           if e.memory == "rom"]
    entries = {e.symbol: e.size for e in rom}
    assert entries["strcmp"] == 0x24 and entries["strlen"] == 0x10 and entries["(fill) .text"] == 0x4
    assert sum(e.size for e in rom) == TEXT.size + DATA.size


def test_map_input_sections_name_the_object_of_symbol_less_bytes():
    pieces = [InputSection(".rodata.str1.1", 0x1040, 0x30, "obj/app/main.o"), InputSection(FILL, 0x1070, 0x10, "")]
    entries = label(image([func("f", 0x1000, 0x40)]), by_path, input_sections=pieces,
                          object_path_of=lambda obj: ("app", "main.cc"))
    rom = {(e.path, e.symbol): e.size for e in entries if e.memory == "rom" and e.section == ".text"}
    assert rom == {
        (("src", "a.c"), "f"): 0x40,
        (("app", "main.cc"), "(no symbol) .rodata.str1.1"): 0x30,
        ((NO_SYMBOL,), "(fill) .text"): 0x10,
        ((NO_SYMBOL,), "(no symbol) .text"): 0x100 - 0x80,
    }


def test_mangled_names_on_request():
    entries = label(image([func("_ZN6tflite16Register_SOFTMAXEv", 0x1000, 4)]), by_path, mangled_names=True)
    assert any(e.symbol == "_ZN6tflite16Register_SOFTMAXEv" for e in entries)
    entries = label(image([func("_ZN6tflite16Register_SOFTMAXEv", 0x1000, 4)]), by_path)
    assert any(e.symbol == "tflite::Register_SOFTMAX()" and e.mangled == "_ZN6tflite16Register_SOFTMAXEv" for e in entries)


def test_stripped_fallback_is_one_entry_per_section_and_memory():
    elf = image([])
    entries = section_entries(elf, place(elf))
    assert sorted((e.memory, e.section, e.size) for e in entries) == [
        ("ram", ".bss", 0x20), ("ram", ".data", 0x10), ("ram", ".heap", 0x40), ("rom", ".data", 0x10),
        ("rom", ".text", 0x100)
    ]


def test_alignment_between_sections_of_one_segment_is_fill_of_that_memory():
    padded = Section(1, ".text", "SHT_PROGBITS", SHF_ALLOC | SHF_EXECINSTR, 0x1000, 0x1000, 0xF0, 0x100)
    rodata = Section(6, ".rodata", "SHT_PROGBITS", SHF_ALLOC, 0x10F8, 0x10F8, 0x8, 0x1F8)
    elf = ElfImage("synthetic.elf", "arm", 32, True, 0x1000, 0, [padded, rodata, DATA, BSS, HEAP], SEGMENTS, [])
    fills = [(e.memory, e.symbol, e.address, e.size) for e in label(elf, by_path) if e.symbol.startswith("(fill)")]
    assert fills == [("rom", "(fill) ROM", 0x10F0, 8)]


def test_a_free_gap_is_labelled_free_and_alignment_stays_fill():
    from sizetool.report.labelling import FREE, fill_entries
    from sizetool.report.placement import Fill, Placement

    placement = Placement([], fills=[Fill("ram", "RAM", 0x2004, 4), Fill("ram", "RAM", 0x3000, 0x1000, free=True),
                                     Fill("rom", "FLASH", 0x10F0, 8)])
    entries = {(e.memory, e.path, e.symbol): (e.address, e.size) for e in fill_entries(placement)}
    assert entries == {("ram", (NO_SYMBOL,), "(fill) RAM"): (0x2004, 4), ("ram", (FREE,), "(free) RAM"): (0x3000, 0x1000),
                       ("rom", (NO_SYMBOL,), "(fill) FLASH"): (0x10F0, 8)}
