//! Large blocks kept for reuse: the `ferrodyn` program's allocator.
//!
//! A large scene is built in phases whose lists are hundreds of megabytes each: the file's raw
//! tables, then the scene, then the Cartesian mirror, the tree, their data. glibc maps every
//! block over 32 MiB on its own and unmaps it when freed, so each phase's lists take fresh
//! pages, which the system zero-fills on first touch: half the CPU of `ferrodyn check` of 10⁶
//! bodies. Here a freed large block is kept (at most [`SLOTS`] of them), its pages marked
//! reclaimable (`MADV_FREE`: the system takes them back only under memory pressure), and the
//! next large block is cut or grown from it (`mremap` moves page tables, never bytes), so the
//! pages written by one phase serve the next. Zeroed blocks always come fresh from the system:
//! their pages cost nothing until written. Everything smaller, over-aligned or on other
//! systems is the system allocator's.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size on are mapped here (glibc maps them on its own from 32 MiB too).
pub const LARGE: usize = 32 << 20;

/// Freed blocks kept for reuse.
pub const SLOTS: usize = 16;

/// The allocator: large blocks here, the rest the system's.
pub struct LargeBlocks;

#[cfg(target_os = "linux")]
mod mapped {
    use super::{LARGE, SLOTS};
    use std::sync::Mutex;

    /// Mapping lengths are multiples of this (every page size Linux uses divides it).
    const GRAIN: usize = 64 << 10;

    /// The length of the mapping that holds `size` bytes.
    pub fn length(size: usize) -> usize {
        size.div_ceil(GRAIN) * GRAIN
    }

    /// A freed mapping: its address and length.
    #[derive(Clone, Copy)]
    struct Block {
        at: usize,
        length: usize,
    }

    /// The freed mappings, unordered (a handful).
    static KEPT: Mutex<[Option<Block>; SLOTS]> = Mutex::new([None; SLOTS]);

    fn kept() -> std::sync::MutexGuard<'static, [Option<Block>; SLOTS]> {
        // Nothing panics while holding it; a poisoned lock still holds valid slots.
        KEPT.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh mapping of `length` bytes (zero pages, filled on first touch), or null.
    pub fn fresh(length: usize) -> *mut u8 {
        // SAFETY: an anonymous private mapping at an address of the system's choosing.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                length,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        match at {
            libc::MAP_FAILED => std::ptr::null_mut(),
            at => at.cast(),
        }
    }

    /// Mapping `at` of `from` bytes made `to` bytes long (moved if it must grow), or null
    /// (then `at` is unchanged).
    pub fn resized(at: *mut u8, from: usize, to: usize) -> *mut u8 {
        if from == to {
            return at;
        }
        // SAFETY: `at` is a mapping of `from` bytes made here and owned by the caller.
        let moved = unsafe { libc::mremap(at.cast(), from, to, libc::MREMAP_MAYMOVE) };
        match moved {
            libc::MAP_FAILED => std::ptr::null_mut(),
            moved => moved.cast(),
        }
    }

    /// A block of `length` bytes: from the kept ones (the head of the smallest that holds it,
    /// its tail kept in its place, else the largest, grown), else fresh.
    pub fn reused(length: usize) -> *mut u8 {
        let chosen = {
            let mut kept = kept();
            let lengths = || (0..SLOTS).filter_map(|k| Some((k, kept[k]?.length)));
            let fitting = lengths().filter(|&(_, l)| l >= length).min_by_key(|&(_, l)| l);
            match fitting {
                Some((k, _)) => kept[k].take().map(|block| {
                    // The tail stays for the next block (a mapping is cut anywhere on a page).
                    let tail = block.length - length;
                    if tail >= LARGE {
                        kept[k] = Some(Block {
                            at: block.at + length,
                            length: tail,
                        });
                        return Block { length, ..block };
                    }
                    block
                }),
                None => {
                    let largest = lengths().max_by_key(|&(_, l)| l);
                    largest.and_then(|(k, _)| kept[k].take())
                }
            }
        };
        let Some(block) = chosen else {
            return fresh(length);
        };
        let at = resized(block.at as *mut u8, block.length, length);
        if at.is_null() {
            release(block.at as *mut u8, block.length);
            return fresh(length);
        }
        at
    }

    /// Keeps the mapping `at` of `length` bytes for reuse (its pages reclaimable), or unmaps
    /// it when every slot is taken.
    pub fn keep(at: *mut u8, length: usize) {
        // SAFETY: the caller gives up the mapping; its contents are not needed any more.
        unsafe { libc::madvise(at.cast(), length, libc::MADV_FREE) };
        let mut kept = kept();
        match kept.iter_mut().find(|slot| slot.is_none()) {
            Some(slot) => {
                *slot = Some(Block {
                    at: at as usize,
                    length,
                })
            }
            None => {
                drop(kept);
                release(at, length);
            }
        }
    }

    /// Unmaps `at` of `length` bytes.
    fn release(at: *mut u8, length: usize) {
        // SAFETY: a mapping made here that nothing refers to any more.
        unsafe { libc::munmap(at.cast(), length) };
    }

    /// Whether a block of `size` bytes aligned to `align` is mapped here.
    pub fn is_large(size: usize, align: usize) -> bool {
        size >= LARGE && align <= GRAIN
    }
}

#[cfg(target_os = "linux")]
// SAFETY: large blocks are whole mappings of at least the size asked for, aligned to the page
// (more than any alignment `is_large` admits), and given back only to `dealloc`/`realloc` with
// the layout they were made for, which says they are large again; the rest is the system's.
unsafe impl GlobalAlloc for LargeBlocks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match mapped::is_large(layout.size(), layout.align()) {
            true => mapped::reused(mapped::length(layout.size())),
            false => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match mapped::is_large(layout.size(), layout.align()) {
            true => mapped::fresh(mapped::length(layout.size())),
            false => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match mapped::is_large(layout.size(), layout.align()) {
            true => mapped::keep(ptr, mapped::length(layout.size())),
            false => unsafe { System.dealloc(ptr, layout) },
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (
            mapped::is_large(layout.size(), align),
            mapped::is_large(new_size, align),
        ) {
            (true, true) => mapped::resized(ptr, mapped::length(layout.size()), mapped::length(new_size)),
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            // Across the threshold: a new block, the bytes both hold copied, the old one freed.
            _ => {
                // SAFETY: `new_size` with the old alignment, as `realloc`'s contract states.
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, align) };
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
                    let bytes = layout.size().min(new_size);
                    unsafe { std::ptr::copy_nonoverlapping(ptr, new, bytes) };
                    unsafe { self.dealloc(ptr, layout) };
                }
                new
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
// SAFETY: every call is the system allocator's.
unsafe impl GlobalAlloc for LargeBlocks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Bytes written at 64 places spread over `[at, at + size)`.
    fn mark(at: *mut u8, size: usize, seed: u8) {
        for k in 0..64 {
            unsafe { at.add(k * (size - 1) / 63).write(seed.wrapping_add(k as u8)) };
        }
    }

    /// Whether the marks of [`mark`] are there.
    fn marked(at: *const u8, size: usize, seed: u8) -> bool {
        (0..64).all(|k| unsafe { at.add(k * (size - 1) / 63).read() } == seed.wrapping_add(k as u8))
    }

    // One test: the kept blocks are one list for the whole process.
    #[test]
    fn large_blocks_are_reused_resized_and_zeroed_when_asked() {
        let a = LargeBlocks;
        let big = Layout::from_size_align(LARGE + 12_345, 8).unwrap();
        unsafe {
            // A freed block serves the next one of its size, in place.
            let first = a.alloc(big);
            assert!(!first.is_null());
            mark(first, big.size(), 1);
            a.dealloc(first, big);
            let again = a.alloc(big);
            assert_eq!(again, first, "the freed block is reused");
            // Grown, shrunk and taken below the threshold, the bytes stay.
            mark(again, big.size(), 2);
            let grown = a.realloc(again, big, 3 * LARGE);
            assert!(!grown.is_null());
            assert!(marked(grown, big.size(), 2));
            let grown_layout = Layout::from_size_align(3 * LARGE, 8).unwrap();
            mark(grown, 1 << 20, 3);
            let small = a.realloc(grown, grown_layout, 1 << 20);
            assert!(!small.is_null());
            assert!(marked(small, 1 << 20, 3), "the bytes crossed the threshold");
            a.dealloc(small, Layout::from_size_align(1 << 20, 8).unwrap());
            // A zeroed block is fresh even with a written one kept.
            let zeroed = a.alloc_zeroed(big);
            assert!(!zeroed.is_null());
            assert!((0..big.size()).step_by(4093).all(|k| zeroed.add(k).read() == 0));
            a.dealloc(zeroed, big);
            // More blocks freed than slots: the rest are unmapped, none lost or doubled.
            let blocks: Vec<*mut u8> = (0..SLOTS + 4).map(|_| a.alloc(big)).collect();
            assert!(blocks.iter().all(|b| !b.is_null()));
            let mut distinct = blocks.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), blocks.len(), "no block handed out twice");
            for (k, &b) in blocks.iter().enumerate() {
                mark(b, big.size(), k as u8);
            }
            assert!(blocks
                .iter()
                .enumerate()
                .all(|(k, &b)| marked(b, big.size(), k as u8)));
            for b in blocks {
                a.dealloc(b, big);
            }
            // Over-aligned blocks are the system's.
            let aligned = Layout::from_size_align(LARGE, 1 << 20).unwrap();
            let block = a.alloc(aligned);
            assert_eq!(block as usize % (1 << 20), 0);
            a.dealloc(block, aligned);
        }
    }
}
