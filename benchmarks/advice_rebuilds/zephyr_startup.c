/* minimal Cortex-M4F start-up in place of Zephyr's: vector table, .data copy, .bss zero, FPU on, constructors, main */
#include <stdint.h>
extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern void (*__preinit_array_start[])(void), (*__preinit_array_end[])(void);
extern void (*__init_array_start[])(void), (*__init_array_end[])(void);
extern int main(void);
void *__dso_handle = 0;  /* as Zephyr's C++ support defines it */
void Reset_Handler(void);
void Default_Handler(void) { for (;;) {} }
__attribute__((section(".isr_vector"), used)) void (*const vectors[16 + 48])(void) = {
  (void (*)(void))&_estack, Reset_Handler,
  Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler, 0, 0, 0, 0,
  Default_Handler, Default_Handler, 0, Default_Handler, Default_Handler,
};
void Reset_Handler(void) {
  uint32_t *src = &_sidata, *dst = &_sdata;
  while (dst < &_edata) *dst++ = *src++;
  for (dst = &_sbss; dst < &_ebss;) *dst++ = 0;
  *(volatile uint32_t *)0xE000ED88 |= (0xFu << 20);  /* CPACR: the FPU on */
  for (void (**f)(void) = __preinit_array_start; f < __preinit_array_end; ++f) (*f)();
  for (void (**f)(void) = __init_array_start; f < __init_array_end; ++f) (*f)();
  main();
  for (;;) {}
}
