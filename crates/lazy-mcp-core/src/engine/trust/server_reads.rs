//! `Pins` answers what a server's machines read of the held definitions
//! (`server/reads.rs`'s `HeldReads`): `server/` sits below `trust/` and names
//! only the trait, so the reads are implemented here, each by the `Pins`
//! method of the same name.

use crate::engine::server::calls::CallParams;
use crate::engine::server::reads::HeldReads;
use crate::engine::trust::pins::Pins;

impl HeldReads for Pins {
    fn any_held(&self) -> bool {
        Pins::any_held(self)
    }

    fn call_refusal(&self, name: &str, method: &str, params: &CallParams) -> Option<String> {
        Pins::call_refusal(self, name, method, params)
    }
}
