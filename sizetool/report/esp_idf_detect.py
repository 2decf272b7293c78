"""Whether an input is an ESP-IDF image, told cheaply: by the map's region names, by the ELF's architecture, by a
report's input-format line. The ESP-IDF layout (esp_idf_layout.py) and the chips' address maps (esp_idf_chips.py)
load only when these say yes, so a Cortex-M report does not pay for them."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's constant, which type checkers read alike, without importing typing
if TYPE_CHECKING:  # a saved report's RAM split asks read_with_esp_idf_layout without any ELF or map reader loaded
    from sizetool.inputs.elf_reader import ElfImage
    from sizetool.inputs.map_file import LinkerMap

ESP_IDF_LAYOUT = "ESP-IDF layout"  # how a report's input-format line names the layout it was read with


def is_esp_idf_map(linker_map: LinkerMap) -> bool:
    """Whether the map's regions are ESP-IDF's."""
    names = {region.name for region in linker_map.regions}
    return "dram0_0_seg" in names and bool(names & {"iram0_0_seg", "drom0_0_seg", "iram1_0_seg", "irom0_0_seg"})


def could_be_esp_image(image: ElfImage) -> bool:
    """Whether the ELF is of an ESP chip's kind at all (32-bit Xtensa or RISC-V)."""
    return image.arch in ("xtensa", "riscv") and image.elf_class == 32


def read_with_esp_idf_layout(input_format: str) -> bool:
    """Whether a report's input-format line says it was read with the ESP-IDF layout."""
    return ESP_IDF_LAYOUT in input_format
