"""reference_graph.py: nodes that partition the image, and the edges a TFLM firmware's registrations rely on."""

import pytest

from sizetool.inputs.elf_reader import read_elf
from sizetool.code_graph.reference_graph import build_reference_graph
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def graphs():
    built = {}
    for name in ("cortex-m4", "cortex-m4-relocs", "riscv32", "host-x86_64"):
        image = read_elf(FIXTURES / "firmware" / "out" / name / "firmware.elf")
        built[name] = (image, build_reference_graph(image))
    return built


def node_named(graph, name):
    matches = [i for i, node in enumerate(graph.nodes) if node.name == name or name in node.aliases]
    assert matches, f"no node named {name}"
    return matches[0]


def targets_of(graph, name):
    return {graph.nodes[j].name for j in graph.edges[node_named(graph, name)]}


@pytest.mark.parametrize("build", ["cortex-m4", "cortex-m4-relocs", "riscv32", "host-x86_64"])
def test_nodes_cover_every_flash_byte_once(graphs, build):
    image, graph = graphs[build]
    assert sum(node.rom_bytes for node in graph.nodes) == image.rom_total
    for before, after in zip(graph.nodes, graph.nodes[1:]):
        assert before.end <= after.address  # no overlaps


@pytest.mark.parametrize("build", ["cortex-m4", "cortex-m4-relocs", "riscv32", "host-x86_64"])
def test_a_registration_refers_to_its_init_prepare_and_eval(graphs, build):
    _, graph = graphs[build]
    targets = targets_of(graph, "tflite::Register_SOFTMAX()")
    short_names = [name.replace("(anonymous namespace)", "anon").split("(")[0].rsplit("::", 1)[-1] for name in targets]
    for step in ("Init", "Prepare", "Eval"):
        assert any(short.endswith(step) for short in short_names), (step, short_names)
    assert any(name.startswith("tflite::micro::RegisterOp(") for name in targets)


@pytest.mark.parametrize("build", ["cortex-m4", "riscv32", "host-x86_64"])
def test_registration_kept_in_data_reaches_its_functions_through_the_object(graphs, build):
    _, graph = graphs[build]
    assert "tflite::Register_SINH()::registration" in targets_of(graph, "tflite::Register_SINH()")
    through_data = targets_of(graph, "tflite::Register_SINH()::registration")
    assert any(name.replace("(anonymous namespace)", "anon").split("(")[0].endswith("Eval") for name in through_data)


def test_relocations_give_the_same_function_edges_as_decoding(graphs):
    def named_edges(graph):
        return {
            (graph.nodes[i].name, graph.nodes[j].name)
            for i, targets in enumerate(graph.edges)
            for j in targets
            if graph.nodes[i].kind != "chunk" and graph.nodes[j].kind != "chunk"
        }

    decoded, exact = graphs["cortex-m4"][1], graphs["cortex-m4-relocs"][1]
    assert not decoded.exact and exact.exact
    assert named_edges(decoded) == named_edges(exact)


def test_startup_code_walking_data_does_not_keep_the_first_object_alive(graphs):
    # rv32 reset_handler refers to the start and end of .data to copy it; the object at .data's first byte is
    # Register_DETECTION_POSTPROCESS()'s registration, which only that registration may keep.
    image, graph = graphs["riscv32"]
    data = image.section_by_name(".data")
    first = graph.node_at(data.address)
    assert graph.nodes[first].name == "tflite::Register_DETECTION_POSTPROCESS()::registration"
    holders = {graph.nodes[i].name for i, targets in enumerate(graph.edges) if first in targets}
    assert holders == {"tflite::Register_DETECTION_POSTPROCESS()"}


def test_string_literals_become_their_own_nodes(graphs):
    _, graph = graphs["cortex-m4"]
    chunks = [node for node in graph.nodes if node.kind == "chunk" and node.section == ".rodata"]
    assert len(chunks) > 5  # cut at each referenced address, not one anonymous blob


@pytest.mark.parametrize("build", ["cortex-m4", "host-x86_64"])
def test_references_resolve_to_the_nodes_node_at_finds(graphs, build):
    from sizetool.code_graph.reference_graph import _resolve

    _, graph = graphs[build]
    addresses = [0, graph.nodes[-1].end + 0x1000] + [address for node in graph.nodes for address in (
        node.address - 1, node.address, (node.address + node.end) // 2, node.end - 1, node.end)]
    references = list(zip(addresses, reversed(addresses)))
    assert _resolve(graph, references) == [(graph.node_at(source), target, graph.node_at(target))
                                           for source, target in references]


def walk(edges, roots, removed, cut):
    """The plain definition reachable must match: follow edges from the roots, never into a removed node nor along
    a cut edge."""
    seen = set()
    pending = [root for root in roots if root not in removed]
    while pending:
        node = pending.pop()
        if node not in seen:
            seen.add(node)
            pending += [t for t in edges[node] if t not in removed and t not in cut.get(node, ())]
    return seen


@pytest.mark.parametrize("seed", range(30))
def test_reachable_is_the_plain_walk_on_random_graphs(seed):
    import random

    from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph

    rng = random.Random(seed)
    size = rng.randrange(1, 50)
    edges = [sorted(set(rng.choices(range(size), k=rng.randrange(0, 5)))) for _ in range(size)]
    graph = ReferenceGraph([GraphNode(16 * i, 16 * i + 8, 8, ".text", f"f{i}", f"f{i}", "func") for i in range(size)],
                           edges)
    roots = rng.choices(range(size), k=rng.randrange(1, 5))
    removed = set(rng.choices(range(size), k=rng.randrange(0, size // 2 + 1)))
    cut = {node: set(rng.choices(edges[node], k=1)) for node in rng.choices(range(size), k=3) if edges[node]}
    assert graph.reachable(roots, removed, cut) == walk(edges, roots, removed, cut)
    assert graph.reachable(roots) == walk(edges, roots, set(), {})


def test_reachable_stops_at_removed_nodes(graphs):
    _, graph = graphs["cortex-m4"]
    main = node_named(graph, "main")
    registration = node_named(graph, "tflite::Register_SINH()")
    everything = graph.reachable([main])
    assert registration in everything
    without = graph.reachable([main], removed={registration})
    assert registration not in without
    assert node_named(graph, "tflite::Register_SINH()::registration") not in without


def test_a_call_to_an_entry_point_inside_another_symbol_is_an_edge(graphs):
    # libgcc's hand-written float code has __aeabi_fsub and __aeabi_fadd starting inside __aeabi_frsub's bytes;
    # calls to them must keep that node alive.
    image, graph = graphs["cortex-m4"]
    entry = next(s for s in image.symbols if s.mangled == "__aeabi_fadd")
    holder = graph.node_at(entry.address)
    assert graph.nodes[holder].address < entry.address  # an entry point inside a larger node
    callers = [i for i, targets in enumerate(graph.edges) if holder in targets]
    assert callers


def test_a_constant_pointing_into_the_middle_of_a_function_is_not_an_edge(monkeypatch):
    import sizetool.code_graph.disassembly as disassembly
    import sizetool.code_graph.reference_graph as reference_graph

    image = read_elf(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf")
    main = next(s for s in image.symbols if s.mangled == "main")
    victim = next(s for s in image.symbols if s.name == "tflite::Register_SOFTMAX()")
    real_decoder = disassembly.code_decoder

    def decoder_with_a_constant(*args):
        decode = real_decoder(*args)

        def decode_run(run):
            yield from decode(run)
            if run.start <= main.address < run.end:
                yield main.address, victim.address + 9  # like newlib's 0x10009 stdio flags: odd, mid-function
                yield main.address, victim.address | 1  # a real Thumb function pointer still counts
        return decode_run

    monkeypatch.setattr(disassembly, "code_decoder", decoder_with_a_constant)
    graph = reference_graph.build_reference_graph(image)
    main_node, victim_node = graph.node_at(main.address), graph.node_at(victim.address)
    assert victim_node in graph.edges[main_node]
    # Only the interior constant: main does not otherwise refer to Register_SOFTMAX (RegisterVisionOps does).
    def decoder_with_only_the_constant(*args):
        decode = real_decoder(*args)

        def decode_run(run):
            yield from decode(run)
            if run.start <= main.address < run.end:
                yield main.address, victim.address + 9
        return decode_run

    monkeypatch.setattr(disassembly, "code_decoder", decoder_with_only_the_constant)
    image = read_elf(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf")  # an image keeps what was decoded
    graph = reference_graph.build_reference_graph(image)
    assert graph.node_at(victim.address) not in graph.edges[graph.node_at(main.address)]


def test_with_the_map_functions_of_one_input_section_keep_each_other():
    # libgcc's _arm_addsubsf3.o brings __aeabi_ul2f in the same .text input section as the float add/sub that the
    # kernels call: nothing calls __aeabi_ul2f, but the linker cannot drop it alone.
    from sizetool.inputs.map_file import read_map

    image = read_elf(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf")
    linker_map = read_map(str(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.map"))
    main = next(s for s in image.symbols if s.mangled == "main")
    orphan = next(s for s in image.symbols if s.mangled == "__aeabi_ul2f")
    entry = next(s for s in image.symbols if s.mangled == "Reset_Handler")
    roots = lambda graph: {graph.node_at(main.address), graph.node_at(entry.address)}  # noqa: E731

    without_map = build_reference_graph(image)
    assert without_map.node_at(orphan.address) not in without_map.reachable(roots(without_map))
    with_map = build_reference_graph(image, input_sections=linker_map.input_sections)
    assert with_map.node_at(orphan.address) in with_map.reachable(roots(with_map))


def test_a_zero_filled_placeholder_over_stored_bytes_hides_nothing():
    # ESP32-S3's .ext_ram.dummy (NOLOAD) spans the flash data window where .flash.rodata lies; its nodes must not
    # cover the rodata's (an earlier graph left all 40 KB of a real S3 build's rodata unreached).
    import dataclasses

    path = str(FIXTURES / "layouts" / "out" / "esp32-like" / "esp32-like.elf")
    image = read_elf(path)
    rodata = next(s for s in image.sections if s.name == ".flash.rodata")
    placeholder = dataclasses.replace(rodata, name=".ext_ram.dummy", type="SHT_NOBITS", index=max(
        s.index for s in image.sections) + 1, address=rodata.address - 0x100, size=rodata.size + 0x200)
    with_placeholder = dataclasses.replace(image, sections=[*image.sections, placeholder])
    plain, covered = build_reference_graph(image), build_reference_graph(with_placeholder)
    assert [(n.address, n.name) for n in covered.nodes] == [(n.address, n.name) for n in plain.nodes]
    assert covered.edges == plain.edges


def test_without_the_map_dwarf_ties_the_same_library_functions():
    # .debug_aranges has one range per code section of each unit: libgcc's _arm_addsubsf3.o .text is one range.
    from sizetool.code_graph.code_sections import dwarf_code_sections

    image = read_elf(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf")
    main = next(s for s in image.symbols if s.mangled == "main")
    orphan = next(s for s in image.symbols if s.mangled == "__aeabi_ul2f")
    graph = build_reference_graph(image, input_sections=dwarf_code_sections(image))
    assert graph.node_at(orphan.address) in graph.reachable({graph.node_at(main.address)})
    stripped = read_elf(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware-nodebug.elf")
    assert dwarf_code_sections(stripped) == []


def _pointer_words(image, words):
    """The data words _plausible_pointers keeps, out of `words`, on a real image's sections and symbols."""
    from collections import defaultdict

    from sizetool.code_graph.reference_graph import _plausible_pointers
    from sizetool.inputs.symbol_runs import symbol_runs

    sections = [s for s in image.sections if s.is_alloc and s.size > 0]
    by_section = defaultdict(list)
    for symbol in image.symbols:
        if symbol.size > 0:
            by_section[symbol.section_index].append(symbol)
    runs = {s.index: symbol_runs(s, by_section.get(s.index, [])) for s in sections}
    functions = {s.address for s in image.symbols if s.kind == "func"}
    thumb = {s.address for s in image.symbols if s.kind == "func" and s.thumb}
    code = [(s.address, s.address + s.size) for s in sections if s.is_code]
    return _plausible_pointers(words, sections, runs, functions, thumb, code, image.mapping_symbols)


def test_a_table_of_numbers_is_not_a_table_of_pointers():
    image = read_elf(FIXTURES / "firmware" / "out" / "cortex-m4-tflm-os" / "firmware.elf")
    table = next(s for s in image.symbols if s.name.endswith("kExpTableQ30"))
    target = next(s for s in image.symbols if s.name == "tflite::Register_LOGISTIC()")
    string = next(s for s in image.symbols if s.name.endswith("kSigmoidTable"))
    # 64 words of a Q30 table, one of which happens to equal a function's Thumb address (like newlib's
    # two_over_pi holding a CMSIS-NN table's address): numbers, all of them.
    numbers = [(table.address + 4 * i, 0x3F000000 - 977 * i) for i in range(63)]
    numbers.append((table.address + 252, target.address | 1))
    assert _pointer_words(image, numbers) == []
    # The same word among pointers is a pointer; the even address of a Thumb function never is.
    pointers = [(table.address, target.address | 1), (table.address + 4, string.address),
                (table.address + 8, 0x3F000000), (table.address + 12, target.address)]
    assert _pointer_words(image, pointers) == pointers[:2]


def test_with_the_map_objects_of_one_data_input_section_keep_each_other():
    # An object built without -fdata-sections (newlib's e_expf.o .rodata: halF, ln2HI, ln2LO) is reached through
    # one section anchor, the address of its first object; the linker keeps or drops the section whole.
    from sizetool.inputs.map_file import InputSection
    from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph, _tie_input_sections

    nodes = [GraphNode(0x100, 0x110, 16, ".text", "expf", "expf", "func"),
             GraphNode(0x200, 0x210, 16, ".rodata", "halF", "halF", "object"),
             GraphNode(0x210, 0x220, 16, ".rodata", "ln2LO", "ln2LO", "object"),
             GraphNode(0x220, 0x228, 8, ".rodata", "(no symbol) .rodata+0x20", "", "chunk")]
    graph = ReferenceGraph(nodes=nodes, edges=[])
    edges = [{1}, set(), set(), set()]
    _tie_input_sections(graph, edges, [InputSection(".rodata", 0x200, 0x28, "libm.a(lib_a-e_expf.o)")],
                        [(0x100, 0x110)])
    assert 2 in edges[1] and 1 in edges[2] and not edges[3]
    _tie_input_sections(graph, edges, [InputSection(".rodata.str1.1", 0x200, 0x20, "x.o")], [(0x100, 0x110)])
    graph.edges = [sorted(e) for e in edges]
    assert graph.reachable({0}) == {0, 1, 2}


def _named_edges(graph):
    return {(graph.nodes[i].name, graph.nodes[j].name) for i, targets in enumerate(graph.edges) for j in targets
            if graph.nodes[i].kind != "chunk" and graph.nodes[j].kind != "chunk"}


@pytest.mark.parametrize("with_map", [True, False], ids=["map", "no-map"])
def test_read_only_data_a_script_puts_in_text_is_read_as_data(with_map):
    # picolibc's picolibc.ld places every .rodata input section inside the executable .text. The fixture's
    # riscv32-rodata-in-text is the riscv32 build's objects linked that way: vtables, registration tables, strings
    # and tables between the code. Decoded as instructions, their bytes read as jumps and address pairs to anywhere,
    # and the vtables kept nothing (an earlier graph predicted its keep-only links up to 17% high); read as data, the
    # graph is the one of the ordinary layout, edge for edge.
    from sizetool.inputs.map_file import read_map

    out = FIXTURES / "firmware" / "out"
    ordinary = build_reference_graph(read_elf(out / "riscv32" / "firmware.elf"))
    image = read_elf(out / "riscv32-rodata-in-text" / "firmware.elf")
    assert image.section_by_name(".rodata") is None
    vtable = next(s for s in image.symbols if s.name.startswith("vtable for "))
    assert image.section_by_name(".text").contains(vtable.address)  # the shape: data inside the code section
    sections = read_map(str(out / "riscv32-rodata-in-text" / "firmware.map")).input_sections if with_map else None
    graph = build_reference_graph(image, input_sections=sections)
    assert _named_edges(graph) == _named_edges(ordinary)
    assert targets_of(graph, vtable.name) == targets_of(ordinary, vtable.name) != set()


def test_without_the_map_symbol_less_bytes_in_a_code_section_with_data_are_data_up_to_a_label():
    from sizetool.code_graph.code_sections import _unlabelled_gaps

    covered = [(0x100, 0x140, "func"), (0x150, 0x160, "object"), (0x180, 0x190, "func")]
    # 0x140..0x150: a string; 0x160..0x180: a string, then an assembler routine at its label 0x170; 0x190..0x1a0: fill
    assert _unlabelled_gaps(0x100, 0x1A0, covered, [0x170]) == [(0x140, 0x150), (0x160, 0x170), (0x190, 0x1A0)]
    assert _unlabelled_gaps(0x100, 0x140, covered[:1], []) == []


def test_a_thumb1_function_is_decoded_past_a_marker_of_debug_frame():
    # The Cortex-M0+ fixture: libgcc's .debug_frame `$d` values fall inside a kernel's Eval. Its instructions after
    # that address are decoded too (on real TFLM the marker cut RegisterOps() short: 34 AddXxx() calls went unseen).
    from sizetool.code_graph.reference_graph import function_code_runs

    path = FIXTURES / "firmware" / "out" / "cortex-m0plus" / "firmware.elf"
    image = read_elf(path)
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as stream:
        elf = ELFFile(stream)
        frame = next(i for i, s in enumerate(elf.iter_sections()) if s.name == ".debug_frame")
        markers = [s["st_value"] for s in elf.get_section_by_name(".symtab").iter_symbols()
                   if s.name == "$d" and s["st_shndx"] == frame]
    graph = build_reference_graph(image)
    hit = [(graph.node_at(value), value) for value in markers if graph.node_at(value) is not None
           and graph.nodes[graph.node_at(value)].kind == "func"]
    assert hit, "the fixture keeps the shape"
    for node, value in hit:
        runs = function_code_runs(image, graph.nodes[node])
        assert max(run.end for run in runs) > value + 4


def test_start_up_code_looping_to_the_end_of_data_minus_3_keeps_no_object():
    # GCC folds a word loop's rounding into its literal: the Cortex-M0+ reset handler loads `_edata - 3` (and
    # `_sdata - 3`), which points into .data's last object, Register_WINDOW()'s registration.
    image = read_elf(FIXTURES / "firmware" / "out" / "cortex-m0plus" / "firmware.elf")
    graph = build_reference_graph(image)
    data = image.section_by_name(".data")
    last = graph.node_at(data.address + data.size - 1)
    assert graph.nodes[last].name == "tflite::tflm_signal::Register_WINDOW()::registration"
    holders = {graph.nodes[i].name for i, targets in enumerate(graph.edges) if last in targets}
    assert holders == {"tflite::tflm_signal::Register_WINDOW()"}


def test_a_limit_constant_in_a_literal_pool_is_not_a_pointer_into_a_table():
    # Thumb-1 loads INT16_MAX (0x7fff) from a literal pool; linked at 0, it falls inside the Hann window table.
    from sizetool.code_graph.reference_graph import _is_a_limit

    image = read_elf(FIXTURES / "firmware" / "out" / "cortex-m0plus" / "firmware.elf")
    graph = build_reference_graph(image)
    table = node_named(graph, "tflite::tflm_signal::(anonymous namespace)::kHannWindowQ15")
    assert graph.nodes[table].address < 0x7FFF < graph.nodes[table].end
    holders = {graph.nodes[i].name for i, targets in enumerate(graph.edges) if table in targets}
    assert holders and all("tflm_signal" in name for name in holders)  # the window kernel's own code, no other
    assert [v for v in (0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7F9E, 0x2000_0044) if _is_a_limit(v)] == [
        0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000]


def test_an_exidx_entry_refers_to_its_extab_entry_and_personality_routine():
    # ARM EHABI: a function's .ARM.exidx entry (function prel31, then EXIDX_CANTUNWIND, inline instructions with bit 31
    # set, or a prel31 to its .ARM.extab entry), whose first word is the personality routine's prel31 (generic model)
    import struct

    from sizetool.code_graph.arm_unwind import exidx_handlers
    from sizetool.inputs.elf_reader import Section

    exidx = Section(1, ".ARM.exidx", "SHT_ARM_EXIDX", 0x82, 0x1000, 0x1000, 24, 0)
    extab = Section(2, ".ARM.extab", "SHT_PROGBITS", 0x2, 0x2000, 0x2000, 8, 0)
    prel31 = lambda place, target: (target - place) & 0x7FFFFFFF  # noqa: E731
    entries = struct.pack("<6I", prel31(0x1000, 0x400), 1,  # cannot unwind: no reference
                          prel31(0x1008, 0x500), 0x80A8B0B0,  # unwind instructions inline: no reference
                          prel31(0x1010, 0x600), prel31(0x1014, 0x2000))  # its extab entry
    table = struct.pack("<2I", prel31(0x2000, 0x300 | 1), 0x0)  # __gxx_personality_v0 (Thumb) at 0x300
    contents = {1: entries, 2: table}
    assert exidx_handlers(exidx, [exidx, extab], contents, True) == [(0x1014, 0x2000), (0x1014, 0x301)]


def test_linker_stubs_are_not_tied_together_as_one_input_section():
    # GNU ld puts every veneer of an output section in one "linker stubs" input piece: each is used by the calls to
    # its own target, not kept by the others
    from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph, _tie_input_sections
    from sizetool.inputs.map_file import InputSection

    nodes = [GraphNode(0x100, 0x110, 16, ".data", "__a_veneer", "__a_veneer", "func"),
             GraphNode(0x110, 0x120, 16, ".data", "__b_veneer", "__b_veneer", "func")]
    graph = ReferenceGraph(nodes=nodes, edges=[])
    for owner, tied in (("linker stubs", False), ("libfoo.a(foo.o)", True)):
        edges = [set(), set()]
        _tie_input_sections(graph, edges, [InputSection(".text.unlikely.__stub", 0x100, 0x20, owner)], [(0x0, 0x200)])
        assert (edges == [{1}, {0}]) is tied


def test_with_the_map_no_symbol_less_code_runs_on_into_the_next_input_section():
    # The linker keeps or drops each input section whole: a chunk of code spanning two (assembler routines with size-0
    # symbols, as libgcc's and pico-sdk's are) would keep the second whenever the first is kept.
    from sizetool.inputs.map_file import read_map

    image = read_elf(FIXTURES / "firmware" / "out" / "lx106" / "firmware.elf")
    pieces = read_map(str(FIXTURES / "firmware" / "out" / "lx106" / "firmware.map")).input_sections
    starts = {p.address for p in pieces if p.size and p.name.startswith(".text")}
    straddling = lambda graph: [n for n in graph.nodes  # noqa: E731
                                if n.kind == "chunk" and any(n.address < s < n.end for s in starts)]
    assert straddling(build_reference_graph(image))  # Xtensa libgcc's symbol-less code does, read without the map
    assert straddling(build_reference_graph(image, input_sections=pieces)) == []


def test_with_the_map_a_symbol_sized_past_its_input_section_does_not_take_the_next_routine():
    # fixtures/symbol_overrun: compare_like's st_size runs 8 bytes past compare.o's .text, over the fill into
    # length_like (length.o), as newlib-nano's strcmp runs into strlen; length_user calls length_like, the reset
    # handler compare_like. Read with the symbol's extent, the call to length_like lands in compare_like and whoever
    # keeps compare_like keeps length_like (through compare_like's tail and length.o's input section).
    from sizetool.inputs.map_file import read_map

    out = FIXTURES / "symbol_overrun" / "out"
    image = read_elf(out / "firmware.elf")
    pieces = read_map(str(out / "firmware.map")).input_sections
    length_like = next(symbol.address for symbol in image.symbols if symbol.name == "length_like")
    compare_end = next(p.address + p.size for p in pieces if p.object_file == "compare.o" and p.name == ".text")

    overrun = build_reference_graph(image, input_sections=pieces[:0])
    assert overrun.nodes[overrun.node_at(length_like)].name == "compare_like"

    graph = build_reference_graph(image, input_sections=pieces)
    assert graph.nodes[graph.node_at(length_like)].name == "length_like"
    assert graph.nodes[node_named(graph, "compare_like")].end == compare_end
    assert graph.nodes[node_named(graph, "length_like")].rom_bytes == 8
    assert targets_of(graph, "length_user") == {"length_like"}
    kept = {graph.nodes[i].name for i in graph.reachable({node_named(graph, "reset_handler")})}
    assert "compare_like" in kept and "length_like" not in kept


def test_a_thumb_function_address_at_a_halfword_offset_in_code_data_is_a_reference():
    # pico-sdk's double wrappers: `svc #0x18` then `.word dsqrt_shim` (Thumb bit set) at pc + 2, read through the pc
    from dataclasses import replace

    from sizetool.code_graph.code_sections import unaligned_thumb_pointers
    from sizetool.inputs.elf_reader import Section

    image = replace(read_elf(FIXTURES / "firmware" / "out" / "cortex-m0plus" / "firmware.elf"),
                    mapping_symbols=[(0x1000, "$t"), (0x1008, "$d"), (0x1010, "$t")])
    text = Section(1, ".text", "SHT_PROGBITS", 0x6, 0x1000, 0x1000, 0x20, 0)
    data = bytes(8) + b"\x18\xdf" + (0x1011).to_bytes(4, "little") + (0x1019).to_bytes(4, "little") + bytes(14)
    # 0x100A holds 0x1011, the Thumb function at 0x1010; 0x100E's word runs past the $d run into code
    assert unaligned_thumb_pointers(image, text, data, {0x1010}) == [(0x100A, 0x1011)]
    assert unaligned_thumb_pointers(image, text, data, {0x1018}) == []
    assert unaligned_thumb_pointers(image, text, data, {0x1012}) == []  # 0x1011 is not its address with the Thumb bit


def test_the_fill_after_a_bss_object_up_to_8_bytes_goes_with_it():
    # esp-tflite-micro on ESP32-C3: a signal op's static TFLMRegistration (28 bytes) is followed by 4 bytes of fill
    # before its 8-byte guard variable; the linker drops both with the registration, so the fill must not stay.
    from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph, _give_padding_to_functions

    nodes = [GraphNode(0x1000, 0x101C, 0, ".bss", "Register_DELAY()::r", "r", "object"),
             GraphNode(0x101C, 0x1020, 0, ".bss", "(no symbol) .bss+0x1c", "", "chunk"),
             GraphNode(0x1020, 0x1028, 0, ".bss", "guard variable for Register_DELAY()::r", "g", "object"),
             GraphNode(0x1028, 0x102C, 0, ".bss", "errno_like", "e", "object"),
             GraphNode(0x102C, 0x1030, 0, ".bss", "(no symbol) .bss+0x2c", "", "chunk"),
             GraphNode(0x1030, 0x1031, 0, ".bss", "lock", "l", "object"),
             GraphNode(0x1031, 0x1040, 0, ".bss", "(no symbol) .bss+0x31", "", "chunk")]
    graph = ReferenceGraph(nodes=nodes, edges=[])
    edges = [set() for _ in nodes]
    _give_padding_to_functions(graph, edges, targets={0x102C})
    # the fill to the 8-byte boundary goes with the object before it; fill something refers to, or longer, stays
    assert edges == [{1}, set(), set(), set(), set(), set(), set()]
