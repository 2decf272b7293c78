// Stand-in kernel code: one symbol, so that each stand-in library has an object.
int zephyr_stand_in_kernel_ticks;
