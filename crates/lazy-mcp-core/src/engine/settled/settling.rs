//! Whether some server was busy at the last state change, the state
//! `settled.rs` keeps. Apart from that code so that the router names it
//! without importing the code that drives it (no import cycle).

#[derive(Debug, Default)]
pub(in crate::engine) struct Settling {
    /// Some server was busy when the states last changed.
    pub(super) busy: bool,
}
