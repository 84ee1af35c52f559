//! The calls bridged to a modern client's input (`clients/input_bridge.rs` drives
//! them), by connection and upstream id: few at a time, so a list, not a map.
//! Its list is private here: a bridge is begun, found, taken, and those whose
//! call ended another way are forgotten.

use super::bridge::Bridge;
use crate::engine::events::ConnId;

#[derive(Debug, Default)]
pub(in crate::engine) struct Bridges {
    list: Vec<Bridge>,
}

impl Bridges {
    /// The bridge of the call `upstream_id` on `conn`.
    pub(in crate::engine) fn get(&self, conn: ConnId, upstream_id: u64) -> Option<&Bridge> {
        self.list.iter().find(|b| b.is_of(conn, upstream_id))
    }

    /// The call's bridge, begun when it has none.
    pub(in crate::engine) fn get_or_begin(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
    ) -> Option<&mut Bridge> {
        if self.get(conn, upstream_id).is_none() {
            self.list.push(Bridge::begun(conn, upstream_id));
        }
        self.list.iter_mut().find(|b| b.is_of(conn, upstream_id))
    }

    /// The call's bridge, ended (taken out).
    pub(in crate::engine) fn take(&mut self, conn: ConnId, upstream_id: u64) -> Option<Bridge> {
        let at = self.list.iter().position(|b| b.is_of(conn, upstream_id))?;
        Some(self.list.swap_remove(at))
    }

    /// The call whose client was asked with `requestState` `state`.
    pub(in crate::engine) fn awaiting(&self, state: &str) -> Option<(ConnId, u64)> {
        self.list.iter().find(|b| b.awaits(state)).map(Bridge::call)
    }

    /// Calls waiting for their client's retry.
    pub(in crate::engine) fn waiting(&self) -> usize {
        self.list.iter().filter(|b| b.is_awaiting()).count()
    }

    /// Forgets the bridges whose call is no longer `live` (by connection and
    /// upstream id).
    pub(in crate::engine) fn keep_live(&mut self, live: impl Fn(ConnId, u64) -> bool) {
        self.list.retain(|b| {
            let (conn, upstream_id) = b.call();
            live(conn, upstream_id)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::Bridges;
    use crate::vec_map::VecMap;

    #[test]
    fn a_bridge_is_begun_once_found_by_its_state_counted_while_it_waits_and_forgotten_with_its_call(
    ) {
        let mut bridges = Bridges::default();
        assert!(bridges.get(1, 7).is_none());
        if let Some(bridge) = bridges.get_or_begin(1, 7) {
            bridge.client_asked("lazy-mcp-input:1".into(), VecMap::new());
        }
        // Begun once: the second call finds the same bridge, one round in.
        assert_eq!(bridges.get_or_begin(1, 7).map(|b| b.rounds()), Some(1));
        bridges.get_or_begin(2, 7);
        assert_eq!(bridges.awaiting("lazy-mcp-input:1"), Some((1, 7)));
        assert_eq!(bridges.awaiting("lazy-mcp-input:2"), None);
        assert_eq!(
            bridges.waiting(),
            1,
            "the bridge on connection 2 asked nothing yet"
        );
        // The call on connection 1 ended another way: its bridge goes with it.
        bridges.keep_live(|conn, _| conn != 1);
        assert!(bridges.get(1, 7).is_none());
        assert_eq!(bridges.waiting(), 0);
        assert!(bridges.take(2, 7).is_some_and(|b| b.is_of(2, 7)));
        assert!(bridges.get(2, 7).is_none() && bridges.take(2, 7).is_none());
    }
}
