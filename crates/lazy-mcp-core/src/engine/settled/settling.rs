//! Whether some server was busy at the last state change, and whether the
//! servers settled since: the state `settled.rs` keeps. Apart from that code
//! so that the router names it without importing the code that drives it (no
//! import cycle); its field is this file's own.

#[derive(Debug, Default)]
pub(in crate::engine) struct Settling {
    /// Some server was busy when the states last changed.
    busy: bool,
}

impl Settling {
    /// The states changed and some server is `busy` now (or none): whether the
    /// last busy server just settled (`catalogueSettled` is due).
    pub(in crate::engine) fn states_changed(&mut self, busy: bool) -> bool {
        std::mem::replace(&mut self.busy, busy) && !busy
    }
}

#[cfg(test)]
mod tests {
    use super::Settling;

    #[test]
    fn settled_is_said_once_each_time_the_last_busy_server_settles() {
        let mut settling = Settling::default();
        // Nothing was busy: nothing settled.
        assert!(!settling.states_changed(false));
        assert!(!settling.states_changed(true));
        assert!(!settling.states_changed(true));
        assert!(settling.states_changed(false));
        assert!(!settling.states_changed(false));
        assert!(!settling.states_changed(true));
        assert!(settling.states_changed(false));
    }
}
