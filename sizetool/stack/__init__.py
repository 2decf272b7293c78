"""Stack: the worst-case stack depth of a firmware's roots and the call path reaching it.

Owns: each function's frame and calls, read from its code (stack_frames), GCC .su entries matched to functions
(stack_crosscheck), and the walk from main, the entry point, threads and interrupt handlers, through TFLM
registrations to the kernels (stack_depth). Reads the code graph and the operator roots; nothing imports it but
render/ and commands/.
"""
