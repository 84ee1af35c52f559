//! A connection's handshake (`Handshake`) and its inputs, named
//! (`HandshakeInput`); `handshake.rs` carries them out.

pub(in crate::engine) mod input;
pub(in crate::engine) mod machine;
