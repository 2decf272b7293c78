// Stand-in for the generated code the final link adds (isr_tables.c in Zephyr).
const int zephyr_stand_in_isr_table[1] = {0};
