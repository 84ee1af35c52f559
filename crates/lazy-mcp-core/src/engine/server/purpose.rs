//! Why a connection was opened: what it does once its lists are learned.
//! A leaf: the connection keeps it, and the files that open, list, reopen
//! or sign in on a connection read it without importing the connection.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Purpose {
    /// Learn the lists, then close (unless calls arrived meanwhile).
    Catalogue,
    /// Stay connected and forward calls.
    Connect,
}
