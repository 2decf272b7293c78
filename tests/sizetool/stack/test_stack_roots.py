"""Default stack roots from the layout linked: main, the ELF entry point and every handler of the vector tables,
wherever the table sits; nothing from start-up code that only copies a table (fixtures/startup_layout: an
RP2040-shaped image whose `__vectors` is the first input section of `.text`)."""

from pathlib import Path

from sizetool.inputs.elf_reader import read_elf
from sizetool.stack.stack_depth import analyse_stack

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
STARTUP = FIXTURES / "startup_layout/out/firmware.elf"


def roots_of(path=STARTUP):
    return {root.root: root for root in analyse_stack(read_elf(str(path))).roots}


def test_the_roots_are_main_the_entry_point_and_the_handlers_of_the_vector_table_inside_text():
    roots = roots_of()
    assert [(name, root.kind) for name, root in roots.items()] == [
        ("main", "main"),
        ("_entry_point", "entry point"),
        ("_reset_handler", "reset"),  # slot 1 of __vectors
        ("isr_nmi", "interrupt"), ("isr_hardfault", "interrupt"), ("isr_invalid", "interrupt"),
        ("isr_svcall", "interrupt"), ("isr_pendsv", "interrupt"), ("isr_systick", "interrupt"),
        ("unhandled_irq", "interrupt"),  # isr_irq0, 2 and 3: weak labels on one routine, named by its global symbol
        ("isr_irq1", "interrupt"),  # the C handler that replaced the weak default
        ("isr_irq2", "interrupt"),  # an assembly one (far_jump.S)
    ]


def test_start_up_code_that_copies_the_vector_table_is_no_root():
    # runtime_init_install_ram_vector_table takes __vectors' address, and its .preinit_array entry is named
    # __pre_init_runtime_init_install_ram_vector_table: neither makes it a handler
    roots = roots_of()
    assert "runtime_init_install_ram_vector_table" not in roots
    assert not any("ram_vector_table" in root.function for root in roots.values())


def test_an_interrupt_handler_is_walked_like_any_function():
    irq = roots_of()["isr_irq1"]
    assert [step.function for step in irq.path] == ["isr_irq1", "record_tick"]
    assert irq.depth == sum(step.frame for step in irq.path) > 48  # record_tick's 48-byte sample buffer
    assert irq.bounded


def test_the_reset_handler_reaches_main_through_the_address_it_loads_and_across_its_local_labels():
    # `ldr r1, =main; blx r1` is a call to main; `beq 1f` across the hold_other_core label lands in that routine
    roots = roots_of()
    reset = roots["_reset_handler"]
    names = [step.function for step in reset.path]
    assert "main" in names and "hold_other_core" in names
    assert reset.depth == roots["main"].depth
    assert not any(w.kind == "call into no function" for w in reset.warnings)
    # runtime_init calls its start-up steps through the .preinit_array: that stays an indirect call
    assert [w.function for w in reset.warnings] == ["runtime_init"]


def test_a_vector_table_in_its_own_section_still_gives_its_handlers():
    roots = roots_of(FIXTURES / "firmware/out/cortex-m4/firmware.elf")
    assert [(name, root.kind) for name, root in roots.items()] == [
        ("main", "main"), ("Reset_Handler", "entry point"), ("Default_Handler", "interrupt"),
        ("SysTick_Handler", "interrupt")]


def test_a_thumb_1_far_jump_inside_a_function_is_a_branch_not_recursion():
    # GCC compiles a branch too far for `b` in a large Thumb-1 function (newlib's _vfprintf_r, _dtoa_r on RP2040) as
    # `bl` to a label inside the function: 141 of the 253 warnings on pico-tflmicro's hello_world were these
    irq = roots_of()["isr_irq2"]
    assert irq.bounded and irq.warnings == []
    assert irq.depth == 8  # push {r4, lr}


def test_each_root_starts_where_its_code_does():
    # the table's words carry the Thumb bit (0x...5d for unhandled_irq) and data (the binary info header) lies
    # between the default handlers and _entry_point: each root is still its own routine, at an even address
    image = read_elf(str(STARTUP))
    symbols = {s.name: s.address for s in image.symbols}
    roots = roots_of()
    assert roots["_entry_point"].address == image.entry & ~1 == symbols["_entry_point"]
    for name in ("unhandled_irq", "isr_nmi", "_reset_handler", "isr_irq1"):
        assert roots[name].address == symbols[name], name
