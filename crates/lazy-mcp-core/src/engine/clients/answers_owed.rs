//! When a client whose input ended is owed nothing more (`clientSettled`): the
//! engine, which answers or drops every request, is the one that counts them,
//! so a host that stops at the end of its client's input (`serve --stdio` at
//! stdin EOF) keeps no copy of the requests in flight.
//!
//! Counted: every message that gets an answer (a request, anything answered
//! with an error, a message too large to read); settled by each `reply` effect
//! for that client, and by each request of its the client cancelled while it
//! was still unanswered (`gateway.rs`: dropped, never answered). Not counted: a server's request waiting
//! for the client's answer (sampling, elicitation): a client whose input ended
//! cannot answer it, and the call that caused it is counted and is answered
//! (or times out) on its own.
//!
//! `Clients`' inputs for it (`request_read`, `request_dropped`, `input_ended`,
//! `settle_answers`) are in `machine.rs`: they change its fields.

pub(in crate::engine) mod owed;
