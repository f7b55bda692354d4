//! # board — the part and board glue shared by the firmware examples
//!
//! - the part the image is built for ([`PART`]: name, core, core clock, memory), chosen by a
//!   cargo feature (`mps2-an386`, `stm32f405` or `mps2-an500`) that also picks its memory map
//!   `memory/<part>.x`;
//! - output and exit through semihosting ([`println!`], [`exit`]);
//! - a microsecond clock from SysTick on the part's core clock ([`SysTickClock`]);
//! - stack painting for the peak stack depth ([`paint_stack`], [`peak_stack`]);
//! - the image's flash and static RAM from the linker symbols ([`memory`]);
//! - instruction-count markers ([`mark_begin`], [`mark_end`], [`mark_section`]): empty
//!   functions whose addresses the QEMU plugin `tools/insn_count.c` watches.
#![no_std]

use core::panic::PanicInfo;
use core::ptr::addr_of;
use core::sync::atomic::AtomicU32;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;

pub use cortex_m_semihosting::hprintln;

/// Prints a line on the host's stdout through semihosting.
#[macro_export]
macro_rules! println {
    ($($tt:tt)*) => { $crate::hprintln!($($tt)*) };
}

/// Ends the QEMU run with success or failure (semihosting exit).
pub fn exit(success: bool) -> ! {
    use cortex_m_semihosting::debug;
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    hprintln!("PANIC: {}", info);
    exit(false)
}

/// Written by the markers with volatile stores, so that they are neither removed nor merged.
static MARK: AtomicU32 = AtomicU32::new(0);

fn mark(value: u32) {
    // SAFETY: a plain store to a static word; single core, nothing else writes it.
    unsafe { core::ptr::write_volatile(MARK.as_ptr(), value) };
}

/// Instruction-count marker: a measured window starts here.
#[inline(never)]
#[no_mangle]
pub extern "C" fn insn_mark_begin() {
    mark(1);
}

/// Instruction-count marker: the measured window ends here.
#[inline(never)]
#[no_mangle]
pub extern "C" fn insn_mark_end() {
    mark(2);
}

/// Instruction-count marker: closes a section (a group of windows reported together).
#[inline(never)]
#[no_mangle]
pub extern "C" fn insn_mark_section() {
    mark(3);
}

/// Starts a measured window.
pub fn mark_begin() {
    insn_mark_begin();
}
/// Ends a measured window.
pub fn mark_end() {
    insn_mark_end();
}
/// Closes a section of windows; the instruction counter prints its statistics.
pub fn mark_section() {
    insn_mark_section();
}

/// Hooks for the plant scenarios: one measured window per step.
pub struct StepMarkers;
impl plant::Hooks for StepMarkers {
    fn before_step(&mut self) {
        mark_begin();
    }
    fn after_step(&mut self) {
        mark_end();
    }
}

extern "C" {
    static _stack_end: u32;
    static _stack_start: u32;
    static __stext: u32;
    static __etext: u32;
    static __srodata: u32;
    static __erodata: u32;
    static __sdata: u32;
    static __edata: u32;
    static __sbss: u32;
    static __ebss: u32;
    static __suninit: u32;
    static __euninit: u32;
}

const PAINT: u32 = 0xC0FF_EE55;
/// Words just below the current stack pointer left unpainted (the painting code's own frame).
const PAINT_MARGIN: usize = 64;

/// Fills the free stack, from its lowest address (`_stack_end`: the end of the statics, or the
/// bottom of its own region) up to the current stack pointer, with a pattern. Call first thing
/// in `main`, and again to measure a part of the run on its own.
pub fn paint_stack() {
    let bottom = addr_of!(_stack_end) as usize;
    let sp = cortex_m::register::msp::read() as usize;
    let top = sp - 4 * PAINT_MARGIN;
    let mut addr = bottom;
    while addr < top {
        // SAFETY: [_stack_end, sp − margin) is stack RAM below every live frame.
        unsafe { core::ptr::write_volatile(addr as *mut u32, PAINT) };
        addr += 4;
    }
}

/// Peak stack depth (bytes) since [`paint_stack`]: from the stack top down to the lowest word
/// no longer holding the pattern.
pub fn peak_stack() -> usize {
    let bottom = addr_of!(_stack_end) as usize;
    let top = addr_of!(_stack_start) as usize;
    let mut addr = bottom;
    // SAFETY: reads of stack RAM words.
    while addr < top && unsafe { core::ptr::read_volatile(addr as *const u32) } == PAINT {
        addr += 4;
    }
    top - addr
}

/// Sizes of the image (bytes).
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    /// .text (code, with the vector table before it not counted).
    pub text: usize,
    /// .rodata.
    pub rodata: usize,
    /// .data (initialised statics: RAM, and its initial image in flash).
    pub data: usize,
    /// .bss (zeroed statics).
    pub bss: usize,
    /// .uninit (statics left uninitialised).
    pub uninit: usize,
}

/// The image's section sizes from the linker symbols.
pub fn memory() -> Memory {
    let span = |a: *const u32, b: *const u32| (b as usize).saturating_sub(a as usize);
    Memory {
        text: span(addr_of!(__stext), addr_of!(__etext)),
        rodata: span(addr_of!(__srodata), addr_of!(__erodata)),
        data: span(addr_of!(__sdata), addr_of!(__edata)),
        bss: span(addr_of!(__sbss), addr_of!(__ebss)),
        uninit: span(addr_of!(__suninit), addr_of!(__euninit)),
    }
}

/// Prints flash (.text + .rodata + .data image), static RAM (.data + .bss + .uninit) and peak
/// stack (`stack`, from [`peak_stack`]), with the part's flash and RAM.
pub fn report_memory(name: &str, stack: usize) {
    let m = memory();
    let statics = m.data + m.bss + m.uninit;
    hprintln!(
        "MEMORY {} on {}: flash {} B (.text {} + .rodata {} + .data {}), RAM {} B static (.data {} + .bss {} + .uninit {}) + {} B peak stack = {} B; part: flash {} B, RAM {} B",
        name,
        PART.name,
        m.text + m.rodata + m.data,
        m.text,
        m.rodata,
        m.data,
        statics,
        m.data,
        m.bss,
        m.uninit,
        stack,
        statics + stack,
        PART.flash,
        PART.ram
    );
}

/// A part (microcontroller, or QEMU board standing in for one) the firmware is built for.
#[derive(Clone, Copy, Debug)]
pub struct Part {
    /// Name (the cargo feature that selects it).
    pub name: &'static str,
    /// Processor core (instruction budgets are per core).
    pub core: &'static str,
    /// Floating-point unit: single precision only (f64 in software) or double precision too.
    pub fpu: &'static str,
    /// Core clock (Hz): SysTick counts it, and the latencies in µs are derived from it.
    pub core_hz: u32,
    /// Flash (bytes).
    pub flash: u32,
    /// RAM the image may use for statics and stack (bytes).
    pub ram: u32,
    /// The QEMU machine that runs it.
    pub qemu_machine: &'static str,
}

/// QEMU's MPS2 board with the AN386 image: a Cortex-M4F at 25 MHz, 4 MiB + 4 MiB SSRAM.
#[cfg(feature = "mps2-an386")]
pub const PART: Part = Part {
    name: "mps2-an386",
    core: "cortex-m4f",
    fpu: "fpv4-sp-d16",
    core_hz: 25_000_000,
    flash: 4 << 20,
    ram: 4 << 20,
    qemu_machine: "mps2-an386",
};

/// STM32F405/F407 at its full speed, 168 MHz (QEMU's netduinoplus2 clocks it so): 1 MiB flash,
/// 128 KiB SRAM for statics and stack (its 64 KiB CCM left free, see `memory/stm32f405.x`).
#[cfg(feature = "stm32f405")]
pub const PART: Part = Part {
    name: "stm32f405",
    core: "cortex-m4f",
    fpu: "fpv4-sp-d16",
    core_hz: 168_000_000,
    flash: 1 << 20,
    ram: 128 << 10,
    qemu_machine: "netduinoplus2",
};

/// A Cortex-M7 with the double-precision FPU on QEMU's MPS2 AN500 board (25 MHz there), its
/// memory sized as an STM32F767: 2 MiB flash, 512 KiB RAM.
#[cfg(feature = "mps2-an500")]
pub const PART: Part = Part {
    name: "mps2-an500",
    core: "cortex-m7",
    fpu: "fpv5-d16",
    core_hz: 25_000_000,
    flash: 2 << 20,
    ram: 512 << 10,
    qemu_machine: "mps2-an500",
};

/// Prints the part line CI reads (name, core clock, memory).
pub fn report_part() {
    hprintln!(
        "PART {} core={} fpu={} core_hz={} flash={} ram={} qemu={}",
        PART.name,
        PART.core,
        PART.fpu,
        PART.core_hz,
        PART.flash,
        PART.ram,
        PART.qemu_machine
    );
}

/// A microsecond clock from SysTick: a free-running 24-bit down-counter extended in software
/// (read it at least every 0.67 s).
pub struct SysTickClock {
    last: u32,
    ticks: u64,
}

impl SysTickClock {
    /// Starts SysTick on the processor clock, reload 2²⁴ − 1.
    pub fn start(mut syst: SYST) -> Self {
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(0x00FF_FFFF);
        syst.clear_current();
        syst.enable_counter();
        Self {
            last: SYST::get_current(),
            ticks: 0,
        }
    }
}

impl hil::Monotonic for SysTickClock {
    fn now_us(&mut self) -> u64 {
        let now = SYST::get_current();
        // Down-counter: elapsed = last − now modulo 2²⁴.
        self.ticks += u64::from(self.last.wrapping_sub(now) & 0x00FF_FFFF);
        self.last = now;
        self.ticks * 1_000_000 / u64::from(PART.core_hz)
    }
}
