//! Issue 27: the first `search_tools` after a catalogue change builds the
//! search index over every catalogued tool (2,000 and more). The build must
//! cost allocations per distinct word, not per word read: a tool whose
//! description repeats three words 10,000 times builds with a handful of
//! allocations (the build before issue 27 made 120,079 here: several per
//! word read).

use lazy_mcp_core::tool_index::ToolIndex;
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, only counting the calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_index_build_allocates_per_distinct_word_not_per_word_read() {
    let tool = json!({
        "name": "read_notes",
        "description": "alpha beta gamma ".repeat(10_000),
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}
    });
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let index = ToolIndex::build(&[("notes", &tool)]);
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(index.search("gamma alpha", 1)[0].tool, "read_notes");
    assert!(
        allocations < 500,
        "{allocations} allocations to index 30,000 words of 3 distinct ones"
    );
}
