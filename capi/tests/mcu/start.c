/* capi/tests/mcu/start.c: what runs before main on the bare Cortex-M4F: the vector table,
 * the FPU switched on, .data copied and .bss zeroed, newlib's semihosting handles opened; then
 * main, whose status becomes qemu's through semihosting's exit (0 only for success). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char __stack_top[], __data_start[], __data_end[], __data_load[], __bss_start__[], __bss_end__[];
extern int main(void);
extern void initialise_monitor_handles(void);

void reset_handler(void);

/* A fault is a failed test, never a hang: exit at once (printing might fault again). */
static void fault(void) { _Exit(3); }

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top, reset_handler, fault, fault, fault, fault, fault,
    0, 0, 0, 0, fault, fault, 0, fault, fault,
};

void reset_handler(void) {
    /* CPACR: full access to CP10 and CP11, the FPU: newlib for hard float may touch it. */
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    memcpy(__data_start, __data_load, (size_t)(__data_end - __data_start));
    memset(__bss_start__, 0, (size_t)(__bss_end__ - __bss_start__));
    initialise_monitor_handles();
    exit(main());
}
