"""The top levels of the size tree: one workspace, several named source roots, Zephyr's own nodes."""

from pathlib import Path

from sizetool.inputs.dwarf_paths import SourceIndex, _join
from sizetool.report.report_builder import build_report
from sizetool.report.source_roots import (
    OUTPUT_DIR, WORKSPACE, ZEPHYR_BASE, SourceRoot, find_roots, tree_path_finder,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
LAYOUTS = FIXTURES / "layouts" / "out"


def top_level(report, memory="rom") -> set[str]:
    return {e.path[0] for e in report.entries_for(memory)}


def test_a_library_and_an_app_built_in_two_trees_are_two_named_roots():
    # flash0's TFLM-shaped library was built from /build/tflite-micro, its app from /home/dev/keyword-app/build.
    report = build_report(str(LAYOUTS / "flash0" / "firmware.elf"), use_cache=False)
    tops = top_level(report)
    assert {"tflite-micro", "keyword-app/src"} <= tops
    assert not any(t.startswith("(outside workspace)") for t in tops)
    paths = {e.path for e in report.entries_for("rom")}
    assert ("tflite-micro", "kernels", "add.cc") in paths
    assert ("keyword-app/src", "main.cc") in paths


def test_one_project_tree_keeps_paths_relative_to_its_common_directory():
    report = build_report(str(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf"), use_cache=False)
    assert {"kernels", "micro", "app"} <= top_level(report)


def test_workspace_given_twice_names_each_root_and_leaves_the_rest_outside():
    report = build_report(str(LAYOUTS / "flash0" / "firmware.elf"), use_cache=False,
                          workspace=["/build/tflite-micro/kernels", "/home/dev/keyword-app"])
    paths = {e.path for e in report.entries_for("rom")}
    assert ("kernels", "add.cc") in paths and ("keyword-app", "src", "main.cc") in paths
    assert ("(outside workspace)", "build", "tflite-micro", "micro", "micro_log.cc") in paths


def test_a_zephyr_build_gets_zephyr_base_workspace_and_output_dir():
    report = build_report(str(LAYOUTS / "zephyr-like" / "zephyr.elf"), use_cache=False)
    paths = {e.path for e in report.entries}
    assert (ZEPHYR_BASE, "kernel", "init.c") in paths
    assert (OUTPUT_DIR, "zephyr", "isr_tables.c") in paths
    assert (WORKSPACE, "app", "src", "main.cc") in paths
    assert (WORKSPACE, "modules", "lib", "tflite-micro", "kernels", "conv.cc") in paths
    assert top_level(report) <= {ZEPHYR_BASE, OUTPUT_DIR, WORKSPACE, "(toolchain)", "(archives)", "(no symbol)"}


def index_of(units: dict[str, str]) -> SourceIndex:
    """A source index with these compile units (primary file -> comp_dir), as DWARF would give them."""
    index = SourceIndex()
    for unit, comp_dir in units.items():
        index.unit_files.append(unit)
        index.unit_comp_dirs[unit] = comp_dir
        index.comp_dirs[comp_dir] += 1
    return index


def test_windows_paths_of_a_zephyr_build_get_zephyr_nodes_and_the_app_its_own_root():
    build = "C:/Users/dev/blinky/build"
    index = index_of({
        "C:/Users/dev/ncs/zephyr/kernel/init.c": build,
        "C:/Users/dev/ncs/zephyr/arch/arm/core/reset.S": build,
        "C:/Users/dev/ncs/zephyr/drivers/gpio/gpio_nrfx.c": build,
        "C:/Users/dev/ncs/modules/hal/nordic/nrfx/drivers/src/nrfx_clock.c": build,
        _join("C:\\Users\\dev\\blinky\\build", "zephyr/isr_tables.c"): build,
        _join("C:\\Users\\dev\\blinky\\build", "../src/main.c"): build,
    })
    roots = find_roots(index)
    assert [(r.name, r.directory) for r in roots] == [
        (ZEPHYR_BASE, "C:/Users/dev/ncs/zephyr"), (OUTPUT_DIR, build), (WORKSPACE, "C:/Users/dev/ncs"),
        ("blinky/src", "C:/Users/dev/blinky/src"),
    ]
    tree_path = tree_path_finder(roots)
    assert tree_path("C:/Users/dev/blinky/src/main.c") == ("blinky/src", "main.c")
    assert tree_path("C:/Users/dev/ncs/modules/hal/nordic/nrfx/drivers/src/nrfx_clock.c")[:2] == (WORKSPACE, "modules")


def test_an_esp_idf_build_on_windows_gets_named_roots_not_the_drive():
    # ESP-IDF 5.1.2 on Windows: the framework under C:/Espressif, the app under C:/Users, a prebuilt HAL with
    # POSIX paths of the machine it was built on, and the toolchain's own sources under c:/espressif/tools.
    build = "C:/Users/dev/hello_world/build"
    index = index_of({
        "C:/Espressif/frameworks/esp-idf-v5.1.2/components/freertos/tasks.c": build,
        "C:/Espressif/frameworks/esp-idf-v5.1.2/components/esp_system/port/cpu_start.c": build,
        _join("C:\\Users\\dev\\hello_world\\build", "../main/hello_world_main.c"): build,
        "/Users/builder/e/esp32/hal/hal/interrupts.c": "/Users/builder/e/esp32/hal/hal",
    })
    roots = find_roots(index)
    names = {r.name for r in roots}
    assert "esp-idf-v5.1.2/components" in names and "hello_world/main" in names
    assert not any(name.rstrip("/").lower() == "c:" for name in names)
    tree_path = tree_path_finder(roots)
    assert tree_path("C:/Espressif/frameworks/esp-idf-v5.1.2/components/freertos/tasks.c") == (
        "esp-idf-v5.1.2/components", "freertos", "tasks.c")
    assert tree_path("c:/espressif/tools/xtensa-esp32-elf/esp-12.2.0/newlib/libc/stdio/vfprintf.c")[0] == "(toolchain)"


def test_posix_trees_beside_a_windows_library_are_roots_of_their_own_not_one_named_slash():
    # Edge Impulse's Himax WE-I Plus firmware: the app built in Docker under /app, the board library prebuilt on
    # Windows (C:/Users/...), one unit from a third machine's /home. The POSIX trees were one root "/", and `ops`
    # printed "//app/edge-impulse-sdk/...".
    vendor = "C:/Users/dev/mide/workspace/sdk"
    index = index_of({
        f"{vendor}/arc/arc_timer.c": vendor,
        f"{vendor}/board/board.c": vendor,
        "/app/edge-impulse-sdk/tensorflow/lite/micro/kernels/conv.cc": "/app/build-mw",
        "/app/edge-impulse-sdk/porting/himax/debug_log.cpp": "/app/build-mw",
        "/app/main.cc": "/app/build-mw",
        "/home/other/mide/workspace/sdk2/library/clib/malloc.c": "/home/other/mide/workspace/sdk2",
    })
    roots = find_roots(index)
    assert "/" not in {r.directory for r in roots} and ("app", "/app") in {(r.name, r.directory) for r in roots}
    tree_path = tree_path_finder(roots)
    assert tree_path("/app/edge-impulse-sdk/tensorflow/lite/micro/kernels/conv.cc")[:2] == ("app", "edge-impulse-sdk")
    assert tree_path(f"{vendor}/board/board.c")[-2:] == ("board", "board.c")
    assert tree_path("/home/other/mide/workspace/sdk2/library/clib/malloc.c") == ("sdk2", "library", "clib", "malloc.c")


def test_windows_separators_and_drive_letters_are_read_as_paths():
    assert _join("C:\\Users\\dev\\blinky\\build", "..\\src\\main.c") == "C:/Users/dev/blinky/src/main.c"
    assert _join("C:\\Users\\dev\\build", "C:/ncs/zephyr/kernel/init.c") == "C:/ncs/zephyr/kernel/init.c"


def test_a_checkout_built_from_its_top_directory_is_named_after_it():
    # TFLM's Makefile compiles tensorflow/lite/micro/... from the checkout; the app is compiled elsewhere.
    index = index_of({
        "/work/tflm/tensorflow/lite/micro/kernels/add.cc": "/work/tflm",
        "/work/tflm/tensorflow/lite/micro/micro_interpreter.cc": "/work/tflm",
        "/work/tflm/tensorflow/compiler/mlir/lite/core/api/error_reporter.cc": "/work/tflm",
        "/home/me/apps/kws/main.cc": "/home/me/apps/kws",
        "/home/me/apps/kws/model.cc": "/home/me/apps/kws",
    })
    roots = find_roots(index)
    assert {(r.name, r.directory) for r in roots} == {("tflm", "/work/tflm"), ("kws", "/home/me/apps/kws")}


def test_directories_of_one_project_are_not_split():
    index = index_of({"/proj/src/main.c": "/proj/build", "/proj/lib/foo/foo.c": "/proj/build",
                      "/proj/lib/bar/bar.c": "/proj/build"})
    assert find_roots(index) == [SourceRoot("/proj")]


# Debian's arm-none-eabi libraries, as their DWARF names them (compile-unit directory joined with the unit's name;
# read with `arm-none-eabi-readelf --debug-dump=info` from libgcc.a, libc.a, libm.a, libnosys.a, libstdc++.a of
# gcc-arm-none-eabi 15:12.2.rel1-1 and libnewlib-arm-none-eabi 3.3.0-1.3+deb12u1)
DEBIAN_GCC = "/build/gcc-arm-none-eabi-8GAN2q/gcc-arm-none-eabi-12.2.rel1"
DEBIAN_NEWLIB = "/home/pere/src/newlib-salsa"


def test_toolchain_sources_read_as_the_library_not_the_distributions_build_folder():
    from sizetool.report.source_roots import TOOLCHAIN, outside_root

    build = "build/arm-none-eabi/thumb/v6-m/nofp"
    cases = {
        _join(f"{DEBIAN_GCC}/{build}/libgcc", "../../../../../../libgcc/config/arm/lib1funcs.S"):
            (TOOLCHAIN, "libgcc", "config", "arm", "lib1funcs.S"),
        _join(f"{DEBIAN_NEWLIB}/{build}/newlib/libc/stdio", "../../../../../../../../newlib/libc/stdio/vfprintf.c"):
            (TOOLCHAIN, "libc", "stdio", "vfprintf.c"),
        _join(f"{DEBIAN_NEWLIB}/{build}/newlib/libm/math", "../../../../../../../../newlib/libm/math/e_expf.c"):
            (TOOLCHAIN, "libm", "math", "e_expf.c"),
        _join(f"{DEBIAN_NEWLIB}/{build}/libgloss/libnosys", "../../../../../../../libgloss/libnosys/sbrk.c"):
            (TOOLCHAIN, "libnosys", "sbrk.c"),
        f"{DEBIAN_GCC}/{build}/libstdc++-v3/include/bits/basic_string.h":
            (TOOLCHAIN, "libstdc++", "include", "bits", "basic_string.h"),
        f"{DEBIAN_GCC}/src/libstdc++-v3/libsupc++/new_op.cc": (TOOLCHAIN, "libstdc++", "libsupc++", "new_op.cc"),
        "/usr/include/newlib/sys/unistd.h": (TOOLCHAIN, "libc", "include", "sys", "unistd.h"),
        # libgcc's unwinder is declared there (its functions' bytes: _Unwind_VRS_Get, ...)
        f"{DEBIAN_GCC}/build/gcc/include/unwind-arm-common.h": (TOOLCHAIN, "gcc", "include", "unwind-arm-common.h"),
        f"{DEBIAN_GCC}/build/arm-none-eabi/thumb/v6-m/nofp/crtstuff.c": (TOOLCHAIN, "arm-none-eabi", "thumb", "v6-m",
                                                                         "nofp", "crtstuff.c"),
    }
    for source, expected in cases.items():
        assert outside_root(source) == expected, source
        assert "gcc-arm-none-eabi-8GAN2q" not in "/".join(outside_root(source))
