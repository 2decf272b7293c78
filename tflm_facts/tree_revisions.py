"""Known TFLM trees, as data: the fingerprint of a tree's resolver and registration headers -> the revision it is.

gen-resolver --tflm DIR names the tree's revision from git when DIR is in a git work tree; otherwise (a copied or
vendored tree: an SDK, an Arduino library) from this table. The fingerprint is the SHA-256 of the lines
"<path> <sha256 of the file with CRLF read as LF>", sorted by path, for each of FINGERPRINT_FILES the tree has (paths
relative to the folder holding tensorflow/). Each entry was computed with gen-resolver --tflm --format json on a
checkout of the revision it names (docs/gen-resolver.md says how to add one).
"""

from __future__ import annotations

RESOLVER_HEADER = "tensorflow/lite/micro/micro_mutable_op_resolver.h"
MICRO_OPS_HEADER = "tensorflow/lite/micro/kernels/micro_ops.h"
FINGERPRINT_FILES = (RESOLVER_HEADER, MICRO_OPS_HEADER)

# fingerprint -> the revision's name
KNOWN_REVISIONS: dict[str, str] = {
    "e9f3ccae993ac7180cbe1a381670a1acfe21c5859b008110b4fffaf52e456368": "tflite-micro 90b983c (August 2026)",
    "b0c888ba919ad317d42c6a39a3e5769b437d86bde4e534897099d9a3d1a41770":
        "pico-tflmicro dfea53b (its TFLM sync of December 2024)",
    "d400838710eab2f4d83e4ced2ef20bd4c1797e57bca858cfb72a4b52bc24f0db": "tflite-micro 02414075e (2023-06-16)",
    "ac4699cc398a553d64b0206dbbeb70b80c1037cedb54d2a167c4d10194004866": "tflite-micro 606b7b2f0 (2021-12-31)",
    # the same headers from 2694478 (2021-09-07) to be60ead (2021-10-01): to 5e65f82 the allocation is 5e65f82's (the
    # planner on the stack); from a1f4b88 (2021-09-09) a tree's micro_allocator.h tells generation 2021, whose tables
    # are 606b7b2f0's (not exact there)
    "8e319daaaf33f2e496b5d031d392ac3b756ccd9b770a4c0e1a72812bf846ade8":
        "tflite-micro 5e65f82 (2021-09-08), or a revision of 2021-09-07 to 2021-09-30 with its resolver headers",
    # the same headers from 359c83a (2022-03-16, WHILE) to after 45022bb; their allocator and reference kernels'
    # allocations are d6eb8ce's until 45022bb (2022-04-05), whose buffer-allocator interfaces a tree's files tell
    # (generation 2022-04, whose tables are not d6eb8ce's: not exact there)
    "028a6bdaaef6ee82d6f383be0c109ceccc4ecb69f84ac41edf753537ca4749da":
        "tflite-micro d6eb8ce (2022-04-04), or a revision of 2022-03-16 to 2022-04 with its resolver headers",
    # the same headers from 873b98c (2022-01-03) to 1806944 (2022-03-09): three generations, whose allocator changed
    # within 2022-01 (DeallocateTemp, 2022-01-22): the name does not make 05b427e's figure exact for such a tree
    "74e4351668115be0faa82fe75ca4cdc7a8436405d303d10a14ee6efb6bdcb586":
        "a tflite-micro revision of 2022-01-03 to 2022-03-09 (the resolver headers of 873b98c to 05b427e and on)",
    "e254942a9f395a6db28fc0a9bb1bc22199dd75526194a4406f6e2e37da7232f3":
        "Edge Impulse inferencing-sdk-cpp 29ca890 (2023-11-15)",
    "474d36e4956c14dda5b098eab14a877f572dd1395b13c266ab568b199988cc44":
        "Edge Impulse inferencing-sdk-cpp be7b099 (2021-08-31; TFLM of tflite-micro a37043f)",
    "bb2df1051326c3f34735259353e3283f9992eaabb4f58aab18e91d9ffeabc0f7":
        "Edge Impulse inferencing-sdk-cpp 2021-03 (its TensorFlow 2.3-era micro)",
    "cc4d684b357ae403cb95ee83ef1d27315bbdf807054d1ad1151e35aecf394b28":
        "STM32 CIFAR-10 app TFLM 61588d6 (notaJiminLee/STM-Cube-TFLM- 552_cifar10_tflite/tensorflow_lite, "
        "TensorFlow micro of about 2020-05/06)",
}
